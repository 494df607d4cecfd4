// The four games in words: their names and the one line of rules a player
// needs before playing, shown where the settings are chosen and above the
// board (docs/rules.md, "Games", has the whole rule book).

import { GAMES, gameOf, RANKS } from './engine.js';

const NAMES = {
  klondike: 'Klondike',
  thumb_and_pouch: 'Thumb and Pouch',
  whitehead: 'Whitehead',
  double_klondike: 'Double Klondike',
};

// TS keeps a suit symbol from turning into an emoji.
const TS = '\uFE0E';

const SUMMARIES = {
  klondike: 'Build down in alternating colours; only a king goes to an empty pile.',
  thumb_and_pouch: `Build down in any other suit (7\u2665${TS} on 8\u2666${TS} or 8\u2660${TS}, not 8\u2665${TS}); any card or run goes to an empty pile.`,
  whitehead: 'All cards face up. Build down in the same colour; only runs of one suit move together; any card goes to an empty pile. The foundations start at the first stock card\u2019s rank. Draw 1, no redeal.',
  double_klondike: 'Two decks, nine piles, eight foundations (two a suit). Build down in alternating colours; only a king goes to an empty pile.',
};

/** GAME_OPTIONS are the games as a select's [value, text] options, Klondike first. */
export const GAME_OPTIONS = GAMES.map((g) => [g, NAMES[g]]);

/** gameName names a game (a name or rules): "Thumb and Pouch". */
export function gameName(game) { return NAMES[gameOf(game)]; }

/** gameSummary is a game's rules in one line. */
export function gameSummary(game) { return SUMMARIES[gameOf(game)]; }

/**
 * boardSummary is the line above a board: the game's name and rules, and
 * in Whitehead the rank its foundations start at (the view's
 * foundation_base).
 */
export function boardSummary(rules, view) {
  const game = gameOf(rules);
  let text = `${NAMES[game]}: ${SUMMARIES[game]}`;
  if (game === 'whitehead' && view && view.foundation_base) {
    const r = RANKS[view.foundation_base - 1];
    const rank = r === 'T' ? '10' : r;
    text = `${NAMES[game]}: all cards face up. Build down in the same colour; only runs of one suit move together; any card goes to an empty pile. The foundations start at ${rank}, a king followed by an ace.`;
  }
  return text;
}

// SOLVED are the games the server's solver plays: only they have hints and
// deals proved winnable (docs/protocol.md, "deals").
const SOLVED = new Set(['klondike', 'thumb_and_pouch']);

/** hasSolver tells whether the server's solver plays the game (hints, winnable deals). */
export function hasSolver(game) { return SOLVED.has(gameOf(game)); }

/** isKlondike tells whether the rules (or settings) are Klondike's, the default game. */
export function isKlondike(rules) { return gameOf(rules) === 'klondike'; }
