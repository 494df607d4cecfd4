// The WebSocket connection to the server: hello (resuming with the device
// credential), requests with ids and their replies, pushes, and
// reconnecting by itself when the connection drops.
//
// The credential (the welcome's token) is kept in localStorage, which every
// tab of the browser shares and which outlasts a restart: every tab, and
// the browser tomorrow, says hello as the same player. The server keeps up
// to eight connections of a player; which of them plays a match is the
// server's choice (playing_elsewhere, play_here).

import { storageGet, storageSet, TOKEN_KEY } from './storage.js';

// Close codes of the server (docs/protocol.md).
const CLOSE_REPLACED = 4000; // the player's ninth connection closed this, the oldest
const CLOSE_SIGNED_OUT = 4001; // the credential was revoked: signed out everywhere, or the player deleted

/** savedToken is the browser's device credential, or ''. */
export function savedToken() { return storageGet(TOKEN_KEY); }

function saveToken(t) {
  // Storage may be off (private mode): the player then lasts as long as the page.
  storageSet(TOKEN_KEY, t || '');
}

/**
 * A Connection speaks the protocol. onMessage(msg) gets every server message
 * (replies included); onStatus(status, detail) gets "connecting", "open"
 * (after welcome), "reconnecting", "replaced", "signedout" or "closed"
 * (detail: the error that refused the hello, {code, message});
 * onForgotten() is called when the server no longer knew the browser's
 * credential and a new player was made instead.
 */
export class Connection {
  constructor({ name, onMessage, onStatus, onForgotten = () => {} }) {
    this.name = name;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onForgotten = onForgotten;
    // token is the credential this connection said hello with, or was
    // given: another tab that stores a different one has become another
    // player (app.js compares them).
    this.token = '';
    this.ws = null;
    this.welcomed = false;
    this.nextId = 1;
    this.pending = new Map(); // id → {resolve, reject, type}
    this.tries = 0;
    this.timer = 0;
    this.stopped = false;
    this.everWelcomed = false;
    this.skewMs = 0; // server clock − local clock
  }

  /** serverNow is the time on the server's clock, in ms since the epoch. */
  serverNow() { return Date.now() + this.skewMs; }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    try {
      ws = new WebSocket(`${proto}//${location.host}/ws`);
    } catch (e) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    this.welcomed = false;
    this.onStatus(this.everWelcomed ? 'reconnecting' : 'connecting');
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.sendHello();
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      this.handle(msg);
    };
    ws.onerror = () => { /* onclose follows and decides */ };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.welcomed = false;
      for (const [, p] of this.pending) p.reject({ code: 'disconnected', message: 'the connection dropped' });
      this.pending.clear();
      if (this.stopped) return;
      if (ev.code === CLOSE_REPLACED) {
        this.onStatus('replaced');
        return;
      }
      if (ev.code === CLOSE_SIGNED_OUT) {
        // Saying hello again would make a new player silently: the page
        // says what happened instead.
        this.token = '';
        saveToken('');
        this.onStatus('signedout');
        return;
      }
      this.scheduleReconnect();
    };
  }

  sendHello() {
    const token = savedToken();
    this.token = token;
    const id = `h${this.nextId++}`;
    this.pending.set(id, {
      type: 'hello',
      resolve: () => {},
      reject: (err) => {
        if (token && err.code === 'unauthorized') {
          // The server no longer knows the credential (it expired, was
          // revoked, or its player was deleted): a new player.
          saveToken('');
          this.onForgotten();
          this.sendHello();
          return;
        }
        // The refusal, for connection.js to say in words: a bad name, most
        // likely.
        this.onStatus('closed', err.code ? err : { code: 'bad_request', message: 'the server refused the name' });
      },
    });
    this.raw({ type: 'hello', id, name: this.name, ...(token ? { token } : {}) });
  }

  scheduleReconnect() {
    this.onStatus('reconnecting');
    const delay = Math.min(8000, 300 * 2 ** this.tries) * (0.75 + Math.random() * 0.5);
    this.tries = Math.min(this.tries + 1, 6);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** reconnectNow drops the connection and opens a fresh one, to resync. */
  reconnectNow() {
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.onclose = null;
      ws.close(1000, 'resync');
      for (const [, p] of this.pending) p.reject({ code: 'disconnected', message: 'resyncing' });
      this.pending.clear();
    }
    this.tries = 0;
    this.connect();
  }

  isOpen() { return this.welcomed && this.ws && this.ws.readyState === WebSocket.OPEN; }

  raw(obj) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  /**
   * request sends a message with an id and returns a promise of the reply;
   * an error reply rejects it with {code, message}.
   */
  request(type, body = {}, tries = 0) {
    const id = `c${this.nextId++}`;
    return new Promise((resolve, reject) => {
      if (!this.isOpen()) {
        reject({ code: 'disconnected', message: 'not connected; reconnecting…' });
        return;
      }
      const retry = (err) => {
        // A rate-limited message was dropped unread: send it again later.
        if (err && err.code === 'rate_limited' && tries < 4) {
          setTimeout(() => this.request(type, body, tries + 1).then(resolve, reject), 500 * 2 ** tries);
          return;
        }
        reject(err);
      };
      this.pending.set(id, { type, resolve, reject: retry });
      this.raw({ type, id, ...body });
    });
  }

  /** send sends a message with a fresh id and returns the id; replies go to onMessage. */
  send(type, body = {}) {
    const id = `c${this.nextId++}`;
    if (!this.isOpen()) return '';
    this.raw({ type, id, ...body });
    return id;
  }

  handle(msg) {
    if (msg.type === 'welcome') {
      this.welcomed = true;
      this.everWelcomed = true;
      this.tries = 0;
      this.token = msg.token;
      saveToken(msg.token);
      const t = Date.parse(msg.server_time);
      if (!Number.isNaN(t)) this.skewMs = t - Date.now();
    }
    const p = msg.re ? this.pending.get(msg.re) : null;
    if (p) this.pending.delete(msg.re);
    if (msg.type === 'welcome') this.onStatus('open');
    if (p && msg.type === 'error') {
      p.reject(msg);
      return;
    }
    this.onMessage(msg);
    if (p) p.resolve(msg);
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000, 'bye');
  }

  /** reopen connects again after close(). */
  reopen() {
    this.stopped = false;
    this.tries = 0;
    this.connect();
  }
}

/** forgetSession forgets the browser's credential: the next hello makes a new player. */
export function forgetSession() { saveToken(''); }
