// What the pages of asynchronous rounds share: a round's variant, rules and
// window in words, its commitment, the player's attempt (Play, Resume, or
// the result), its board read live, and once it has closed the deal revealed
// with the check of its commitment and the replays. The ghost panel of an
// attempt being played is here too: it reads the same entries.
//
// The board is read, not pushed: it is asked for again every few seconds
// while it is shown and the round is open.

import { h, replace, fmtClock } from './util.js';
import { checkCommitment } from './fair.js';
import { ReplayViewer } from './replay.js';
import { S } from './state.js';
import { fail } from './feedback.js';
import { seenCommitment } from './async.js';
import { pageLink } from './pages.js';
import { scoreNote } from './tables.js';
import { gameName, isKlondike } from './games.js';
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
  const game = isKlondike(r) ? '' : `${gameName(r)} · `;
  const scoring = r.scoring && r.scoring !== 'standard' ? ` · ${r.scoring === 'vegas' ? 'Vegas' : 'no scoring'}` : '';
  return `${game}Draw ${draw}${scoring}`;
}

/** describeRules writes a round's rules and time limit in one line. */
export function describeRules(info) {
  const r = info.rules || {};
  const parts = [...(isKlondike(r) ? [] : [gameName(r)]), `Draw ${r.draw}`, r.passes ? `${r.passes} pass${r.passes === 1 ? '' : 'es'}` : 'unlimited passes',
    `${r.scoring} scoring`, info.mode === 'score' ? 'ranked by score' : 'ranked like a race',
    `undo ${String(r.undo || '').replace('_', ' ')}`];
  if (r.foundation_to_tableau === false) parts.push('no cards back from the foundations');
  parts.push(`${fmtClock(info.limit_ms)} to play`);
  return parts.join(' · ');
}

/** leftText writes the time left in a window: "5 h 12 min" past an hour, m:ss under it. */
export function leftText(ms) {
  if (ms <= 0) return '0:00';
  if (ms < 3600000) return fmtClock(ms);
  const mins = Math.floor(ms / 60000);
  const days = Math.floor(mins / 1440);
  if (days >= 1) return `${days} d ${Math.floor((mins % 1440) / 60)} h`;
  return `${Math.floor(mins / 60)} h ${String(mins % 60).padStart(2, '0')} min`;
}

/** serverNow is the time on the server's clock. */
export function serverNow() {
  return S.conn ? S.conn.serverNow() : Date.now();
}

/** playersText counts a round's players: "3 players (2 finished)". */
export function playersText(players, finished) {
  return `${players} player${players === 1 ? '' : 's'}${finished !== undefined && finished !== players ? ` (${finished} finished)` : ''}`;
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
    h('summary', {}, 'Commitment ', h('code', { text: c.length > 16 ? `${c.slice(0, 8)}…${c.slice(-6)}` : c })),
    h('p', { class: 'muted', text: 'SHA-256 of "<salt>:<deal number>", published before anyone plays; the deal and the salt are revealed when the round closes.' }),
    h('code', { class: 'commit-full', text: c }));
}

// cardsHome counts the cards on the foundations: "1 card home", "5 cards home".
function cardsHome(n) {
  return `${n} card${n === 1 ? '' : 's'} home`;
}

// statusText writes an entry's end: won, stuck, resigned, out of time.
function statusText(e) {
  return { won: 'won', stuck: 'stuck', resigned: 'resigned', timed_out: 'out of time' }[e.status] || e.status;
}

// scoreHeader names the score column of the rules' scoring; '' for none.
function scoreHeader(scoring) {
  return { standard: 'Timed score', vegas: 'Vegas score' }[scoring] || '';
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
  h('td', { class: 'num', text: String(e.rank) }),
  // A name links the player's profile.
  h('th', { scope: 'row' }, e.player_id ? pageLink({ kind: 'profile', id: e.player_id }, { text: e.name }) : e.name,
    e.player_id === S.me ? h('span', { class: 'badge you', text: 'you' }) : null),
  h('td', { class: 'num', text: String(e.foundation) }),
  header ? h('td', { class: 'num score', text: String(e.score) }) : null,
  h('td', { class: 'num col-moves', text: String(e.moves) }),
  h('td', { class: 'num', text: fmtClock(e.elapsed_ms) }),
  h('td', { class: 'status', text: statusText(e) }));
  const cols = header ? 7 : 6;
  return h('table', { class: 'board-table async-table', id },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {},
      num('#', 'rank'), h('th', { scope: 'col', text: 'Player' }),
      num('Cards', `cards on the foundations, of ${cards}`),
      header ? num(header) : null,
      h('th', { scope: 'col', class: 'num col-moves', text: 'Moves' }),
      num('Time', 'on the player\u2019s own clock: the finish, or the end of the attempt'),
      h('th', { scope: 'col', class: 'status', text: 'Status' }))),
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
    info.known_deal ? h('p', { class: 'open-deal', id: `${id}-open`, text: `Open deal #${info.seed} — anyone can look this deal up` }) : null);
  const body = h('div', {}, h('p', { class: 'muted', text: 'Reading the board…' }));
  const cards = specOf(info.rules).cards;
  host.append(body, scoreNote(info.rules && info.rules.scoring, info.mode === 'score' ? 'score' : 'race', `${id}-note`, cards));
  let gone = false;
  let reading = false;
  let timer = 0;
  const draw = (b) => {
    const caption = b.closed ? 'Final board' : 'Board (live)';
    if (!(b.top && b.top.length)) {
      replace(body, h('p', { class: 'empty muted', text: b.players ? `Nobody has finished yet (${playersText(b.players)} so far).` : 'Nobody has played yet.' }));
      return;
    }
    replace(body,
      b.rank && showRank ? h('p', { class: 'my-rank', text: `Your rank: ${b.rank} of ${b.finished}` }) : null,
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
      if (!gone && err.code !== 'disconnected' && err.code !== 'rate_limited') replace(body, h('p', { class: 'muted', text: `The board could not be read: ${err.message || err.code}` }));
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
  openReplay.btn.textContent = 'Watch the replays';
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
  const check = h('p', { class: 'fair-check', id: `${prefix}-check`, dataset: { state: 'checking' }, text: 'Checking the commitment…' });
  checkCommitment({ seed: info.seed, salt: info.salt, commitment: info.commitment, known_deal: info.known_deal }, seen || info.commitment).then((res) => {
    if (res.known) {
      check.dataset.state = 'known';
      check.textContent = `Deal #${info.seed} was an open deal: there was no secret to commit to.`;
    } else if (res.ok) {
      check.dataset.state = 'ok';
      replace(check, 'Commitment verified ', h('span', { class: 'tick', text: '✓' }),
        ` SHA-256("salt:${info.seed}") equals the commitment ${seen ? 'you saw before the round closed' : 'the server published'}.`);
    } else {
      check.dataset.state = 'bad';
      replace(check, h('span', { class: 'cross', 'aria-hidden': 'true', text: '✗ ' }),
        `Commitment check failed: SHA-256("salt:${info.seed}") is ${res.computed.slice(0, 12)}…, not the commitment ${res.expected.slice(0, 12)}…${seen && seen !== info.commitment ? ' you saw before the round closed' : ''}.`);
    }
  }).catch(() => { check.dataset.state = 'error'; check.textContent = 'Could not compute the hash in this browser.'; });
  const replayHost = h('div', { class: 'replay-host' });
  const url = `/api/v1/rounds/${encodeURIComponent(info.round_id)}/replay`;
  const btn = h('button', { class: 'btn', type: 'button', id: `${prefix}-replay`, text: 'Watch the replays' });
  btn.addEventListener('click', () => {
    const mine = openReplay && openReplay.btn === btn;
    closeReplay();
    if (mine) return;
    openReplay = { btn, viewer: new ReplayViewer(replayHost, url, S.me, { onError: fail }) };
    btn.textContent = 'Close the replay';
  });
  return h('div', { class: 'reveal', id: prefix },
    h('p', { class: 'revealed' }, 'The deal: ', h('strong', { class: 'revealed-seed', text: `#${info.seed}` })),
    check,
    info.salt ? h('dl', { class: 'proof' },
      h('dt', { text: 'Commitment' }), h('dd', {}, h('code', { text: seen || info.commitment })),
      h('dt', { text: 'Salt' }), h('dd', {}, h('code', { text: info.salt })),
      h('dt', { text: 'Check it yourself' }), h('dd', {}, h('code', { text: `printf '%s:%s' ${info.salt} ${info.seed} | sha256sum` }))) : null,
    h('div', { class: 'actions' }, btn,
      h('a', { href: url, class: 'muted', id: `${prefix}-data`, text: 'the replays\u2019 data (JSON)', title: 'every move of every player, to check the board with your own tools' })),
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
    return h('p', { class: 'played', id: `${id}-played` },
      h('strong', { text: `Played — rank ${r.rank}` }),
      h('span', { class: 'muted', text: ` · ${statusText(r)} · ${cardsHome(r.foundation)} · ${fmtClock(r.elapsed_ms)}${scoreHeader(info.rules && info.rules.scoring) ? ` · score ${r.score}` : ''}` }));
  }
  if (state === 'playing') {
    return h('button', { class: 'btn primary', type: 'button', id: `${id}-resume`, text: 'Resume', title: 'Your clock has been running since you started', onclick: onPlay });
  }
  if (info.closed) return h('p', { class: 'muted', id: `${id}-closed`, text: 'Closed: you did not play this one.' });
  return h('button', { class: 'btn primary', type: 'button', id: `${id}-play`, text: 'Play', onclick: onPlay });
}

/**
 * ghostPanel shows where the board's leader and the friend who sent the
 * link (friendId, the challenge's creator) stood at the same time of their
 * own games; null when there is no one to show. A friend who leads the
 * board comes once, as the leader, and is named both.
 */
export function ghostPanel(g, friendId = '') {
  const ghosts = (g && g.ghosts) || [];
  if (!ghosts.length) return null;
  const label = (x) => {
    const friend = x.role === 'friend' || (friendId && x.player_id === friendId);
    if (x.role === 'leader' && friend) return 'Friend and leader';
    return friend ? 'Friend' : 'Leader';
  };
  return h('section', { class: 'ghosts', id: 'ghosts', 'aria-labelledby': 'ghosts-title' },
    h('h2', { id: 'ghosts-title', text: `At ${fmtClock(g.elapsed_ms)} of their game` }),
    h('ul', {}, ghosts.map((x) => h('li', { class: `ghost ghost-${x.role}`, dataset: { role: x.role, player: x.name } },
      h('strong', { text: `${label(x)} (${x.name}):` }),
      ` score ${x.score}, ${cardsHome(x.foundation)}${x.won ? ' · won' : ''}`))));
}
