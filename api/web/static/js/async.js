// Asynchronous rounds, the daily deals and the challenges: one committed
// deal that any number of players each play once, on their own clock,
// within a window (docs/protocol.md, "Asynchronous rounds"). This module
// keeps what the server said of them (S.asyncRounds), and plays the
// player's attempt: round_started with a kind makes it S.attempt and its
// round S.round, so that the board, the moves and the clock work as in a
// race; ghost and attempt_over follow it.
//
// The commitment of each round the player saw open is remembered by the
// browser, so that once the round closes its revealed deal is checked
// against the commitment the player saw before playing, not only against
// what the server says afterwards.

import { storageGet, storageSet, COMMITMENTS_KEY } from './storage.js';
import { S, resetRound } from './state.js';
import { setPath } from './route.js';
import { pagePath } from './pages.js';
import { toast, fail, announce } from './feedback.js';
import { t } from './i18n.js';
import { render, update, updateSide } from './screen.js';
import { request } from './connection.js';
import { takeDeal } from './round.js';

// MAX_COMMITMENTS bounds the commitments the browser remembers; the oldest
// go first.
const MAX_COMMITMENTS = 60;

/** DAY_WINDOW_S is a challenge's default window: a day. */
export const DAY_WINDOW_S = 86400;

/** dailyId is the id of the daily round of a UTC day ("2026-12-04") and variant. */
export function dailyId(day, variant) {
  return `daily-${day}-${variant}`;
}

/** dayBefore is the UTC date before day ("2026-12-05" gives "2026-12-04"). */
export function dayBefore(day) {
  const at = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(at)) return '';
  return new Date(at - 86400000).toISOString().slice(0, 10);
}

function loadCommitments() {
  try {
    const v = JSON.parse(storageGet(COMMITMENTS_KEY, '[]'));
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/**
 * rememberCommitment keeps the commitment of a round seen open (an
 * AsyncInfo): only a commitment seen before the deal is revealed proves
 * anything.
 */
export function rememberCommitment(info) {
  if (!info || info.closed || info.known_deal || !info.commitment) return;
  const list = loadCommitments();
  if (list.some(([id]) => id === info.round_id)) return;
  list.push([info.round_id, info.commitment]);
  storageSet(COMMITMENTS_KEY, JSON.stringify(list.slice(-MAX_COMMITMENTS)));
}

/** seenCommitment is the commitment of a round the browser saw open, or ''. */
export function seenCommitment(id) {
  const hit = loadCommitments().find(([rid]) => rid === id);
  return hit ? hit[1] : '';
}

/** onAsyncRound takes an async_round message: what the server says of a round and of the player's attempt. */
export function onAsyncRound(m) {
  if (!m.round) return;
  S.asyncRounds[m.round.round_id] = m;
  rememberCommitment(m.round);
  update();
}

/**
 * fetchRound asks for an asynchronous round; its reply goes to
 * onAsyncRound. The pages ask by themselves, not at a click: a connection
 * that is down fails quietly (code 'disconnected').
 */
export function fetchRound(id) {
  if (!S.conn || !S.conn.isOpen()) return Promise.reject({ code: 'disconnected' });
  return S.conn.request('get_async_round', { round_id: id });
}

/**
 * startAttempt starts (or resumes) the player's attempt at a round; its
 * round_started comes to onAttemptStarted. A round already played, or
 * closed, is read again so that its page says so.
 */
export function startAttempt(id) {
  return request('start_attempt', { round_id: id }).catch((err) => {
    if (err.code === 'disconnected') return;
    fail(err);
    if (err.code === 'already_played' || err.code === 'round_not_running') fetchRound(id).catch(() => {});
  });
}

/**
 * createChallenge makes a challenge with these settings and window, and
 * starts its creator's attempt at once: the creator plays first, and the
 * link is shared meanwhile.
 */
export function createChallenge(settings, windowS = DAY_WINDOW_S) {
  return request('create_challenge', { settings, window_s: windowS }).then((m) => {
    announce(t('async.challenge_made'));
    return startAttempt(m.round.round_id);
  });
}

/** closeChallenge closes the creator's challenge now. */
export function closeChallenge(id) {
  return request('close_challenge', { round_id: id }).catch(fail);
}

// pageOf is the page of an attempt's round: its challenge, or the daily deals.
function pageOf(kind, asyncId) {
  return kind === 'challenge' ? { kind: 'challenge', id: asyncId } : { kind: 'daily' };
}

/**
 * onAttemptStarted takes the round_started of an attempt (start_attempt's
 * reply, or the server's resend on a resume). A live match the player plays
 * in is not left for it: a push must not pull a player out of a game.
 */
export function onAttemptStarted(m) {
  if (S.match && S.match.state !== 'over' && S.match.players.some((p) => p.player_id === S.me)) return;
  if (S.match) {
    // A finished match gives way; its late pushes are not adopted.
    S.dismissed.add(S.match.id);
    S.match = null;
    S.spectating = '';
  }
  if (!S.attempt || S.attempt.roundId !== m.round_id) {
    resetRound();
    S.attempt = { asyncId: m.match_id, roundId: m.round_id, kind: m.kind };
    S.ghost = null;
    if (!m.resumed) announce(t('async.attempt_started'));
  }
  rememberCommitment({ round_id: m.match_id, commitment: m.commitment, known_deal: m.known_deal, closed: false });
  takeDeal(m);
  S.page = pageOf(m.kind, m.match_id);
  setPath(pagePath(S.page));
  render();
}

/** onGhost takes the ghosts of the attempt being played. */
export function onGhost(m) {
  if (!S.attempt || m.round_id !== S.attempt.roundId) return;
  S.ghost = m;
  updateSide();
}

/**
 * onAttemptOver ends the player's attempt: the page of its round shows the
 * result and the board.
 */
export function onAttemptOver(m) {
  S.attemptOver = m;
  const a = S.attempt;
  if (a && a.roundId === m.round_id) {
    S.attempt = null;
    S.ghost = null;
    resetRound();
    S.page = pageOf(a.kind, a.asyncId);
    setPath(pagePath(S.page));
  }
  const r = m.result || {};
  announce(t('async.attempt_over', { rank: r.rank, of: m.finished }));
  fetchRound(m.async_round_id).catch(() => {});
  render();
}

/**
 * resumeAttempt asks again for the attempt being played, after a
 * reconnection: its round_started (resumed) brings the server's view and
 * last_seq. An attempt that ended meanwhile shows its page.
 */
export function resumeAttempt() {
  const a = S.attempt;
  if (!a || !S.conn) return;
  S.conn.request('start_attempt', { round_id: a.asyncId }).catch((err) => {
    if (err.code === 'disconnected' || S.attempt !== a) return;
    if (err.code === 'already_played' || err.code === 'round_not_running') {
      S.attempt = null;
      S.ghost = null;
      resetRound();
      S.page = pageOf(a.kind, a.asyncId);
      setPath(pagePath(S.page));
      toast(t('async.ended_away'));
      fetchRound(a.asyncId).catch(() => {});
      render();
      return;
    }
    fail(err);
  });
}

/** onAsyncWelcome takes a welcome: on a reconnection, the attempt being played is resumed. */
export function onAsyncWelcome() {
  if (S.attempt) resumeAttempt();
}
