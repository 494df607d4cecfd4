// What the pages of asynchronous rounds share: a round's variant, rules and
// window in words, its commitment, the player's attempt (Play, Resume, or
// the result), its board read live, and once it has closed the deal revealed
// with the check of its commitment and the replays. The ghost panel of an
// attempt being played is here too: it reads the same entries.
//
// The board is read, not pushed: it is asked for again every few seconds
// while it is shown and the round is open.

import { h, replace, fmtClock } from './util.js';
import { t, plural, fmtNumber, fmtDuration, errorText } from './i18n.js';
import { checkCommitment } from './fair.js';
import { ReplayViewer } from './replay.js';
import { S } from './state.js';
import { fail } from './feedback.js';
import { seenCommitment } from './async.js';
import { pageLink } from './pages.js';
import { scoreNote } from './tables.js';
import { passesWords } from './settings.js';
import { gameName, isKlondike, statusWords } from './games.js';
import { specOf } from './engine.js';

// BOARD_POLL_MS is how often an open round's board is read again.
export const BOARD_POLL_MS = 5000;

// The board a page asks for: the first entries and the player's neighbours.
const BOARD_TOP = 100;
const BOARD_AROUND = 5;

/** variantLabel names a round's variant: "Draw 3", "Draw 1 · Vegas", "Whitehead · Draw 1". */
export function variantLabel(info) {
  const r = info.rules || {};
  const draw = r.draw || (/(^|-)draw1(-|$)/.test(String(info.variant || '')) ? 1 : 3);
  const parts = [...(isKlondike(r) ? [] : [gameName(r)]), t('common.draw_n', { n: draw })];
  if (r.scoring && r.scoring !== 'standard') parts.push(t(r.scoring === 'vegas' ? 'settings.scoring_vegas' : 'async.no_scoring'));
  return parts.join(t('common.sep'));
}

/** describeRules writes a round's rules and time limit in one line. */
export function describeRules(info) {
  const r = info.rules || {};
  const parts = [...(isKlondike(r) ? [] : [gameName(r)]), t('common.draw_n', { n: r.draw }), passesWords(r.passes),
    t(`settings.d.scoring_${r.scoring || 'standard'}`), t(info.mode === 'score' ? 'async.by_score' : 'async.like_race'),
    t(`settings.d.undo_${r.undo || 'no_reveal'}`)];
  if (r.foundation_to_tableau === false) parts.push(t('settings.d.no_back'));
  parts.push(t('async.to_play', { time: fmtClock(info.limit_ms) }));
  return parts.join(t('common.sep'));
}

/** leftText writes the time left in a window: "5 hr, 12 min" past an hour, m:ss under it. */
export function leftText(ms) {
  if (ms <= 0) return fmtClock(0);
  if (ms < 3600000) return fmtClock(ms);
  return fmtDuration(ms);
}

/** serverNow is the time on the server's clock. */
export function serverNow() {
  return S.conn ? S.conn.serverNow() : Date.now();
}

/** playersText counts a round's players: "3 players (2 finished)". */
export function playersText(players, finished) {
  const n = plural('async.players', players);
  return finished !== undefined && finished !== players ? t('async.players_finished', { players: n, finished }) : n;
}

/**
 * hashOf is the hash a commitment is of, as the check writes it:
 * SHA-256("salt:<seed>"), the word salt in the page's language, kept whole
 * among words of either direction (a first-strong isolate).
 */
export function hashOf(seed) {
  return `\u2068${t('fair.hash_of', { seed })}\u2069`;
}

/** proofList is the revealed commitment, salt and the command to check them by hand. */
export function proofList(commitment, salt, seed) {
  return h('dl', { class: 'proof' },
    h('dt', { text: t('fair.commitment') }), h('dd', {}, h('code', { text: commitment })),
    h('dt', { text: t('fair.salt') }), h('dd', {}, h('code', { text: salt })),
    h('dt', { text: t('fair.by_hand') }), h('dd', {}, h('code', { dir: 'ltr', text: `printf '%s:%s' ${salt} ${seed} | sha256sum` })));
}

/**
 * commitmentLine shows a round's commitment shortened, and whole when its
 * details are opened; null for an open deal.
 */
export function commitmentLine(info, id) {
  // An open deal has no secret: its board says so.
  if (info.known_deal) return null;
  const c = info.commitment || '';
  return h('details', { class: 'commit', id },
    h('summary', {}, t('fair.commitment'), ' ', h('code', { dir: 'ltr', text: c.length > 16 ? `${c.slice(0, 8)}…${c.slice(-6)}` : c })),
    h('p', { class: 'muted', text: t('fair.commitment_about') }),
    h('code', { class: 'commit-full', text: c }));
}

// cardsHome counts the cards on the foundations: "1 card home", "5 cards home".
function cardsHome(n) {
  return plural('async.cards_home', n);
}

// statusText writes an entry's end: won, stuck, resigned, out of time.
function statusText(e) {
  return statusWords(e.status);
}

// scoreHeader names the score column of the rules' scoring; '' for none.
function scoreHeader(scoring) {
  return { standard: t('tables.timed'), vegas: t('tables.vegas') }[scoring] || '';
}

/**
 * boardTable shows a board page (get_board): its first entries and, when
 * the player is further down, a gap and their own entry with its
 * neighbours. The player's row and their neighbours' are marked.
 */
export function boardTable(page, { id, caption, scoring, cards = 52 }) {
  const top = page.top || [];
  const around = page.around || [];
  const near = new Set(around.map((e) => e.player_id));
  const inTop = new Set(top.map((e) => e.player_id));
  const below = around.filter((e) => !inTop.has(e.player_id));
  const header = scoreHeader(scoring);
  const num = (text, title) => h('th', { scope: 'col', class: 'num', text, title: title || null });
  const row = (e) => h('tr', {
    class: [e.player_id === S.me ? 'me' : near.has(e.player_id) ? 'near' : '', `st-${e.status}`].filter(Boolean).join(' '),
    dataset: { player: e.name, rank: String(e.rank) },
  },
  h('td', { class: 'num', text: fmtNumber(e.rank) }),
  // A name links the player's profile.
  h('th', { scope: 'row' }, e.player_id ? pageLink({ kind: 'profile', id: e.player_id }, { text: e.name }) : e.name,
    e.player_id === S.me ? h('span', { class: 'badge you', text: t('common.you') }) : null),
  h('td', { class: 'num', text: fmtNumber(e.foundation) }),
  header ? h('td', { class: 'num score', text: fmtNumber(e.score) }) : null,
  h('td', { class: 'num col-moves', text: fmtNumber(e.moves) }),
  h('td', { class: 'num', text: fmtClock(e.elapsed_ms) }),
  h('td', { class: 'status', text: statusText(e) }));
  const cols = header ? 7 : 6;
  return h('table', { class: 'board-table async-table', id },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {},
      num('#', t('common.rank')), h('th', { scope: 'col', text: t('common.player') }),
      num(t('game.cards'), t('game.cards_of', { n: cards })),
      header ? num(header) : null,
      h('th', { scope: 'col', class: 'num col-moves', text: t('common.moves') }),
      num(t('common.time'), t('async.time_title')),
      h('th', { scope: 'col', class: 'status', text: t('common.status') }))),
    h('tbody', {}, top.map(row),
      below.length ? h('tr', { class: 'gap' }, h('td', { colspan: String(cols), text: '…' })) : null,
      below.map(row)));
}

/**
 * liveBoard is a round's board, read now and again every BOARD_POLL_MS
 * while the round is open; onPage gets each page read (its counts). Above
 * it, the player's rank, unless showRank is false (a page that shows their
 * result already). The caller destroys it with its screen.
 */
export function liveBoard(info, { id, onPage, showRank = true } = {}) {
  const roundId = info.round_id;
  const host = h('div', { class: 'async-board', id, dataset: { round: roundId } },
    info.known_deal ? h('p', { class: 'open-deal', id: `${id}-open`, text: t('async.open_deal', { seed: info.seed }) }) : null);
  const body = h('div', {}, h('p', { class: 'muted', text: t('async.reading_board') }));
  const cards = specOf(info.rules).cards;
  host.append(body, scoreNote(info.rules && info.rules.scoring, info.mode === 'score' ? 'score' : 'race', `${id}-note`, cards));
  let gone = false;
  let reading = false;
  let timer = 0;
  const draw = (b) => {
    const caption = t(b.closed ? 'async.final_board' : 'async.live_board');
    if (!(b.top && b.top.length)) {
      replace(body, h('p', { class: 'empty muted', text: b.players ? t('async.none_finished', { players: playersText(b.players) }) : t('async.none_played') }));
      return;
    }
    replace(body,
      b.rank && showRank ? h('p', { class: 'my-rank', text: t('async.my_rank', { rank: b.rank, of: b.finished }) }) : null,
      boardTable(b, { id: `${id}-table`, caption, scoring: info.rules && info.rules.scoring, cards }));
  };
  const read = () => {
    if (gone || reading || !S.conn || !S.conn.isOpen()) return;
    reading = true;
    S.conn.request('get_board', { round_id: roundId, top: BOARD_TOP, around: BOARD_AROUND }).then((b) => {
      if (gone) return;
      draw(b);
      if (onPage) onPage(b);
      if (b.closed) clearInterval(timer);
    }, (err) => {
      if (!gone && err.code !== 'disconnected' && err.code !== 'rate_limited') replace(body, h('p', { class: 'muted', text: t('async.board_failed', { why: errorText(err) }) }));
    }).finally(() => { reading = false; });
  };
  read();
  if (!info.closed) timer = setInterval(read, BOARD_POLL_MS);
  return { el: host, refresh: read, destroy: () => { gone = true; clearInterval(timer); } };
}

// The replay open on the page: one at a time, since the viewer's controls
// have fixed ids.
let openReplay = null;

/** closeReplay closes the replay open on the page, if any. */
export function closeReplay() {
  if (!openReplay) return;
  openReplay.viewer.destroy();
  openReplay.btn.textContent = t('async.watch_replays');
  openReplay = null;
}

/**
 * revealPanel shows a closed round's deal: the check, in the browser, that
 * SHA-256("<salt>:<seed>") equals the commitment (the one this browser saw
 * before the round closed when it saw one), the proof to check by hand, and
 * the replays of its players.
 */
export function revealPanel(info, prefix) {
  const seen = seenCommitment(info.round_id);
  const check = h('p', { class: 'fair-check', id: `${prefix}-check`, dataset: { state: 'checking' }, text: t('fair.checking') });
  checkCommitment({ seed: info.seed, salt: info.salt, commitment: info.commitment, known_deal: info.known_deal }, seen || info.commitment).then((res) => {
    if (res.known) {
      check.dataset.state = 'known';
      check.textContent = t('fair.known_open', { seed: info.seed });
    } else if (res.ok) {
      check.dataset.state = 'ok';
      replace(check, t('fair.verified_head'), h('span', { class: 'tick', text: '✓' }),
        t(seen ? 'fair.verified_seen' : 'fair.verified_server', { hash: hashOf(info.seed) }));
    } else {
      check.dataset.state = 'bad';
      const params = { hash: hashOf(info.seed), computed: `${res.computed.slice(0, 12)}…`, expected: `${res.expected.slice(0, 12)}…` };
      replace(check, h('span', { class: 'cross', 'aria-hidden': 'true', text: '✗ ' }),
        t(seen && seen !== info.commitment ? 'fair.failed_seen' : 'fair.failed', params));
    }
  }).catch(() => { check.dataset.state = 'error'; check.textContent = t('fair.no_hash'); });
  const replayHost = h('div', { class: 'replay-host' });
  const url = `/api/v1/rounds/${encodeURIComponent(info.round_id)}/replay`;
  const btn = h('button', { class: 'btn', type: 'button', id: `${prefix}-replay`, text: t('async.watch_replays') });
  btn.addEventListener('click', () => {
    const mine = openReplay && openReplay.btn === btn;
    closeReplay();
    if (mine) return;
    openReplay = { btn, viewer: new ReplayViewer(replayHost, url, S.me, { onError: fail }) };
    btn.textContent = t('results.close_replay');
  });
  return h('div', { class: 'reveal', id: prefix },
    h('p', { class: 'revealed' }, t('fair.the_deal'), h('strong', { class: 'revealed-seed', text: `#${info.seed}` })),
    check,
    info.salt ? proofList(seen || info.commitment, info.salt, info.seed) : null,
    h('div', { class: 'actions' }, btn,
      h('a', { href: url, class: 'muted', id: `${prefix}-data`, text: t('async.replays_data'), title: t('async.replays_data_title') })),
    replayHost);
}

/**
 * attemptAction is what the player can do with a round: Play it, Resume
 * their attempt, or read their result ("Played — rank N"). onPlay starts
 * or resumes the attempt.
 */
export function attemptAction(info, attempt, { id, onPlay }) {
  const state = (attempt && attempt.state) || 'none';
  if (state === 'finished' && attempt.result) {
    const r = attempt.result;
    const sep = t('common.sep');
    const facts = [statusText(r), cardsHome(r.foundation), fmtClock(r.elapsed_ms)];
    if (scoreHeader(info.rules && info.rules.scoring)) facts.push(t('async.score', { score: r.score }));
    return h('p', { class: 'played', id: `${id}-played` },
      h('strong', { text: t('async.played_rank', { rank: r.rank }) }),
      h('span', { class: 'muted', text: sep + facts.join(sep) }));
  }
  if (state === 'playing') {
    return h('button', { class: 'btn primary', type: 'button', id: `${id}-resume`, text: t('async.resume'), title: t('async.resume_title'), onclick: onPlay });
  }
  if (info.closed) return h('p', { class: 'muted', id: `${id}-closed`, text: t('async.closed_unplayed') });
  return h('button', { class: 'btn primary', type: 'button', id: `${id}-play`, text: t('async.play'), onclick: onPlay });
}

/**
 * ghostPanel shows where the board's leader and the friend who sent the
 * link (friendId, the challenge's creator) stood at the same time of their
 * own games; null when there is no one to show. A friend who leads the
 * board comes once, as the leader, and is named both.
 */
export function ghostPanel(g, friendId = '', scoring = 'standard') {
  const ghosts = (g && g.ghosts) || [];
  if (!ghosts.length) return null;
  const label = (x) => {
    const friend = x.role === 'friend' || (friendId && x.player_id === friendId);
    if (x.role === 'leader' && friend) return 'async.ghost_both';
    return friend ? 'async.ghost_friend' : 'async.ghost_leader';
  };
  // A ghost's score is its round score, named as the board's column names
  // it (the timed score, or Vegas), never as the board's own points.
  const scoreKey = { vegas: 'async.ghost_vegas', none: 'async.ghost_none' }[scoring] || 'async.ghost_timed';
  return h('section', { class: 'ghosts', id: 'ghosts', 'aria-labelledby': 'ghosts-title' },
    h('h2', { id: 'ghosts-title', text: t('async.ghost_at', { time: fmtClock(g.elapsed_ms) }) }),
    h('ul', {}, ghosts.map((x) => h('li', { class: `ghost ghost-${x.role}`, dataset: { role: x.role, player: x.name } },
      h('strong', { text: t(label(x), { name: x.name }) }),
      ' ', t(scoreKey, { score: x.score, cards: cardsHome(x.foundation) }), x.won ? t('async.ghost_won') : null))));
}
