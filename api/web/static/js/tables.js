// The tables of players: the waiting room's list, a round's leaderboard (live
// and in the results) and the match's standings, with the words that name
// and explain each score. Two scores meet a player: the board's points and
// the timed score the leaderboards rank by; every table that shows a score
// says in a line under it which one it is.

import { h, fmtClock } from './util.js';
import { S } from './state.js';
import { ratingSpan } from './ratings.js';

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

/** playersList lists the players of a match, with who is host, ready and connected, and their ratings in a rated match. */
export function playersList(m) {
  const ratings = ratingsOf(m);
  return h('ul', { class: 'players', id: 'players' }, m.players.map((p) => h('li', { class: `player${p.player_id === S.me ? ' me' : ''}`, dataset: { player: p.name } },
    h('span', { class: `dot ${p.connected ? 'on' : 'off'}`, title: p.connected ? 'connected' : 'disconnected', 'aria-hidden': 'true' }),
    h('span', { class: 'pname', text: p.name }),
    ratingBeside(ratings, p.player_id),
    p.player_id === m.host ? h('span', { class: 'badge', text: 'host' }) : null,
    p.player_id === S.me ? h('span', { class: 'badge you', text: 'you' }) : null,
    h('span', { class: `ready ${p.ready ? 'yes' : 'no'}`, text: p.ready ? 'ready' : 'not ready' }),
    // The dot is colour alone; screen readers get the words.
    h('span', { class: 'visually-hidden', text: p.connected ? ', connected' : ', disconnected' }))));
}

// scoreWords names and explains a round's score in each scoring: the
// column's header, and one line under every table that shows it. cards is
// how many the game deals (Vegas buys in a point a card: 104 in Double
// Klondike).
function scoreWords(scoring, mode, cards = 52) {
  const ranking = mode === 'score'
    ? 'Ranked by timed score.'
    : 'Ranked by who won first, then cards home, then timed score.';
  if (scoring === 'vegas') {
    return { header: 'Vegas score', title: `−${cards} to start, +5 for each card home; no time penalty`, note: `Vegas score: −${cards} to start, +5 for each card home, no time penalty. ${mode === 'score' ? 'Ranked by Vegas score.' : 'Ranked by who won first, then by cards home.'}` };
  }
  if (scoring === 'none') {
    return { header: '', title: '', note: mode === 'score' ? 'No scoring: ties are broken by who got there first.' : 'Ranked by who won first, then by cards home.' };
  }
  return {
    header: 'Timed score',
    title: 'the board\u2019s points − 2 for every 10 s played (never below 0), + a bonus for a win',
    note: `Timed score: the board\u2019s points − 2 for every 10 s played (never below 0), + a time bonus for a win; so most are 0 early on. ${ranking}`,
  };
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
export function leaderboardTable(entries, { caption, scoring, mode, cards = 52, ratings = null, change = null }) {
  const statusText = (e) => {
    const t = e.finished_ms !== null && e.finished_ms !== undefined ? ` ${fmtClock(e.finished_ms)}` : '';
    return { playing: 'playing', won: `won${t}`, stuck: `stuck${t}`, resigned: 'resigned', timed_out: 'out of time' }[e.status] || e.status;
  };
  const words = scoreWords(scoring, mode, cards);
  const num = (text, title) => h('th', { scope: 'col', class: 'num', text, title: title || null });
  return h('table', { class: 'board-table leaderboard', id: 'leaderboard', 'aria-describedby': 'score-note' },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {},
      num('#', 'rank'), h('th', { scope: 'col', text: 'Player' }),
      num('Cards home', `cards on the foundations, of ${cards}`),
      words.header ? num(words.header, words.title) : null,
      num('Moves'), h('th', { scope: 'col', class: 'status', text: 'Status' }),
      change ? num('Rating', 'what this round did to the player\u2019s rating') : null)),
    h('tbody', {}, entries.map((e) => h('tr', { class: `${e.player_id === S.me ? 'me' : ''} st-${e.status}`, dataset: { player: e.name, foundation: String(e.foundation) } },
      h('td', { class: 'num', text: String(e.rank) }),
      h('th', { scope: 'row' }, e.name, ratingBeside(ratings, e.player_id), e.player_id === S.me ? h('span', { class: 'visually-hidden', text: ' (you)' }) : null),
      h('td', { class: 'num foundation-count', text: String(e.foundation) }),
      words.header ? h('td', { class: 'num score', text: String(e.score) }) : null,
      h('td', { class: 'num', text: String(e.moves) }),
      h('td', { class: 'status', text: statusText(e) + (e.helped ? ' · with hints' : '') }),
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
  const won = totals.some((t) => t.games_won !== undefined);
  const total = words.header ? {
    th: num(`Total ${words.header.toLowerCase()}`, `the sum of the round scores (${words.header.toLowerCase()})`),
    td: (t) => h('td', { class: 'num total', text: String(t.total) }),
  } : null;
  const firsts = {
    th: num('1st places', 'rounds in which this player ranked first, won or not'),
    td: (t) => h('td', { class: 'num firsts', text: String(t.wins) }),
  };
  const cols = (mode === 'race' ? [firsts, total] : [total, firsts]).filter(Boolean);
  const ranking = mode === 'race'
    ? `Standings: ranked by 1st places, then by total${words.header ? ` ${words.header.toLowerCase()}` : ''}.`
    : `Standings: ranked by total${words.header ? ` ${words.header.toLowerCase()}` : ''}.`;
  return h('div', { class: 'totals-wrap' },
    h('table', { class: 'board-table totals', id: 'totals', 'aria-describedby': 'totals-note' },
      h('caption', { text: caption }),
      h('thead', {}, h('tr', {},
        num('#', 'rank'), h('th', { scope: 'col', text: 'Player' }),
        cols.map((c) => c.th),
        won ? num('Games won', 'rounds whose game this player won') : null,
        num('Place each round', 'the rank in each round, in order'))),
      h('tbody', {}, totals.map((t) => h('tr', { class: t.player_id === S.me ? 'me' : '', dataset: { player: t.name } },
        h('td', { class: 'num', text: String(t.rank) }), h('th', { scope: 'row' }, t.name, ratingBeside(ratings, t.player_id)),
        cols.map((c) => c.td(t)),
        won ? h('td', { class: 'num', text: String(t.games_won) }) : null,
        h('td', { class: 'num', text: (t.placings || []).join(', ') || '–' }))))),
    h('p', { class: 'score-note', id: 'totals-note', text: ranking }));
}
