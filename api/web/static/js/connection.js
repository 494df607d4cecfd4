// The client's side of the connection: opening it once the player has a
// name, showing its state in the top bar, and sending requests. net.js does
// the WebSocket itself (hello, ids, reconnecting, retrying rate-limited
// requests); this module decides what each of its states means for the
// screens.

import { h } from './util.js';
import { t, errorText } from './i18n.js';
import { storageSet, NAME_KEY } from './storage.js';
import { Connection } from './net.js';
import { S } from './state.js';
import { toast } from './feedback.js';
import { screen, render, update, takeOver } from './screen.js';

const connStatus = document.getElementById('conn-status');

// onMessage gets every server message; app.js sets it, so that this module
// does not import the handlers (they send requests through it).
let onMessage = () => {};

/** setMessageHandler names the function that gets every server message. */
export function setMessageHandler(fn) { onMessage = fn; }

/** connect opens the connection, once: net.js reconnects it by itself. */
export function connect() {
  if (S.conn) return;
  S.conn = new Connection({
    name: S.name, onMessage: (m) => onMessage(m), onStatus,
    onForgotten: () => toast(t('conn.forgotten'), 'error'),
  });
  S.conn.connect();
}

/** showStatus writes the connection's state in the top bar, in the page's language. */
export function showStatus() {
  const status = connStatus.dataset.state;
  connStatus.textContent = t(status ? `conn.${status}` : 'conn.starting');
}

// onStatus is told each state of the connection; detail, with closed, is
// the server's refusal of the hello.
function onStatus(status, detail) {
  S.connected = status === 'open';
  connStatus.dataset.state = status;
  showStatus();
  if (status === 'replaced') showReplaced();
  if (status === 'signedout') showSignedOut();
  if (status === 'closed' && detail) {
    toast(errorText(detail), 'error');
    if (!S.welcomed) {
      // The name was refused: ask again.
      S.conn.close();
      S.conn = null;
      S.name = '';
      render();
    }
  }
  if (status !== 'open' && S.round && S.round.inflight) {
    // The answer is lost with the connection, and so are the moves queued
    // behind it; resuming sends the truth (round_started with the view and
    // last_seq). The cards dropped and waiting for the answer snap back.
    S.round.inflight = null;
    S.round.queue = [];
    if (screen.board) screen.board.moveAnswered(false);
  }
  update();
}

// showReplaced takes over the page when another tab resumed this session:
// the server closed this connection (4000) and net.js does not reconnect,
// since two tabs would take the session from each other in turn. Playing
// here again is a reload, whose hello takes it back.
function showReplaced() {
  const dlg = h('div', { class: 'panel replaced', role: 'alertdialog', 'aria-labelledby': 'replaced-title' },
    h('h2', { id: 'replaced-title', text: t('conn.replaced_title') }),
    h('p', { text: t('conn.replaced_detail') }),
    h('button', { class: 'btn primary', type: 'button', onclick: () => location.reload(), text: t('conn.play_here_instead') }));
  takeOver('replaced', dlg);
}

// showSignedOut takes over the page when the server closed the connection
// because its credential was revoked: the player signed out everywhere, or
// was deleted, from another tab or device. The browser forgets the name
// too, so that starting again asks for one (or for a passkey) rather than
// making a new player of the same name silently.
function showSignedOut() {
  storageSet(NAME_KEY, '');
  const dlg = h('div', { class: 'panel replaced', role: 'alertdialog', 'aria-labelledby': 'signedout-title' },
    h('h2', { id: 'signedout-title', text: t('conn.signedout') }),
    h('p', { text: t('conn.signedout_detail') }),
    h('button', { class: 'btn primary', type: 'button', id: 'signedout-again', onclick: () => location.assign('/'), text: t('conn.start_again') }));
  takeOver('signedout', dlg);
}

/**
 * request sends a request and returns a promise of its reply. Offline it
 * says so at once rather than waiting for the reconnection: the player
 * clicked, and should know the click did nothing.
 */
export function request(type, body) {
  if (!S.conn || !S.conn.isOpen()) {
    toast(t('conn.not_yet'), 'error');
    return Promise.reject({ code: 'disconnected' });
  }
  return S.conn.request(type, body);
}
