// The round's life as the server tells it: the countdown (round_starting),
// the deal (round_started, also sent again on a resume), the leaderboard
// pushes, the results (round_over) and the match's end (match_over). Only
// messages of the match shown are taken.

import { S } from './state.js';
import { announce } from './feedback.js';
import { t } from './i18n.js';
import { screen, render, updateSide } from './screen.js';

/**
 * newRound is the client's record of a round: its rules and clock, the
 * commitment to its deal, the player's view, and the moves in flight.
 * lastSeq is the seq of the player's last accepted move; inflight the move
 * sent and not yet answered, queue the moves made meanwhile (moves.js);
 * redoable how many moves taken back by U a Y could play again.
 */
export function newRound(m) {
  return {
    id: m.round_id, number: m.round, startsAt: Date.parse(m.starts_at), endsAt: Date.parse(m.ends_at),
    rules: m.rules, commitment: m.commitment || '', known: !!m.known_deal, seed: m.seed || '',
    view: null, lastSeq: 0, inflight: null, queue: [], lastEvents: null, redoable: 0,
  };
}

/**
 * onRoundStarting takes the countdown. Its commitment is kept: the results
 * check the revealed deal against the one published before the round.
 */
export function onRoundStarting(m) {
  if (!S.match || m.match_id !== S.match.id) return;
  if (!S.round || S.round.id !== m.round_id) S.round = newRound(m);
  S.round.commitment = m.commitment || S.round.commitment;
  S.roundOver = null;
  S.leaderboard = null;
  render();
}

/**
 * onRoundStarted takes the deal. On a resume it is the server's truth
 * after a reconnection or a resync: its view and last_seq replace ours, and
 * the moves in flight are dropped (the player sees where their game stands
 * and goes on from there).
 */
export function onRoundStarted(m) {
  if (S.match && m.match_id !== S.match.id) return;
  takeDeal(m);
  if (!m.resumed) announce(t('round.started', { n: m.round }));
  S.roundOver = null;
  render();
}

/**
 * takeDeal makes S.round the round of a round_started message (a match's
 * round or an attempt's), with its view and last_seq: on a resume they are
 * the server's truth, and replace ours.
 */
export function takeDeal(m) {
  if (!S.round || S.round.id !== m.round_id) S.round = newRound(m);
  const r = S.round;
  r.rules = m.rules;
  r.startsAt = Date.parse(m.starts_at);
  r.endsAt = Date.parse(m.ends_at);
  // The first commitment seen stays: it is the one published in advance.
  if (m.commitment && !r.commitment) r.commitment = m.commitment;
  r.known = !!m.known_deal;
  r.seed = m.seed || r.seed;
  r.view = m.view;
  r.lastSeq = m.last_seq || 0;
  r.inflight = null;
  r.queue = [];
  if (m.resumed) {
    // The events of the last move are unknown: Undo's "no reveal" rule
    // cannot tell whether it turned a card, and the server decides.
    r.lastEvents = null;
    // Nor is what a Y could play again: Redo waits for the next Undo.
    r.redoable = 0;
    announce(t('round.back'));
  }
  if (screen.board) screen.board.moveAnswered(false);
}

/** onLeaderboard takes a leaderboard push; only the side column changes. */
export function onLeaderboard(m) {
  if (!S.match || m.match_id !== S.match.id) return;
  S.leaderboard = m;
  updateSide();
}

/**
 * onRoundOver takes the round's results; they are also its last
 * leaderboard. Moves still in flight can no longer be played.
 */
export function onRoundOver(m) {
  if (!S.match || m.match_id !== S.match.id) return;
  S.roundOver = m;
  S.leaderboard = { round_id: m.round_id, entries: m.results };
  if (S.round && S.round.id === m.round_id) {
    S.round.inflight = null;
    S.round.queue = [];
  }
  announce(t('round.over', { n: m.round }));
  render();
}

/** onMatchOver takes the match's end and its final standings. */
export function onMatchOver(m) {
  if (!S.match || m.match_id !== S.match.id) return;
  S.matchOver = m;
  render();
}
