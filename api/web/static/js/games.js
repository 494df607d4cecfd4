// The four games in words: their names and the one line of rules a player
// needs before playing, shown where the settings are chosen and above the
// board (docs/rules.md, "Games", has the whole rule book).

import { GAMES, gameOf, RANKS, rankOf, suitOf } from './engine.js';
import { t } from './i18n.js';

// TS keeps a suit symbol from turning into an emoji.
const TS = '\uFE0E';

// SUIT_SHOWN is each suit's symbol, as the rules' lines print it.
const SUIT_SHOWN = { C: `\u2663${TS}`, D: `\u2666${TS}`, H: `\u2665${TS}`, S: `\u2660${TS}` };

/** gameOptions are the games as a select's [value, text] options, Klondike first. */
export function gameOptions() { return GAMES.map((g) => [g, t(`games.${g}`)]); }

/** gameName names a game (a name or rules): "Thumb and Pouch". */
export function gameName(game) { return t(`games.${gameOf(game)}`); }

/** gameSummary is a game's rules in one line. */
export function gameSummary(game) {
  // The cards in Thumb and Pouch's example are written as printed.
  return t(`games.${gameOf(game)}.summary`, { c7h: `7${SUIT_SHOWN.H}`, c8d: `8${SUIT_SHOWN.D}`, c8s: `8${SUIT_SHOWN.S}`, c8h: `8${SUIT_SHOWN.H}` });
}

/**
 * boardSummary is the line above a board: the game's name and rules, and
 * in Whitehead the rank its foundations start at (the view's
 * foundation_base).
 */
export function boardSummary(rules, view) {
  const game = gameOf(rules);
  if (game === 'whitehead' && view && view.foundation_base) {
    const r = RANKS[view.foundation_base - 1];
    return t('games.line', { game: gameName(game), rules: t('games.whitehead.based', { rank: r === 'T' ? '10' : r }) });
  }
  return t('games.line', { game: gameName(game), rules: gameSummary(game) });
}

/**
 * cardWords names a card for a screen reader: "queen of diamonds". The
 * faces on the board keep their printed rank and suit in every language.
 */
export function cardWords(card) {
  return t('card.name', { rank: t(`card.rank.${rankOf(card)}`), suit: t(`card.suit.${suitOf(card)}`) });
}

/** suitWords names a suit: "spades". */
export function suitWords(s) { return t(`card.suit.${s}`); }

/** statusWords names the end of a player's game: won, stuck, resigned, out of time. */
export function statusWords(status) {
  return ['playing', 'won', 'stuck', 'resigned', 'timed_out'].includes(status) ? t(`tables.status.${status}`) : status;
}

// SOLVED are the games the server's solver plays: only they have hints and
// deals proved winnable (docs/protocol.md, "deals").
const SOLVED = new Set(['klondike', 'thumb_and_pouch']);

/** hasSolver tells whether the server's solver plays the game (hints, winnable deals). */
export function hasSolver(game) { return SOLVED.has(gameOf(game)); }

/** isKlondike tells whether the rules (or settings) are Klondike's, the default game. */
export function isKlondike(rules) { return gameOf(rules) === 'klondike'; }
