// The privacy page, /privacy: every entry this browser keeps (storage.js's
// list, the one the code writes from), and what the server keeps and for
// how long; and the line that points to it from the name screen and the
// lobby. The server's side is written here in words; its numbers are the
// server's defaults (docs/security.md).

import { h } from './util.js';
import { t } from './i18n.js';
import { STORED } from './storage.js';
import { S } from './state.js';
import { pageLink, backButton } from './pages.js';

// SERVER lists what the server keeps: the catalogue keys of [what, how long].
const SERVER = ['player', 'credentials', 'passkeys', 'moves', 'records', 'ratings'].map((k) => [`privacy.server.${k}`, `privacy.server.${k}_long`]);

/**
 * privacyNote says where the player's things are kept, and links the
 * privacy page, which lists them.
 */
export function privacyNote(id) {
  return h('p', { class: 'hint privacy-note', id },
    t('privacy.note_before'), pageLink({ kind: 'privacy' }, { text: t('privacy.note_link') }), t('privacy.note_after'));
}

/** privacyScreen is the privacy page. */
export function privacyScreen() {
  const own = () => (S.me ? pageLink({ kind: 'profile', id: S.me }, { id: 'privacy-profile', text: t('privacy.your_profile') }) : t('privacy.your_profile_later'));
  const el = h('section', { class: 'panel privacy', 'aria-labelledby': 'privacy-title' },
    h('h1', { id: 'privacy-title', text: t('privacy.title') }),
    h('p', { class: 'lead', text: t('privacy.lead') }),
    h('h2', { id: 'privacy-browser', text: t('privacy.browser') }),
    h('p', { text: t('privacy.browser_about') }),
    h('table', { class: 'board-table privacy-keys', id: 'privacy-keys', 'aria-labelledby': 'privacy-browser' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: t('privacy.entry') }), h('th', { scope: 'col', text: t('privacy.holds') }), h('th', { scope: 'col', text: t('privacy.why') }))),
      h('tbody', {}, STORED.map((s) => h('tr', { dataset: { key: s.key } },
        h('th', { scope: 'row' }, h('code', { class: 'storage-key', dir: 'ltr', text: s.key })),
        h('td', { text: t(s.holds) }),
        h('td', { text: t(s.why) }))))),
    h('p', { text: t('privacy.on_server_player') }),
    h('h2', { id: 'privacy-server', text: t('privacy.server') }),
    h('table', { class: 'board-table privacy-server', 'aria-labelledby': 'privacy-server' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: t('privacy.what') }), h('th', { scope: 'col', text: t('privacy.how_long') }))),
      h('tbody', {}, SERVER.map(([what, long]) => h('tr', {}, h('td', { text: t(what) }), h('td', { text: t(long) }))))),
    h('p', { text: t('privacy.credential') }),
    h('h2', { text: t('privacy.your_data') }),
    h('p', {}, t('privacy.data_before'), own(), t('privacy.data_after')),
    h('div', { class: 'actions' }, backButton('privacy-back')));
  return { el };
}
