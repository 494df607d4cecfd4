// The player's moves: sending them in order with their seq, and taking the
// server's answers. The board never shows a move before the server accepts
// it (move_ok carries the new view), so the server stays the only judge and
// a refused move needs no undoing here.
//
// One move is in flight at a time: a move's seq is the last accepted seq + 1,
// which is only known once the move before it is answered. Moves the player
// makes meanwhile wait in a short queue.

import { parseMove, pilesOf } from './engine.js';
import { cardWords } from './games.js';
import { t, plural, moveReason, errorText, ltr } from './i18n.js';
import { S } from './state.js';
import { toast, announce } from './feedback.js';
import { screen, update } from './screen.js';

// MAX_QUEUED is how many moves wait behind the one in flight; a move made
// beyond it is not sent.
const MAX_QUEUED = 3;

// A move refused as unavailable is sent again after RETRY_FIRST_MS, the wait
// doubling up to RETRY_MAX_MS, until RETRY_FOR_MS after its first refusal:
// long enough to outlast a Redis failover, so the player need not play it
// again. Past NOTICE_AFTER_MS the player is told that it will be sent again.
const RETRY_FIRST_MS = 300;
const RETRY_MAX_MS = 2000;
const RETRY_FOR_MS = 20000;
const NOTICE_AFTER_MS = 1500;

/**
 * sendMove plays a move of the notation; info.origin names the dragged
 * cards, so that a refusal can snap them back.
 */
export function sendMove(text, info = {}) {
  const r = S.round;
  if (!r || !r.view || r.view.status !== 'playing') return;
  if ((text === 'U' || text === 'Y') && r.rules.undo === 'off') {
    toast(t(text === 'U' ? 'moves.undo_off' : 'moves.redo_off'));
    return;
  }
  if (!S.conn || !S.conn.isOpen()) {
    toast(t('moves.not_sent'), 'error');
    if (screen.board) screen.board.moveAnswered(false);
    return;
  }
  if (r.inflight) {
    if (r.queue.length < MAX_QUEUED) r.queue.push({ text, info });
    return;
  }
  dispatch({ text, info, tries: 0 });
}

// dispatch sends mv with the next seq; tries counts the times it was sent
// again after a refusal that leaves it worth retrying. A retry still
// waiting (r.retry) is dropped: the move sent now supersedes it.
function dispatch(mv) {
  const r = S.round;
  r.retry = null;
  mv.seq = r.lastSeq + 1;
  mv.id = S.conn.send('move', { round_id: r.id, seq: mv.seq, move: mv.text });
  if (!mv.id) {
    if (screen.board) screen.board.moveAnswered(false);
    return;
  }
  mv.sentAt = performance.now();
  r.inflight = mv;
}

// pump sends the next queued move once the one in flight is answered.
function pump() {
  const r = S.round;
  if (!r || r.inflight || !r.queue.length || !r.view || r.view.status !== 'playing') return;
  dispatch({ ...r.queue.shift(), tries: 0 });
}

/**
 * onMoveOK takes an accepted move and its view. A view older than the one
 * held (an answer to a move already superseded) does not replace it.
 */
export function onMoveOK(m) {
  const r = S.round;
  if (!r || m.round_id !== r.id) return;
  const before = r.view;
  const mv = r.inflight && r.inflight.seq === m.seq ? r.inflight : null;
  if (mv) r.inflight = null;
  if (m.seq >= r.lastSeq) {
    r.lastSeq = m.seq;
    r.view = m.view;
    r.lastEvents = m.events || [];
    // What Redo can play again: one more after an accepted U, one less
    // after a Y, nothing after any other move (or one we did not send).
    const text = mv ? mv.text : '';
    r.redoable = text === 'U' ? (r.redoable || 0) + 1 : text === 'Y' ? Math.max(0, (r.redoable || 0) - 1) : 0;
  }
  if (screen.board) screen.board.moveAnswered(true);
  if (mv) announce(describeMove(mv.text, before, m.view, m.events || [], pilesOf(r.rules)));
  update();
  pump();
}

/**
 * onMoveRejected takes a refused move. The queue behind it goes too: those
 * moves were made on a view that the refusal leaves unchanged.
 */
export function onMoveRejected(m) {
  const r = S.round;
  if (!r || m.round_id !== r.id) return;
  // Moves go one at a time, so a refusal answers the move in flight.
  const mv = r.inflight;
  r.inflight = null;
  r.queue = [];
  if (screen.board) {
    screen.board.moveAnswered(false);
    if (mv && mv.info) screen.board.shake(mv.info.origin);
  }
  switch (m.code) {
    case 'out_of_order': {
      // The server says which seq it wants. If that is not ours + 1, our
      // count is not the server's, nor, most likely, our view: a fresh
      // connection resumes the session, and its round_started brings the
      // server's view and last_seq. Otherwise the move only crossed
      // another, and is sent again with the right seq.
      const expected = m.expected || r.lastSeq + 1;
      const stale = expected - 1 !== r.lastSeq;
      r.lastSeq = expected - 1;
      if (stale) {
        toast(t('moves.resync'));
        S.conn.reconnectNow();
      } else if (mv && (mv.tries || 0) < 2) {
        dispatch({ ...mv, tries: (mv.tries || 0) + 1 });
      }
      break;
    }
    case 'unavailable': {
      // The store did not record the move and nothing changed: the same
      // move is sent again, with backoff, if the round is the same and no
      // other move has been sent since.
      const now = performance.now();
      const since = (mv && mv.since) || now;
      if (mv && now - since < RETRY_FOR_MS) {
        const tries = mv.tries || 0;
        const told = mv.told || now - since >= NOTICE_AFTER_MS;
        if (told && !mv.told) toast(t('moves.recovering'));
        const again = { ...mv, tries: tries + 1, since, told };
        r.retry = again;
        setTimeout(() => { if (S.round === r && !r.inflight && r.retry === again) dispatch(again); }, Math.min(RETRY_FIRST_MS * 2 ** tries, RETRY_MAX_MS));
      } else {
        toast(t('moves.busy', { reason: moveReason(m) }), 'error');
      }
      break;
    }
    default:
      toast(mv ? t('moves.refused', { move: ltr(mv.text), reason: moveReason(m) }) : t('moves.refused_any', { reason: moveReason(m) }), 'error');
      announce(t('moves.refused_sr', { reason: moveReason(m) }));
  }
  update();
}

/**
 * onError takes an error message that no request's promise took (net.js
 * hands those to the promise): one about a move, or a push. A move is
 * answered with move_rejected, not error, except when it was never read:
 * over the connection's message budget (rate_limited) the server drops it
 * unhandled, so the same move, with the same seq, is sent again a little
 * later. Meanwhile the move in flight holds the id 'waiting', which no
 * reply carries, and the moves made meanwhile queue behind it. Any other
 * error is shown.
 */
export function onError(m) {
  const r = S.round;
  if (r && r.inflight && m.re && m.re === r.inflight.id) {
    const mv = r.inflight;
    if (m.code === 'rate_limited' && mv.tries < 5) {
      r.inflight = { ...mv, tries: mv.tries + 1, id: 'waiting' };
      if (mv.tries === 0) toast(t('moves.pacing'));
      setTimeout(() => {
        if (S.round === r && r.inflight && r.inflight.id === 'waiting') {
          r.inflight = null;
          dispatch({ ...mv, tries: mv.tries + 1 });
        }
      }, 500 * 2 ** mv.tries);
      return;
    }
    r.inflight = null;
    r.queue = [];
    if (screen.board) screen.board.moveAnswered(false);
  }
  if (m.code === 'rate_limited') {
    toast(t('moves.too_many'), 'error');
    return;
  }
  toast(errorText(m), 'error');
}

// describeMove says in words what a move did, for screen readers: the board
// changes silently.
function describeMove(text, before, after, events, piles) {
  const m = parseMove(text, piles);
  if (!m || !before) return t('moves.sr.played', { move: ltr(text) });
  const tail = events.includes('won') ? t('moves.sr.won') : events.includes('stuck') ? t('moves.sr.stuck') : events.includes('revealed') ? t('moves.sr.revealed') : '';
  const wtop = before.waste.length ? before.waste[before.waste.length - 1] : null;
  const said = (key, params) => t(key, params) + tail;
  switch (m.kind) {
    case 'D': return said('moves.sr.drew', { cards: after.waste.slice(-Math.min(after.waste.length, 3)).map(cardWords).join(t('moves.sr.and')), top: cardWords(after.waste[after.waste.length - 1]) });
    case 'R': return plural('moves.sr.recycled', after.stock) + tail;
    case 'U': return t('moves.sr.undid');
    case 'Y': return said('moves.sr.redid');
    case 'WF': return said('moves.sr.to_foundation', { card: cardWords(wtop) });
    case 'WT': return said('moves.sr.to_pile', { card: cardWords(wtop), to: m.to });
    case 'TF': {
      const up = before.tableau[m.from - 1].up;
      return said('moves.sr.pile_to_foundation', { card: cardWords(up[up.length - 1]), from: m.from });
    }
    case 'TT': return said('moves.sr.pile_to_pile', { from: m.from, to: m.to });
    case 'FT': {
      // In Double Klondike either foundation of the suit may have given it.
      const up = after.tableau[m.to - 1].up;
      return said('moves.sr.back_to_pile', { card: cardWords(up[up.length - 1]), to: m.to });
    }
  }
  return t('moves.sr.played', { move: ltr(text) });
}
