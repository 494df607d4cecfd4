// The game screen: the player's board with its HUD (the round's figures and
// clock, Hint, Undo, Redo and Resign), the game's rules in a line, the
// countdown, and the leaderboard beside it. A spectator, or a player before their board is dealt, gets the same
// screen with the leaderboard and no board: spectators never see the boards.
// An attempt at an asynchronous round (S.attempt) is played on the same
// screen, with its ghosts beside it instead of a leaderboard.
//
// The clock is the server's (Connection.serverNow), so every player's
// countdown and time left agree whatever their own clock says.

import { h, replace, fmtClock } from './util.js';
import { t, plural, fmtNumber, ltr } from './i18n.js';
import { Board } from './board.js';
import { timedScore, foundationsHome, pilesOf, specOf } from './engine.js';
import { boardSummary, hasSolver } from './games.js';
import { S, isPlayer } from './state.js';
import { toast, fail, confirmDialog } from './feedback.js';
import { request } from './connection.js';
import { leaveMatch } from './match.js';
import { sendMove } from './moves.js';
import { playersList, scoreNote, leaderboardTable, totalsTable, ratingsOf } from './tables.js';
import { variantLabel, ghostPanel } from './asyncboard.js';
import { shareBox } from './share.js';

// TICK_MS is how often the clock, the countdown and the timed score are
// redrawn: often enough that a second never looks skipped.
const TICK_MS = 250;

// LOW_CLOCK_MS is the time left under which the clock is marked low.
const LOW_CLOCK_MS = 30000;

// A stat is one labelled figure of the HUD: its label and value read as
// "Points 35", set with set(value) and hidden with set(null). A short
// label, when given, replaces the label on a phone.
function stat(id, label, title, cls = '', short = '') {
  const k = h('span', { class: 'k' });
  let shownLabel = '';
  const setLabel = (text) => {
    if (text === shownLabel) return;
    shownLabel = text;
    if (short) replace(k, h('span', { class: 'label-long', text }), h('span', { class: 'label-short', 'aria-hidden': 'true', text: short }));
    else k.textContent = text;
  };
  setLabel(label);
  const v = h('b', { class: 'v' });
  const el = h('span', { class: `stat ${cls}`.trim(), id, title: title || null }, k, ' ', v);
  return {
    el,
    set(value, newLabel) {
      el.hidden = value === null || value === undefined;
      if (newLabel !== undefined) setLabel(newLabel);
      if (!el.hidden) v.textContent = typeof value === 'number' ? fmtNumber(value) : String(value);
    },
  };
}

// soloRound tells whether the round has one player: the server offers
// hints only then, since its solver sees cards the players cannot.
function soloRound() {
  if (S.attempt) return false;
  const lb = S.leaderboard;
  if (lb && S.round && lb.round_id === S.round.id && lb.entries) return lb.entries.length === 1;
  return !!S.match && S.match.players.length === 1;
}

// touchOnly tells whether the page is played by touch (a coarse pointer,
// or a phone's width): its help speaks of taps, not of keys and a mouse.
function touchOnly() {
  return !!(window.matchMedia && window.matchMedia('(pointer: coarse), (max-width: 520px)').matches);
}

// helpPanel is the help beside the board: how to move cards, by keyboard
// and mouse, or by touch on a touch screen.
function helpPanel() {
  const touch = touchOnly();
  const items = touch
    ? ['game.help.touch_drag', 'game.help.touch_double', 'game.help.touch_stock']
    : ['game.help.drag', 'game.help.double', 'game.help.keys_piles', 'game.help.keys_arrows', 'game.help.keys_draw'];
  const piles = pilesOf(S.round && S.round.rules);
  return h('details', { class: 'keys-help', id: 'keys-help' },
    h('summary', { text: t(touch ? 'game.help.touch_title' : 'game.help.title') }),
    h('ul', {}, items.map((k) => h('li', { text: t(k, { last: piles }) }))));
}

/** gameScreen is the game screen of a player or a spectator. */
export function gameScreen() {
  const hud = h('div', { class: 'hud', role: 'group', 'aria-label': t('game.hud') });
  const roundStat = stat('round-label', t('game.round'));
  const dealStat = stat('deal-label', t('game.deal'), t('game.deal_title'));
  const clock = stat('clock', t('game.left'), null, 'clock');
  const cards = stat('cards', t('game.cards'), t('game.cards_title'));
  const points = stat('points', t('game.points'), t('game.points_title'));
  const timed = stat('timed-score', t('game.timed'), t('game.timed_title'), '', t('game.timed_short'));
  const moves = stat('moves', t('common.moves'));
  const passes = stat('passes', t('game.recycles'), t('game.recycles_title'), '', t('game.recycles_short'));
  const undoBtn = h('button', { class: 'btn', type: 'button', id: 'undo', text: t('game.undo'), title: t('game.undo_title'), onclick: () => sendMove('U', {}) });
  // Redo plays again the move Undo took back: the client counts what can
  // be redone (round.redoable), since the view does not say.
  const redoBtn = h('button', { class: 'btn', type: 'button', id: 'redo', text: t('game.redo'), title: t('game.redo_title'), onclick: () => sendMove('Y', {}) });
  const resignBtn = h('button', {
    class: 'btn subtle', type: 'button', id: 'resign', text: t('game.resign'),
    onclick: () => confirmDialog(t('game.resign_ask'), t('game.resign'), () => {
      if (S.round) request('resign', { round_id: S.round.id }).catch(fail);
    }),
  });
  // Hints are for solo practice: the server's solver sees every card, so
  // it never helps in a round with rivals; a hinted game is marked so.
  const hintBtn = h('button', {
    class: 'btn subtle', type: 'button', id: 'hint', text: t('game.hint'), title: t('game.hint_title'),
    onclick: () => {
      if (!S.round) return;
      hintBtn.disabled = true;
      request('hint', { round_id: S.round.id }).then((m) => {
        if (m.move) toast(t('game.hint_move', { move: ltr(m.move) }));
        else if (m.verdict === 'unwinnable') toast(t('game.hint_unwinnable'));
        else toast(t('game.hint_undecided'));
      }).catch(fail).finally(() => { hintBtn.disabled = false; });
    },
  });
  const stats = h('div', { class: 'hud-stats' }, roundStat.el, dealStat.el, clock.el, cards.el, points.el, timed.el, moves.el, passes.el);
  const buttons = h('div', { class: 'hud-actions' }, hintBtn, undoBtn, redoBtn, resignBtn);
  replace(hud, stats, buttons);
  // The game's rules in a line, above the board.
  const rulesLine = h('p', { class: 'rules-line', id: 'rules-summary', hidden: true });
  const banner = h('div', { class: 'banner', id: 'banner', role: 'status', 'aria-live': 'polite', hidden: true });
  // The countdown sits in the flow, above the board: it covers nothing.
  const overlay = h('div', { class: 'countdown', id: 'countdown', 'aria-live': 'assertive', hidden: true });
  const boardHost = h('div', { class: 'board-host' });
  const sideMain = h('div', { class: 'side-main' });
  const help = helpPanel();
  // watching holds for the screen's life: once the player's board is
  // dealt, the screen's kind turns from watch to game and render() builds
  // a new one.
  const att = S.attempt;
  const watching = !att && (!isPlayer(S.match) || !(S.round && S.round.view));
  const side = h('aside', { class: 'side', 'aria-label': t(att ? 'game.side_attempt' : 'game.side_leaderboard') }, sideMain, watching ? null : help);
  const main = h('div', { class: 'game-main' }, hud, overlay, banner, rulesLine, boardHost);
  const el = h('div', { class: 'game' }, main, side);
  let board = null;
  if (!watching) {
    board = new Board(boardHost, {
      interactive: true,
      onMove: (text, info) => sendMove(text, info),
      onHint: (text) => toast(text),
    });
  } else {
    const player = isPlayer(S.match);
    replace(boardHost, h('section', { class: 'panel watching' },
      h('h1', { id: 'watch-title', text: t(S.match.state === 'starting' ? 'game.about_to_start' : 'game.watching') }),
      h('p', { text: t(player ? 'game.board_soon' : 'game.spectators') }),
      h('button', { class: 'btn subtle', type: 'button', id: 'watch-leave', text: t(player ? 'game.leave_match' : 'common.back_lobby'), onclick: () => leaveMatch() })));
  }

  // updateSide redraws the side column alone, for a leaderboard push,
  // which changes nothing else on the screen.
  const sideOfAttempt = att ? attemptSide(att, sideMain) : null;
  const updateSide = () => {
    if (sideOfAttempt) {
      sideOfAttempt();
      return;
    }
    const r = S.round;
    const m = S.match;
    const parts = [];
    if (S.leaderboard && S.leaderboard.entries) {
      const rules = (r && r.rules) || (m && m.settings) || {};
      const mode = m && m.settings.mode;
      const cards = specOf(rules).cards;
      parts.push(leaderboardTable(S.leaderboard.entries, { caption: r ? t('game.leaderboard_round', { n: r.number }) : t('game.leaderboard'), scoring: rules.scoring, mode, cards, ratings: ratingsOf(m) }),
        scoreNote(rules.scoring, mode, 'score-note', cards));
    } else if (m) {
      parts.push(h('h2', { text: t('room.players') }), playersList(m));
    }
    if (m && m.totals && m.totals.length && m.settings.rounds > 1) parts.push(totalsTable(m.totals, { caption: t('tables.match_totals'), scoring: m.settings.scoring, mode: m.settings.mode, ratings: ratingsOf(m) }));
    if (m && m.spectators) parts.push(h('p', { class: 'muted', text: plural('room.watching', m.spectators) }));
    replace(sideMain, parts);
  };

  // controls shows the buttons that apply now: a player's own game being
  // played, past the countdown; Hint in a solo round of a game the solver
  // plays, Undo and Redo if the rules allow them.
  const controls = (counting) => {
    const r = S.round;
    const v = r && r.view;
    const playing = !watching && !counting && !!v && v.status === 'playing';
    undoBtn.hidden = !playing || r.rules.undo === 'off';
    redoBtn.hidden = undoBtn.hidden;
    resignBtn.hidden = !playing;
    hintBtn.hidden = !playing || !soloRound() || !hasSolver(r.rules);
    if (playing) {
      const turned = r.lastEvents && (r.lastEvents.includes('drew') || r.lastEvents.includes('revealed'));
      undoBtn.disabled = v.moves === 0 || (r.rules.undo === 'no_reveal' && !!turned);
      undoBtn.title = t(undoBtn.disabled && v.moves > 0 ? 'game.undo_turned' : 'game.undo_title');
      redoBtn.disabled = !r.redoable;
      redoBtn.title = t(redoBtn.disabled ? 'game.redo_none' : 'game.redo_title');
    }
  };

  // tick redraws what changes with time alone: the countdown, the clock,
  // the timed score, and the controls the countdown hides.
  const tick = () => {
    const r = S.round;
    const now = S.conn ? S.conn.serverNow() : Date.now();
    if (!r) {
      clock.set(null);
      overlay.hidden = true;
      controls(false);
      return;
    }
    // An attempt starts when the player asks: it has no countdown, however
    // our estimate of the server's clock lags.
    const counting = !att && now < r.startsAt;
    if (counting) {
      const secs = Math.ceil((r.startsAt - now) / 1000);
      overlay.textContent = secs > 0 ? plural('game.starts_in', secs, { round: r.number }) : t('game.go');
    }
    overlay.hidden = !counting;
    const v = r.view;
    const finished = v && v.status !== 'playing';
    const left = r.endsAt - Math.max(now, r.startsAt);
    if (finished) clock.set(fmtClock(v.elapsed_ms), t('common.time'));
    else clock.set(fmtClock(left), t('game.left'));
    clock.el.classList.toggle('low', !finished && left < LOW_CLOCK_MS);
    if (v && r.rules.scoring === 'standard') {
      // The leaderboard's score, on the server's clock: the time penalty
      // runs until a win, or until the round's end for any other game.
      const won = v.status === 'won';
      const at = won ? v.elapsed_ms : Math.min(now, r.endsAt) - r.startsAt;
      timed.set(timedScore('standard', v.score, at, won));
    } else {
      timed.set(null);
    }
    controls(counting);
  };

  // update redraws everything from S: a new view, a match push.
  const update = () => {
    const r = S.round;
    const m = S.match;
    if (!m && !att) return;
    roundStat.set(m && m.settings.rounds > 1 ? `${fmtNumber(r ? r.number : m.round || 1)}/${fmtNumber(m.settings.rounds)}` : null);
    dealStat.set(r && r.known && r.seed ? `#${r.seed}` : null);
    if (board && r && r.view) {
      board.setView(r.view, r.rules);
      const v = r.view;
      const scoring = r.rules.scoring;
      rulesLine.textContent = boardSummary(r.rules, v);
      rulesLine.hidden = false;
      cards.set(foundationsHome(v));
      cards.el.title = t('game.cards_of', { n: specOf(r.rules).cards });
      points.set(scoring === 'none' ? null : v.score, t(scoring === 'vegas' ? 'game.vegas' : 'game.points'));
      moves.set(v.moves);
      // A game with one pass (Whitehead's only) never recycles: no figure.
      passes.set(v.passes_left === null || r.rules.passes === 1 ? null : v.passes_left);
      const msg = v.status === 'playing' ? '' : t(`game.end.${v.status}${att ? '' : '_wait'}`);
      banner.textContent = msg;
      banner.hidden = !msg;
    } else {
      banner.hidden = true;
      rulesLine.hidden = true;
      for (const s of [cards, points, timed, moves, passes]) s.set(null);
    }
    updateSide();
    tick();
  };
  const timer = setInterval(tick, TICK_MS);
  return {
    el, update, updateSide, board,
    destroy: () => {
      clearInterval(timer);
      if (board) board.destroy();
    },
  };
}

// attemptSide is the side column of an attempt: the ghosts (hidden while
// there are none), what is being played, and for a challenge's creator the
// link to share while they play. Only the ghosts change every second; the
// rest is drawn again only when the round's message does.
function attemptSide(att, host) {
  const ghosts = h('div', { class: 'ghost-host' });
  const about = h('div');
  let shown;
  replace(host, ghosts, about);
  return () => {
    const a = S.asyncRounds[att.asyncId];
    const scoring = S.round && S.round.rules ? S.round.rules.scoring : 'standard';
    replace(ghosts, ghostPanel(S.ghost, a && a.round.kind === 'challenge' ? a.round.creator_id : '', scoring));
    if (a === shown) return;
    shown = a;
    const info = a && a.round;
    const what = att.kind === 'daily'
      ? (info ? t('game.daily_variant', { variant: variantLabel(info) }) : t('game.daily'))
      : info && info.creator_id !== S.me ? t('game.their_challenge', { name: info.creator_name }) : t('challenge.yours');
    replace(about, h('section', { class: 'attempt-info', 'aria-labelledby': 'attempt-title' },
      h('h2', { id: 'attempt-title', text: what }),
      h('p', { class: 'muted', text: t('game.one_attempt') }),
      att.kind === 'challenge' && info && info.creator_id === S.me
        ? shareBox({ id: 'challenge-link', copyId: 'challenge-copy', label: t('challenge.link'), url: `${location.origin}/c/${att.asyncId}` }) : null));
  };
}
