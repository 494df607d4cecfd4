// Challenges: the form that makes one (in the lobby), and the page of a
// challenge's link, /c/<id>: who made it, its rules, time limit and window,
// the players so far, the player's Play, Resume or result, its live board,
// the creator's link to share and "Close now", and once it has closed the
// deal revealed, the check of its commitment and the replays.

import { h, replace } from './util.js';
import { t, fmtTime, errorText } from './i18n.js';
import { storageGet, LAST_SETTINGS_KEY } from './storage.js';
import { S } from './state.js';
import { fail, confirmDialog } from './feedback.js';
import { startAttempt, fetchRound, createChallenge, closeChallenge, DAY_WINDOW_S } from './async.js';
import { goPage } from './pages.js';
import { settingsForm } from './settings.js';
import { shareBox } from './share.js';
import { gameName, gameSummary, isKlondike } from './games.js';
import {
  describeRules, leftText, serverNow, playersText, commitmentLine,
  liveBoard, revealPanel, closeReplay, attemptAction,
} from './asyncboard.js';

// The settings a challenge takes: the game and its rules, the ranking, the time limit
// and, for an open deal, its number.
const CHALLENGE_FIELDS = ['game', 'draw', 'passes', 'scoring', 'undo', 'foundation_to_tableau', 'mode', 'time_limit_s', 'seed'];

// The windows a challenge can stay open for: [seconds, catalogue key].
const WINDOWS = [[3600, 'challenge.window_hour'], [DAY_WINDOW_S, 'challenge.window_day'], [7 * DAY_WINDOW_S, 'challenge.window_week']];

// TICK_MS is how often the time left is redrawn.
const TICK_MS = 1000;

/**
 * challengeForm is the form that makes a challenge: the rules (the create
 * form's fields that apply, filled from the last settings used) and how
 * long the link stays open. Submitting it starts the creator's attempt.
 */
export function challengeForm() {
  let last = {};
  try { last = JSON.parse(storageGet(LAST_SETTINGS_KEY, '{}')) || {}; } catch { last = {}; }
  const windowSel = h('select', { id: 'ch-window', name: 'window' },
    WINDOWS.map(([s, key]) => h('option', { value: String(s), text: t(key), selected: s === DAY_WINDOW_S })));
  const windowField = h('div', { class: 'field' }, h('label', { for: 'ch-window', text: t('challenge.open_for') }), windowSel);
  return settingsForm(last, t('challenge.submit'), (s) => {
    createChallenge(s, +windowSel.value).catch(fail);
  }, { only: CHALLENGE_FIELDS, prefix: 'ch-', submitId: 'challenge-submit', extra: windowField });
}

// introOf is the line under a challenge's title: what the link offers,
// and once the player has played it, no longer a dare but what stands
// (finding: "dares you … You get one try" after the try was made).
function introOf(info, attempt, mine) {
  const name = info.creator_name || t('challenge.a_friend');
  if (mine) return t('challenge.intro_mine');
  if (attempt.state === 'finished') return t('challenge.intro_done', { name });
  if (attempt.state === 'playing') return t('challenge.intro_playing', { name });
  if (info.closed) return t('challenge.intro_closed', { name });
  return t('challenge.intro_dare', { name });
}

/** challengeScreen is the page of the challenge S.page.id. */
export function challengeScreen() {
  const id = S.page.id;
  const body = h('div', { class: 'challenge-body' }, h('p', { class: 'muted', text: t('challenge.reading') }));
  const el = h('section', { class: 'panel challenge', 'aria-labelledby': 'challenge-title' },
    h('h1', { id: 'challenge-title', text: t('challenge.title') }),
    body,
    h('div', { class: 'actions page-links' },
      h('button', { class: 'btn', type: 'button', id: 'challenge-records', text: t('common.my_records'), onclick: () => goPage({ kind: 'records' }) }),
      h('button', { class: 'btn subtle', type: 'button', id: 'challenge-daily', text: t('common.daily_deals'), onclick: () => goPage({ kind: 'daily' }) }),
      h('button', { class: 'btn subtle', type: 'button', id: 'challenge-lobby', text: t('common.back_lobby'), onclick: () => goPage({ kind: 'lobby' }) })));
  const title = el.querySelector('h1');

  let gone = false;
  let asked = false;
  let shown = null; // the async_round message the page was built from
  let board = null;
  let tickers = [];
  const ask = () => {
    if (asked || !S.conn || !S.conn.isOpen()) return;
    asked = true;
    fetchRound(id).catch((err) => {
      if (gone) return;
      if (err.code === 'disconnected') { asked = false; return; }
      title.textContent = t('challenge.missing_title');
      replace(body, h('p', { id: 'challenge-missing', text: err.code === 'not_found' ? t('challenge.missing') : t('challenge.failed', { why: errorText(err) }) }));
    });
  };

  // build lays the page out from the round's message; the board goes on
  // being read by itself.
  const build = (a) => {
    const info = a.round;
    const attempt = a.attempt || { state: 'none' };
    const mine = info.creator_id === S.me;
    const left = h('dd', { id: 'challenge-left' });
    const players = h('dd', { id: 'challenge-players', text: playersText(info.players, info.finished) });
    if (board) board.destroy();
    board = liveBoard(info, { id: 'challenge-board', showRank: false, onPage: (b) => { players.textContent = playersText(b.players, b.finished); } });
    const closes = new Date(info.closes_at);
    const when = fmtTime(closes);
    title.textContent = mine ? t('challenge.yours') : t('challenge.theirs', { name: info.creator_name || t('challenge.someone') });
    let reread = false;
    const tick = () => {
      const ms = closes - serverNow();
      // The window passed while the page was shown: the server now reveals the deal.
      if (!info.closed && ms <= 0 && !reread) {
        reread = true;
        fetchRound(id).catch(() => {});
      }
      left.textContent = info.closed || ms <= 0
        ? (info.closed_early ? t('challenge.closed_early', { when }) : when)
        : t('challenge.until', { when, left: leftText(ms) });
    };
    tick();
    tickers = [tick];
    const closeBtn = mine && !info.closed ? h('button', {
      class: 'btn subtle', type: 'button', id: 'challenge-close', text: t('challenge.close_now'),
      onclick: () => confirmDialog(t('challenge.close_ask'), t('challenge.close_now'), () => closeChallenge(id)),
    }) : null;
    replace(body,
      h('p', { class: 'lead', id: 'challenge-intro', text: introOf(info, attempt, mine) }),
      h('dl', { class: 'facts-list' },
        h('dt', { text: t('challenge.rules') }), h('dd', { id: 'challenge-rules', text: describeRules(info) }),
        h('dt', { text: t(info.closed ? 'challenge.closed' : 'challenge.open_until') }), left,
        h('dt', { text: t('challenge.players_so_far') }), players),
      isKlondike(info.rules) ? null : h('p', { class: 'hint game-summary', id: 'challenge-game', text: t('games.line', { game: gameName(info.rules), rules: gameSummary(info.rules) }) }),
      commitmentLine(info, 'challenge-commit'),
      h('div', { class: 'actions round-action' },
        attemptAction(info, attempt, { id: 'challenge', onPlay: () => startAttempt(id) })),
      mine && !info.closed ? h('div', { class: 'share' },
        shareBox({ id: 'challenge-link', copyId: 'challenge-copy', label: t('challenge.link'), url: `${location.origin}/c/${id}` }),
        h('div', { class: 'actions' }, closeBtn)) : null,
      info.closed ? revealPanel(info, 'challenge-reveal') : null,
      board.el);
  };

  const update = () => {
    ask();
    const a = S.asyncRounds[id];
    if (a && a !== shown && !gone) {
      // A new message (the attempt finished, the creator closed it) lays
      // the page out again; the replay open goes with it.
      const focusId = document.activeElement && el.contains(document.activeElement) ? document.activeElement.id : '';
      shown = a;
      closeReplay();
      build(a);
      const f = focusId && document.getElementById(focusId);
      if (f) f.focus();
    }
  };
  const timer = setInterval(() => tickers.forEach((tick) => tick()), TICK_MS);
  return {
    el, update,
    destroy: () => {
      gone = true;
      clearInterval(timer);
      closeReplay();
      if (board) board.destroy();
    },
  };
}
