// The player's records (get_records): for each variant they played, the
// games played and won, the win rate, the best score, the fastest win and
// the daily streak with its best. A profile shows anyone's the same way.

import { h, replace, fmtClock } from './util.js';
import { S } from './state.js';
import { goPage } from './pages.js';
import { GAMES } from './engine.js';
import { gameName } from './games.js';

/**
 * variantName names a records variant: "draw3" is "Draw 3", "draw1-vegas"
 * "Draw 1 · Vegas", "whitehead-draw1" "Whitehead · Draw 1".
 */
export function variantName(v) {
  const parts = String(v).split('-');
  const game = GAMES.includes(parts[0]) ? parts.shift() : '';
  const [draw, scoring] = parts;
  const m = /^draw(\d)$/.exec(draw);
  let name = m ? `Draw ${m[1]}` : draw;
  if (game && game !== 'klondike') name = `${gameName(game)} · ${name}`;
  if (!scoring) return name;
  return `${name} · ${{ vegas: 'Vegas', none: 'no scoring' }[scoring] || scoring}`;
}

// figure is one labelled number of a record.
function figure(cls, label, value, title) {
  return h('div', { class: `figure ${cls}`, title: title || null },
    h('dt', { text: label }), h('dd', { class: 'v', text: value }));
}

/** recordCard shows one variant's record, under a heading of the level given. */
export function recordCard(r, heading = 'h2') {
  const pct = r.played ? `${Math.round((100 * r.won) / r.played)}%` : '–';
  return h('section', { class: 'record', dataset: { variant: r.variant }, 'aria-labelledby': `rec-${r.variant}` },
    h(heading, { id: `rec-${r.variant}`, text: variantName(r.variant) }),
    h('dl', { class: 'figures' },
      figure('fig-played', 'Played', String(r.played)),
      figure('fig-won', 'Won', String(r.won)),
      figure('fig-pct', 'Win %', pct),
      figure('fig-best', 'Best score', r.best_score === null || r.best_score === undefined ? '–' : String(r.best_score), 'the best timed score'),
      figure('fig-fastest', 'Fastest win', r.fastest_win_ms === null || r.fastest_win_ms === undefined ? '–' : fmtClock(r.fastest_win_ms)),
      figure('fig-streak', 'Daily streak', `${r.daily_streak} (best ${r.best_daily_streak})`, 'days in a row with a daily deal played')));
}

/** recordsScreen is the page of the player's records. */
export function recordsScreen() {
  const body = h('div', { class: 'records-body', id: 'records' }, h('p', { class: 'muted', text: 'Reading your records…' }));
  const back = S.page.back || { kind: 'lobby' };
  const el = h('section', { class: 'panel records-page', 'aria-labelledby': 'records-title' },
    h('h1', { id: 'records-title', text: `${S.name}\u2019s records` }),
    h('p', { class: 'lead', text: 'Your finished games, by variant. The daily streak counts the days in a row on which you played a daily deal.' }),
    body,
    h('div', { class: 'actions' },
      back.kind !== 'daily' ? h('button', { class: 'btn', type: 'button', id: 'records-daily', text: 'Daily deals', onclick: () => goPage({ kind: 'daily' }) }) : null,
      h('button', { class: 'btn subtle', type: 'button', id: 'records-back', text: { lobby: 'Back to the lobby', daily: 'Back to the daily deals', challenge: 'Back to the challenge' }[back.kind] || 'Back', onclick: () => goPage(back) })));
  let gone = false;
  let asked = false;
  const ask = () => {
    if (asked || !S.conn || !S.conn.isOpen()) return;
    asked = true;
    S.conn.request('get_records', {}).then((m) => {
      if (gone) return;
      const recs = m.records || [];
      replace(body, recs.length ? h('div', { class: 'record-list' }, recs.map((r) => recordCard(r)))
        : h('p', { class: 'empty', text: 'No games yet: finish a game and it counts here.' }));
    }, (err) => {
      if (gone) return;
      if (err.code === 'disconnected') { asked = false; return; }
      replace(body, h('p', { class: 'muted', text: `Your records could not be read: ${err.message || err.code}` }));
    });
  };
  ask();
  return { el, update: ask, destroy: () => { gone = true; } };
}
