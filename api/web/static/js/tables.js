// The tables of players: the waiting room's list, a round's leaderboard (live
// and in the results) and the match's standings, with the words that name
// and explain each score. Two scores meet a player: the board's points and
// the timed score the leaderboards rank by; every table that shows a score
// says in a line under it which one it is.

import { h, fmtClock } from './util.js';
import { t, fmtNumber } from './i18n.js';
import { S } from './state.js';
import { ratingSpan } from './ratings.js';
import { statusWords } from './games.js';

/**
 * ratingsOf maps the player ids of a rated match to their ratings as the
 * match shows them ({rating, provisional}); null for a match not rated.
 */
export function ratingsOf(m) {
  if (!m || !m.settings || !m.settings.rated) return null;
  const map = new Map();
  for (const p of m.players || []) if (p.rating) map.set(p.player_id, { rating: p.rating, provisional: !!p.provisional });
  return map;
}

// ratingBeside is the rating shown after a player's name, or nothing.
function ratingBeside(ratings, id) {
  const r = ratings && ratings.get(id);
  return r ? [' ', ratingSpan(r.rating, r.provisional)] : null;
}

/**
 * playersList lists the players of a match, with who is host and
 * connected, their ratings in a rated match, and who is ready while the
 * match waits to start (once it has, ready means nothing).
 */
export function playersList(m) {
  const ratings = ratingsOf(m);
  const waiting = m.state === 'open';
  return h('ul', { class: 'players', id: 'players' }, m.players.map((p) => h('li', { class: `player${p.player_id === S.me ? ' me' : ''}`, dataset: { player: p.name } },
    h('span', { class: `dot ${p.connected ? 'on' : 'off'}`, title: t(p.connected ? 'tables.connected' : 'tables.disconnected'), 'aria-hidden': 'true' }),
    h('span', { class: 'pname', text: p.name }),
    ratingBeside(ratings, p.player_id),
    p.player_id === m.host ? h('span', { class: 'badge', text: t('tables.host') }) : null,
    p.player_id === S.me ? h('span', { class: 'badge you', text: t('common.you') }) : null,
    waiting ? h('span', { class: `ready ${p.ready ? 'yes' : 'no'}`, text: t(p.ready ? 'tables.ready' : 'tables.not_ready') }) : null,
    // The dot is colour alone; screen readers get the words.
    h('span', { class: 'visually-hidden', text: t(p.connected ? 'tables.connected_sr' : 'tables.disconnected_sr') }))));
}

// scoreWords names and explains a round's score in each scoring: the
// column's header, and one line under every table that shows it. cards is
// how many the game deals (Vegas buys in a point a card: 104 in Double
// Klondike).
// The ranking's rules are docs/protocol.md's ("Ranking"): ties go to who
// reached the tied result first, then to the order of joining; the notes
// say so, so that no order looks arbitrary.
function scoreWords(scoring, mode, cards = 52) {
  const race = mode !== 'score';
  if (scoring === 'vegas') {
    return {
      header: t('tables.vegas'), title: t('tables.vegas_title', { cards }),
      note: t(race ? 'tables.note_vegas_race' : 'tables.note_vegas_score', { cards }),
    };
  }
  if (scoring === 'none') {
    return { header: '', title: '', note: t(race ? 'tables.note_none_race' : 'tables.note_none_score') };
  }
  return { header: t('tables.timed'), title: t('tables.timed_title'), note: t(race ? 'tables.note_timed_race' : 'tables.note_timed_score') };
}

/** scoreNote is the one line that explains the score of a table; cards is how many the game deals. */
export function scoreNote(scoring, mode, id, cards = 52) {
  return h('p', { class: 'score-note', id, text: scoreWords(scoring, mode, cards).note });
}

/**
 * leaderboardTable shows a round's entries, ranked by the server. In a
 * rated match, ratings (ratingsOf) puts each player's rating beside their
 * name, and change, when given, adds a column of what the round did to it:
 * change(player_id) is the cell's {text, title, cls}.
 */
export function leaderboardTable(entries, { caption = '', labelledBy = null, scoring, mode, cards = 52, ratings = null, change = null }) {
  const statusText = (e) => {
    const done = e.finished_ms !== null && e.finished_ms !== undefined;
    if ((e.status === 'won' || e.status === 'stuck') && done) return t(`tables.status.${e.status}_at`, { time: fmtClock(e.finished_ms) });
    return statusWords(e.status);
  };
  const words = scoreWords(scoring, mode, cards);
  const num = (text, title) => h('th', { scope: 'col', class: 'num', text, title: title || null });
  // A table under a heading that names it (the results) takes its name
  // from the heading rather than repeat it in a caption.
  return h('table', { class: 'board-table leaderboard', id: 'leaderboard', 'aria-describedby': 'score-note', 'aria-labelledby': labelledBy },
    caption ? h('caption', { text: caption }) : null,
    h('thead', {}, h('tr', {},
      num('#', t('common.rank')), h('th', { scope: 'col', text: t('common.player') }),
      num(t('tables.cards_home'), t('game.cards_of', { n: cards })),
      words.header ? num(words.header, words.title) : null,
      num(t('common.moves')), h('th', { scope: 'col', class: 'status', text: t('common.status') }),
      change ? num(t('tables.rating'), t('tables.rating_title')) : null)),
    h('tbody', {}, entries.map((e) => h('tr', { class: `${e.player_id === S.me ? 'me' : ''} st-${e.status}`, dataset: { player: e.name, foundation: String(e.foundation) } },
      h('td', { class: 'num', text: fmtNumber(e.rank) }),
      h('th', { scope: 'row' }, e.name, ratingBeside(ratings, e.player_id), e.player_id === S.me ? h('span', { class: 'visually-hidden', text: t('common.you_sr') }) : null),
      h('td', { class: 'num foundation-count', text: fmtNumber(e.foundation) }),
      words.header ? h('td', { class: 'num score', text: fmtNumber(e.score) }) : null,
      h('td', { class: 'num', text: fmtNumber(e.moves) }),
      h('td', { class: 'status', text: statusText(e) + (e.helped ? t('tables.with_hints') : '') }),
      change ? changeCell(change(e.player_id)) : null))));
}

// changeCell is a cell of the rating column: {text, title, cls}.
function changeCell({ text, title = null, cls = '' }) {
  return h('td', { class: `num rating-change ${cls}`.trim(), title, text });
}

/**
 * totalsTable shows the match standings. The server's "wins" counts the
 * rounds a player ranked first (a lone player who resigned ranks first), so
 * it is named for that; games won show only when the server counts them.
 * The column the match ranks by comes first.
 */
export function totalsTable(totals, { caption, scoring, mode, ratings = null }) {
  const words = scoreWords(scoring, 'score');
  const num = (text, title) => h('th', { scope: 'col', class: 'num', text, title: title || null });
  const won = totals.some((x) => x.games_won !== undefined);
  const kind = scoring === 'vegas' ? 'vegas' : 'timed';
  const total = words.header ? {
    th: num(t(`tables.total_${kind}`), t(`tables.total_${kind}_title`)),
    td: (x) => h('td', { class: 'num total', text: fmtNumber(x.total) }),
  } : null;
  const firsts = {
    th: num(t('tables.firsts'), t('tables.firsts_title')),
    td: (x) => h('td', { class: 'num firsts', text: fmtNumber(x.wins) }),
  };
  const cols = (mode === 'race' ? [firsts, total] : [total, firsts]).filter(Boolean);
  const ranking = t(`tables.standings_${mode === 'race' ? 'race' : 'score'}_${words.header ? kind : 'none'}`);
  return h('div', { class: 'totals-wrap' },
    h('table', { class: 'board-table totals', id: 'totals', 'aria-describedby': 'totals-note' },
      h('caption', { text: caption }),
      h('thead', {}, h('tr', {},
        num('#', t('common.rank')), h('th', { scope: 'col', text: t('common.player') }),
        cols.map((c) => c.th),
        won ? num(t('tables.games_won'), t('tables.games_won_title')) : null,
        num(t('tables.placings'), t('tables.placings_title')))),
      h('tbody', {}, totals.map((x) => h('tr', { class: x.player_id === S.me ? 'me' : '', dataset: { player: x.name } },
        h('td', { class: 'num', text: fmtNumber(x.rank) }), h('th', { scope: 'row' }, x.name, ratingBeside(ratings, x.player_id)),
        cols.map((c) => c.td(x)),
        won ? h('td', { class: 'num', text: fmtNumber(x.games_won) }) : null,
        h('td', { class: 'num', text: (x.placings || []).map(fmtNumber).join(t('board.card_sep')) || t('common.none') }))))),
    h('p', { class: 'score-note', id: 'totals-note', text: ranking }));
}
