// The daily deals: today's rounds, one a variant, each with its window,
// players, commitment, the player's Play, Resume or result, and its live
// board; then yesterday's rounds, closed, with their final boards, the
// check of their commitments and their replays.
//
// The server names a day's rounds "daily-<day>-<variant>", so yesterday's
// are asked for by id (get_async_round) with the variants of today's.

import { h, replace } from './util.js';
import { t, fmtDate, errorText } from './i18n.js';
import { S } from './state.js';
import { startAttempt, fetchRound, dailyId, dayBefore } from './async.js';
import { goPage } from './pages.js';
import {
  variantLabel, describeRules, leftText, serverNow, playersText, commitmentLine,
  liveBoard, revealPanel, closeReplay, attemptAction,
} from './asyncboard.js';

// TICK_MS is how often the time left is redrawn.
const TICK_MS = 1000;

// RELOAD_MS spaces the reads of the next day's rounds once today's closed.
const RELOAD_MS = 60000;

/** dailyScreen is the page of the daily deals. */
export function dailyScreen() {
  const title = h('h1', { id: 'daily-title', text: t('common.daily_deals') });
  const today = h('div', { class: 'daily-rounds', id: 'daily-rounds' }, h('p', { class: 'panel muted', text: t('daily.reading') }));
  const yesterday = h('section', { class: 'panel yesterday', id: 'yesterday', 'aria-labelledby': 'yesterday-title', hidden: true });
  const el = h('div', { class: 'daily' },
    h('section', { class: 'panel daily-head', 'aria-labelledby': 'daily-title' },
      title,
      h('p', { class: 'lead', text: t('daily.lead') }),
      h('div', { class: 'actions' },
        h('button', { class: 'btn', type: 'button', id: 'daily-records', text: t('common.my_records'), onclick: () => goPage({ kind: 'records' }) }),
        h('button', { class: 'btn subtle', type: 'button', id: 'daily-lobby', text: t('common.back_lobby'), onclick: () => goPage({ kind: 'lobby' }) }))),
    today, yesterday);

  let gone = false;
  let loading = false;
  let loadedAt = 0;
  let day = '';
  let cards = []; // today's rounds: {info, el, update, destroy}
  let boards = []; // yesterday's boards
  const destroyAll = () => {
    for (const c of cards) c.destroy();
    for (const b of boards) b.destroy();
    cards = [];
    boards = [];
  };

  // load reads today's rounds and builds their cards; yesterday's follow.
  const load = () => {
    if (loading) return;
    loading = true;
    loadedAt = Date.now();
    const ask = S.conn && S.conn.isOpen() ? S.conn.request('get_daily', {}) : Promise.reject({ code: 'disconnected' });
    ask.finally(() => { loading = false; }).then((m) => {
      if (gone) return;
      destroyAll();
      day = m.day;
      title.textContent = t('daily.title_day', { day: fmtDate(m.day) });
      cards = (m.rounds || []).map((info) => roundCard(info));
      replace(today, cards.length ? cards.map((c) => c.el) : h('p', { class: 'panel muted', text: t('daily.none_today') }));
      for (const c of cards) fetchRound(c.info.round_id).catch(() => {});
      loadYesterday(m.rounds || []);
    }, (err) => {
      if (gone) return;
      replace(today, h('p', { class: 'panel muted', text: err.code === 'disconnected' ? t('daily.waiting_conn') : t('daily.failed', { why: errorText(err) }) }));
    });
  };

  const loadYesterday = (rounds) => {
    const prev = dayBefore(day);
    if (!prev) return;
    const variants = rounds.map((r) => r.variant);
    replace(yesterday, h('h2', { id: 'yesterday-title', text: t('daily.yesterday', { day: fmtDate(prev) }) }));
    Promise.all(variants.map((v) => S.conn.request('get_async_round', { round_id: dailyId(prev, v) }).then((m) => m.round, () => null)))
      .then((infos) => {
        if (gone) return;
        const shown = infos.filter(Boolean);
        yesterday.hidden = false;
        if (!shown.length) {
          yesterday.append(h('p', { class: 'muted', text: t('daily.none_yesterday') }));
          return;
        }
        for (const info of shown) {
          const b = liveBoard(info, { id: `board-${info.round_id}` });
          boards.push(b);
          yesterday.append(h('section', { class: 'past-round', dataset: { variant: info.variant }, 'aria-label': t('daily.yesterday_label', { variant: variantLabel(info) }) },
            h('h3', { text: variantLabel(info) }),
            h('p', { class: 'muted', text: describeRules(info) + t('common.sep') + playersText(info.players, info.finished) }),
            info.closed ? revealPanel(info, `reveal-${info.variant}`) : h('p', { class: 'muted', text: t('daily.still_open') }),
            b.el));
        }
      });
  };

  // roundCard is one of today's rounds: its facts, the player's action and
  // its board. The player's attempt comes from S.asyncRounds.
  const roundCard = (info) => {
    const v = info.variant;
    const left = h('span', { class: 'left' });
    const players = h('span', { class: 'players-count', text: playersText(info.players) });
    const action = h('div', { class: 'actions round-action' });
    const board = liveBoard(info, {
      id: `board-${v}`,
      showRank: false,
      onPage: (b) => { players.textContent = playersText(b.players, b.finished); },
    });
    const el = h('section', { class: 'panel daily-round', dataset: { variant: v }, 'aria-labelledby': `daily-${v}-title` },
      h('h2', { id: `daily-${v}-title`, text: variantLabel(info) }),
      h('p', { class: 'facts' }, left, ' · ', players),
      h('p', { class: 'muted rules', text: describeRules(info) }),
      commitmentLine(info, `commit-${v}`),
      action,
      board.el);
    let shown = null;
    const update = () => {
      const ms = Date.parse(info.closes_at) - serverNow();
      left.textContent = ms > 0 ? t('daily.closes_in', { left: leftText(ms) }) : t('daily.closed');
      const a = S.asyncRounds[info.round_id];
      const attempt = a ? a.attempt : null;
      const closed = ms <= 0 || (a && a.round.closed);
      const key = JSON.stringify([attempt, closed]);
      if (key === shown) return;
      shown = key;
      const focused = action.contains(document.activeElement);
      replace(action, attemptAction({ ...info, closed }, attempt, { id: `daily-${v}`, onPlay: () => startAttempt(info.round_id) }));
      if (focused && action.firstChild && action.firstChild.focus) action.firstChild.focus();
    };
    update();
    return { info, el, update, destroy: board.destroy };
  };

  // tick redraws the time left; once today's windows have all closed, the
  // next day's rounds are read (at most once a minute).
  const tick = () => {
    for (const c of cards) c.update();
    const over = cards.length && cards.every((c) => Date.parse(c.info.closes_at) <= serverNow());
    if (over && Date.now() - loadedAt > RELOAD_MS) load();
  };
  load();
  const timer = setInterval(tick, TICK_MS);
  return {
    el,
    update: () => {
      // A page opened while the connection was down reads once it is up.
      if (!day && !loading && S.conn && S.conn.isOpen()) load();
      for (const c of cards) c.update();
    },
    destroy: () => {
      gone = true;
      clearInterval(timer);
      closeReplay();
      destroyAll();
    },
  };
}
