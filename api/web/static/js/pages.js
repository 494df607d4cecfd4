// The pages outside a match (S.page): their addresses, going to one, and
// links to them that stay in the tab.
//
// A profile, a ladder and the privacy page are side pages: they show over whatever
// the tab plays (a match, an attempt), which goes on meanwhile and which
// their Back returns to, and they show before the player has a name.

import { h } from './util.js';
import { t } from './i18n.js';
import { S } from './state.js';
import { routePath, setPath } from './route.js';
import { render } from './screen.js';

/** isSidePage tells whether a page shows over a match or an attempt. */
export function isSidePage(page) {
  return page.kind === 'profile' || page.kind === 'privacy' || page.kind === 'ladder';
}

/** pagePath is the address of a page outside a match. */
export function pagePath(page) {
  return routePath(page.kind === 'records' ? { kind: 'lobby' } : page);
}

/**
 * goPage shows a page outside a match: the lobby, the daily deals, a
 * challenge, the records, a profile, a ladder or the privacy page. The
 * records have no address of their own: the address stays the page they
 * were opened from, which they return to; a side page returns to the page
 * it was opened from, too.
 */
export function goPage(page) {
  // A side page the tab opened on is left: the welcome must not bring it back.
  if (isSidePage(S.route)) S.routeDone = true;
  if ((page.kind === 'records' || isSidePage(page)) && !page.back) {
    // Where Back goes: the page shown, unless it is a side page or the
    // same kind of page, whose own Back is kept instead.
    const passOn = isSidePage(S.page) || S.page.kind === page.kind;
    page = { ...page, back: passOn ? (S.page.back || { kind: 'lobby' }) : S.page };
  }
  S.page = page;
  if (page.kind !== 'records') {
    // Back from a side page to a match shows the match, at its address.
    setPath(!isSidePage(page) && S.match ? `/m/${S.match.code}` : pagePath(page));
  }
  render();
}

/**
 * pageLink is a link to a page: a plain click shows it in the tab, while
 * a click that asks for a new tab or window gets one from its address.
 */
export function pageLink(page, attrs = {}) {
  return h('a', {
    href: pagePath(page),
    ...attrs,
    onclick: (e) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      goPage(page);
    },
  });
}

/**
 * backButton is the button that leaves a side page for the page it was
 * opened from, or for the game the tab plays.
 */
export function backButton(id) {
  const back = S.page.back || { kind: 'lobby' };
  const text = t(S.match || S.attempt ? 'common.back_game'
    : { lobby: 'common.back_lobby', daily: 'common.back_daily', challenge: 'common.back_challenge', records: 'common.back_records' }[back.kind] || 'common.back');
  return h('button', { class: 'btn subtle', type: 'button', id, text, onclick: () => goPage(back) });
}
