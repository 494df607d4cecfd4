// The privacy page, /privacy: every entry this browser keeps (storage.js's
// list, the one the code writes from), and what the server keeps and for
// how long; and the line that points to it from the name screen and the
// lobby. The server's side is written here in words; its numbers are the
// server's defaults (docs/security.md).

import { h } from './util.js';
import { STORED } from './storage.js';
import { S } from './state.js';
import { pageLink, backButton } from './pages.js';

// SERVER lists what the server keeps: [what, how long].
const SERVER = [
  ['Your player: its id, its name and when it was made.',
    'Until 400 days after it was last used, or until you delete it.'],
  ['Device credentials: one for each browser or device signed in as the player, stored only as a SHA-256 digest, so that the server cannot give the credential back.',
    'Each until 400 days after it was last used, until it is signed out, or until you delete the player; at most 20 a player (a 21st signs out the oldest).'],
  ['Passkeys: each one\u2019s id and public key, and when it was added. Never a private key, which stays on your device.',
    'Until you delete the player, or the player expires.'],
  ['Move logs and replays: every move of every round you play, with its time, to rank the round, and to let anyone replay it and check the board.',
    'As long as the server keeps the round: 24 hours after a live match\u2019s round, and a week after a daily deal or a challenge closes (the server\u2019s defaults). Once you delete your player, a replay keeps your moves under the name \u201cDeleted player\u201d.'],
  ['Records: games played and won, best scores, fastest wins and daily streaks, for each game and draw.',
    'Until you delete the player.'],
  ['Ratings: for each game and draw you played rated, your rating, how sure it is, its last 100 changes, and your place on that game\u2019s ladder, which anyone can see with your name.',
    'Until you delete the player. The record of each rated round (every player\u2019s rating before and after it, so that anyone can check the changes) is kept 90 days.'],
];

/**
 * privacyNote says where the player's things are kept, and links the
 * privacy page, which lists them.
 */
export function privacyNote(id) {
  return h('p', { class: 'hint privacy-note', id },
    'No account needed. Settings stay in your browser; your records and a game in progress are kept on the server for your player. ',
    pageLink({ kind: 'privacy' }, { text: 'The privacy page' }), ' lists every entry.');
}

/** privacyScreen is the privacy page. */
export function privacyScreen() {
  const own = () => (S.me ? pageLink({ kind: 'profile', id: S.me }, { id: 'privacy-profile', text: 'your profile' }) : 'your profile (once you have a player)');
  const el = h('section', { class: 'panel privacy', 'aria-labelledby': 'privacy-title' },
    h('h1', { id: 'privacy-title', text: 'Privacy' }),
    h('p', { class: 'lead', text: 'No account is needed. This page lists everything this browser keeps for the game, and what the server keeps and for how long. There are no cookies, no trackers and nothing from other sites.' }),
    h('h2', { id: 'privacy-browser', text: 'In this browser' }),
    h('p', { text: 'In its local storage, which every tab of this browser shares and which lasts until you clear it:' }),
    h('table', { class: 'board-table privacy-keys', id: 'privacy-keys', 'aria-labelledby': 'privacy-browser' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Entry' }), h('th', { scope: 'col', text: 'What it holds' }), h('th', { scope: 'col', text: 'Why' }))),
      h('tbody', {}, STORED.map((s) => h('tr', { dataset: { key: s.key } },
        h('th', { scope: 'row' }, h('code', { class: 'storage-key', text: s.key })),
        h('td', { text: s.holds }),
        h('td', { text: s.why }))))),
    h('p', { text: 'Your records, your challenges and a game in progress are kept on the server, for your player: any tab, and this browser after a restart, finds them; a passkey brings them to another device.' }),
    h('h2', { id: 'privacy-server', text: 'On the server' }),
    h('table', { class: 'board-table privacy-server', 'aria-labelledby': 'privacy-server' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'What' }), h('th', { scope: 'col', text: 'How long' }))),
      h('tbody', {}, SERVER.map(([what, long]) => h('tr', {}, h('td', { text: what }), h('td', { text: long }))))),
    h('p', { text: 'The credential is sent only in a request\u2019s header, never in an address, and the server writes it in no log.' }),
    h('h2', { text: 'Your data' }),
    h('p', {}, 'On ', own(), ': Download my data saves everything the server keeps of your player as a file, and Delete my player deletes the player, its credentials, passkeys and records.'),
    h('div', { class: 'actions' }, backButton('privacy-back')));
  return { el };
}
