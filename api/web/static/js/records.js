// The player's records (get_records): for each variant they played, the
// games played and won, the win rate, the best score, the fastest win and
// the daily streak with its best. A profile shows anyone's the same way.

import { h, replace, fmtClock } from './util.js';
import { t, fmtNumber, intlLocale, errorText } from './i18n.js';
import { S } from './state.js';
import { goPage } from './pages.js';
import { GAMES } from './engine.js';
import { gameName } from './games.js';

/**
 * variantName names a records variant: "draw3" is "Draw 3", "draw1-vegas"
 * "Draw 1 · Vegas", "whitehead-draw1" "Whitehead · Draw 1".
 */
export function variantName(v) {
  const bits = String(v).split('-');
  const game = GAMES.includes(bits[0]) ? bits.shift() : '';
  const [draw, scoring] = bits;
  const m = /^draw(\d)$/.exec(draw);
  const parts = [m ? t('common.draw_n', { n: +m[1] }) : draw];
  if (game && game !== 'klondike') parts.unshift(gameName(game));
  if (scoring) parts.push({ vegas: t('settings.scoring_vegas'), none: t('async.no_scoring') }[scoring] || scoring);
  return parts.join(t('common.sep'));
}

// figure is one labelled number of a record.
function figure(cls, label, value, title) {
  return h('div', { class: `figure ${cls}`, title: title || null },
    h('dt', { text: label }), h('dd', { class: 'v', text: value }));
}

/** recordCard shows one variant's record, under a heading of the level given. */
export function recordCard(r, heading = 'h2') {
  const none = t('common.none');
  const pct = r.played ? new Intl.NumberFormat(intlLocale(), { style: 'percent' }).format(Math.round((100 * r.won) / r.played) / 100) : none;
  return h('section', { class: 'record', dataset: { variant: r.variant }, 'aria-labelledby': `rec-${r.variant}` },
    h(heading, { id: `rec-${r.variant}`, text: variantName(r.variant) }),
    h('dl', { class: 'figures' },
      figure('fig-played', t('records.played'), fmtNumber(r.played)),
      figure('fig-won', t('records.won'), fmtNumber(r.won)),
      figure('fig-pct', t('records.pct'), pct),
      figure('fig-best', t('records.best'), r.best_score === null || r.best_score === undefined ? none : fmtNumber(r.best_score), t('records.best_title')),
      figure('fig-fastest', t('records.fastest'), r.fastest_win_ms === null || r.fastest_win_ms === undefined ? none : fmtClock(r.fastest_win_ms)),
      figure('fig-streak', t('records.streak'), t('records.streak_value', { n: r.daily_streak, best: r.best_daily_streak }), t('records.streak_title'))));
}

/** recordsScreen is the page of the player's records. */
export function recordsScreen() {
  const body = h('div', { class: 'records-body', id: 'records' }, h('p', { class: 'muted', text: t('records.reading') }));
  const back = S.page.back || { kind: 'lobby' };
  const el = h('section', { class: 'panel records-page', 'aria-labelledby': 'records-title' },
    h('h1', { id: 'records-title', text: t('records.title', { name: S.name }) }),
    h('p', { class: 'lead', text: t('records.lead') }),
    body,
    h('div', { class: 'actions' },
      back.kind !== 'daily' ? h('button', { class: 'btn', type: 'button', id: 'records-daily', text: t('common.daily_deals'), onclick: () => goPage({ kind: 'daily' }) }) : null,
      h('button', { class: 'btn subtle', type: 'button', id: 'records-back', text: t({ lobby: 'common.back_lobby', daily: 'common.back_daily', challenge: 'common.back_challenge' }[back.kind] || 'common.back'), onclick: () => goPage(back) })));
  let gone = false;
  let asked = false;
  const ask = () => {
    if (asked || !S.conn || !S.conn.isOpen()) return;
    asked = true;
    S.conn.request('get_records', {}).then((m) => {
      if (gone) return;
      const recs = m.records || [];
      replace(body, recs.length ? h('div', { class: 'record-list' }, recs.map((r) => recordCard(r)))
        : h('p', { class: 'empty', text: t('records.none') }));
    }, (err) => {
      if (gone) return;
      if (err.code === 'disconnected') { asked = false; return; }
      replace(body, h('p', { class: 'muted', text: t('records.failed', { why: errorText(err) }) }));
    });
  };
  ask();
  return { el, update: ask, destroy: () => { gone = true; } };
}
