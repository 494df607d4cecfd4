// The client's links: the server serves index.html for /, /m/<code>,
// /deal/<seed>, /daily, /c/<id>, /p/<player id>, /privacy and
// /ladder/<game>/<draw> (api/web/web.go), and this module reads which one
// opened the page. The path is kept in step with what the tab shows
// (replaceState, never pushState), so that a reload or a copied address
// comes back to it.

import { GAMES } from './engine.js';
import { gameName } from './games.js';
import { t } from './i18n.js';

/**
 * parseRoute reads a location: {kind: 'match', code} for an invite link,
 * {kind: 'deal', seed, draw, passes?, scoring?, game?} for a shared deal
 * (game only for a game other than Klondike),
 * {kind: 'daily'} for the daily deals, {kind: 'challenge', id} for a
 * challenge's link, {kind: 'profile', id} for a player's profile,
 * {kind: 'privacy'} for the privacy page, {kind: 'ladder', game, draw}
 * for a ladder (the game as the link spells it: the page says when it
 * knows no such game), or {kind: 'lobby'}. The seed stays a string: deal
 * numbers are 64-bit.
 */
export function parseRoute(loc) {
  const p = loc.pathname;
  let m = /^\/m\/([A-Za-z0-9]{1,16})\/?$/.exec(p);
  if (m) return { kind: 'match', code: m[1].toUpperCase() };
  if (/^\/daily\/?$/.test(p)) return { kind: 'daily' };
  m = /^\/c\/([A-Za-z0-9_-]{1,64})\/?$/.exec(p);
  if (m) return { kind: 'challenge', id: m[1] };
  m = /^\/p\/([A-Za-z0-9]{1,32})\/?$/.exec(p);
  if (m) return { kind: 'profile', id: m[1].toLowerCase() };
  if (/^\/privacy\/?$/.test(p)) return { kind: 'privacy' };
  if (/^\/ladder\/?$/.test(p)) return { kind: 'ladder', game: 'klondike', draw: 3 };
  m = /^\/ladder\/([a-z_]{1,32})\/(\d{1,2})\/?$/.exec(p);
  if (m) return { kind: 'ladder', game: m[1], draw: +m[2] };
  m = /^\/deal\/(\d{1,20})\/?$/.exec(p);
  if (m) {
    const q = new URLSearchParams(loc.search);
    const offer = { seed: m[1], draw: q.get('draw') === '1' ? 1 : 3 };
    if (['0', '1', '3'].includes(q.get('passes'))) offer.passes = +q.get('passes');
    if (['standard', 'vegas', 'none'].includes(q.get('scoring'))) offer.scoring = q.get('scoring');
    if (GAMES.includes(q.get('game')) && q.get('game') !== 'klondike') offer.game = q.get('game');
    if (offer.game === 'whitehead') Object.assign(offer, { draw: 1, passes: 1 }); // its only draw and passes
    return { kind: 'deal', ...offer };
  }
  return { kind: 'lobby' };
}

/** describeRoute says in words what a link offers, or '' for the lobby. */
export function describeRoute(r) {
  if (r.kind === 'deal') {
    return r.game ? t('route.deal_game', { seed: r.seed, game: gameName(r.game), draw: r.draw }) : t('route.deal', { seed: r.seed, draw: r.draw });
  }
  if (r.kind === 'match') return t('route.match', { code: r.code });
  if (r.kind === 'daily') return t('route.daily');
  if (r.kind === 'challenge') return t('route.challenge');
  return '';
}

/** routePath is the path of a route: parseRoute's inverse. */
export function routePath(r) {
  if (r.kind === 'match') return `/m/${r.code}`;
  if (r.kind === 'daily') return '/daily';
  if (r.kind === 'challenge') return `/c/${r.id}`;
  if (r.kind === 'profile') return `/p/${r.id}`;
  if (r.kind === 'privacy') return '/privacy';
  if (r.kind === 'ladder') return `/ladder/${r.game}/${r.draw}`;
  if (r.kind !== 'deal') return '/';
  const q = new URLSearchParams({ draw: String(r.draw) });
  if (r.passes !== undefined) q.set('passes', String(r.passes));
  if (r.scoring) q.set('scoring', r.scoring);
  if (r.game) q.set('game', r.game);
  return `/deal/${r.seed}?${q}`;
}

/**
 * setPath shows path in the address bar. It replaces the history entry, so
 * Back leaves the client rather than stepping through the screens it showed.
 */
export function setPath(path) {
  if (location.pathname + location.search !== path) history.replaceState(null, '', path);
}
