// The screens on the way in: the player's name (or a passkey, to be a
// player made on another device), the wait for the server, and the choice a
// link forces when the tab's player is still in a live match.
// The first two say what the link that opened the page offers, so that a
// player who followed an invite knows it was not lost while they type.

import { h } from './util.js';
import { t } from './i18n.js';
import { storageGet, storageSet, NAME_KEY } from './storage.js';
import { S } from './state.js';
import { describeRoute, routePath, setPath } from './route.js';
import { toast } from './feedback.js';
import { render } from './screen.js';
import { connect } from './connection.js';
import { handleRoute, leaveMatch } from './match.js';
import { signInButton } from './profile.js';
import { privacyNote } from './privacy.js';

// The longest name the server takes, in characters.
const MAX_NAME = 24;

/** nameScreen asks the player's name; the browser remembers it for next time. */
export function nameScreen() {
  const input = h('input', { id: 'name-input', name: 'name', maxlength: String(MAX_NAME), autocomplete: 'nickname', required: true, value: storageGet(NAME_KEY), 'data-autofocus': true });
  const form = h('form', {
    class: 'panel narrow', 'aria-labelledby': 'name-title',
    onsubmit: (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name || name.length > MAX_NAME) {
        toast(t('common.name_rule'), 'error');
        return;
      }
      storageSet(NAME_KEY, name);
      S.name = name;
      connect();
      render();
    },
  },
  h('h1', { id: 'name-title', text: t('app.title') }),
  waitingLine(),
  h('p', { class: 'lead', text: t('entry.lead') }),
  h('label', { for: 'name-input', text: t('entry.your_name') }),
  input,
  h('button', { class: 'btn primary', type: 'submit', id: 'name-go', text: t('entry.continue') }),
  h('div', { class: 'signin-line' },
    h('p', { class: 'hint', text: t('entry.other_device') }),
    signInButton('name-passkey', 'btn')),
  privacyNote('name-privacy'));
  return { el: form };
}

// waitingLine says what the link that opened the page offers, before the
// player has a name.
function waitingLine() {
  const what = describeRoute(S.route);
  if (!what) return null;
  const why = { deal: 'entry.waiting_deal', daily: 'entry.waiting_daily', challenge: 'entry.waiting_challenge' }[S.route.kind] || 'entry.waiting_match';
  return h('p', { class: 'waiting', id: 'waiting-link' }, t('entry.waiting'), h('strong', { text: what }), t(why));
}

/** connectingScreen shows until the server's welcome (and a link's decision). */
export function connectingScreen() {
  return { el: h('section', { class: 'panel narrow' }, h('h1', { text: t('conn.connecting') }), waitingLine(), h('p', { text: t('entry.reaching') })) };
}

/**
 * linkScreen: a link was opened in a tab whose player is still in a match
 * that is not over. Neither wins silently: leaving the match may give up a
 * game, so the player chooses. The link goes ahead once they leave it.
 */
export function linkScreen() {
  const r = S.linkConflict;
  const m0 = S.match;
  const what = describeRoute(r) || t('route.lobby');
  const phase = t(`entry.phase.${m0.state}`);
  const go = () => {
    S.linkConflict = null;
    S.routeDone = false;
    setPath(routePath(r));
    handleRoute();
  };
  const el = h('section', { class: 'panel narrow link-conflict', 'aria-labelledby': 'link-title' },
    h('h1', { id: 'link-title', text: what }),
    h('p', { text: t(m0.state === 'open' ? 'entry.still_in_open' : 'entry.still_in', { code: m0.code, phase }) }),
    h('div', { class: 'actions' },
      h('button', { class: 'btn primary', type: 'button', id: 'link-go', 'data-autofocus': true, text: t('entry.leave_go', { code: m0.code }), onclick: () => leaveMatch(go) }),
      h('button', {
        class: 'btn', type: 'button', id: 'link-back', text: t('entry.back_to', { code: m0.code }),
        onclick: () => { S.linkConflict = null; setPath(`/m/${S.match.code}`); render(); },
      })));
  return { el };
}
