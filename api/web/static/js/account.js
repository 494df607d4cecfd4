// The player's account, over the server's HTTP routes: a profile, the
// player's name, passkeys, signing in and out, the player's data and
// deleting the player. The routes of the player's own data take the
// browser's device credential as a bearer token (http.js).
//
// Becoming another player (a passkey sign-in) or none (signing out,
// deleting) reloads the page: everything the tab holds belongs to the
// player it said hello as, and a fresh page says hello again from what the
// browser now keeps. Other tabs follow through the storage event (app.js).

import { h } from './util.js';
import { api, download } from './http.js';
import { addPasskey as makePasskey, signInWithPasskey as passkeySignIn } from './passkeys.js';
import { storageSet, TOKEN_KEY, NAME_KEY } from './storage.js';
import { savedToken } from './net.js';
import { S } from './state.js';
import { showWho } from './match.js';

// tokenOrFail is the browser's credential, for the routes that need one.
function tokenOrFail() {
  const t = savedToken();
  if (!t) throw { code: 'unauthorized', key: 'account.not_signed_in' };
  return t;
}

/** getProfile reads a player's profile (GET /api/v1/players/{id}). */
export async function getProfile(id) {
  return api('GET', `/api/v1/players/${encodeURIComponent(id)}`);
}

/** getMe reads the player's own account: {player, passkeys, devices}. */
export async function getMe() {
  return api('GET', '/api/v1/me', { token: tokenOrFail() });
}

/** rename changes the player's name, here and in every later hello. */
export async function rename(name) {
  const { player } = await api('PATCH', '/api/v1/me', { token: tokenOrFail(), body: { name } });
  S.name = player.name;
  if (S.conn) S.conn.name = player.name;
  storageSet(NAME_KEY, player.name);
  showWho();
  return player;
}

/** addPasskey adds a passkey of this device to the player: {passkeys}. */
export async function addPasskey() {
  return makePasskey(tokenOrFail());
}

/**
 * signIn signs in with a passkey: the browser becomes the passkey's
 * player. The credential it held before is signed out, since nothing else
 * holds it.
 */
export async function signIn() {
  const { token, player } = await passkeySignIn();
  const old = savedToken();
  if (old && old !== token) await api('POST', '/api/v1/me/signout', { token: old }).catch(() => {});
  const wasOwnProfile = S.page.kind === 'profile' && S.me && S.page.id === S.me;
  if (S.conn) S.conn.close();
  // The name first: a tab that reloads on the new credential finds it.
  storageSet(NAME_KEY, player.name);
  storageSet(TOKEN_KEY, token);
  if (wasOwnProfile) location.assign(`/p/${player.id}`);
  else location.reload();
}

/** signOut forgets this browser's credential, here and on the server. */
export function signOut() {
  return leave(() => api('POST', '/api/v1/me/signout', { token: tokenOrFail() }));
}

/**
 * signOutEverywhere revokes every credential of the player, on every
 * device; the server closes their connections.
 */
export function signOutEverywhere() {
  return leave(() => api('POST', '/api/v1/me/signout-everywhere', { token: tokenOrFail() }));
}

/** deletePlayer deletes the player, its credentials, passkeys and records. */
export function deletePlayer() {
  return leave(() => api('DELETE', '/api/v1/me', { token: tokenOrFail() }));
}

// leave runs a request after which the browser holds no player: the
// connection is closed first, so that it cannot say hello again with the
// credential being revoked (which would make a new player and store its
// credential). On failure the connection opens again.
async function leave(run) {
  if (S.conn) S.conn.close();
  try {
    await run();
  } catch (err) {
    if (S.conn) S.conn.reopen();
    throw err;
  }
  storageSet(NAME_KEY, '');
  storageSet(TOKEN_KEY, '');
  location.assign('/');
}

/**
 * downloadData saves the player's data (GET /api/v1/me/export) as a JSON
 * file: fetched with the bearer token, which a plain link could not send.
 */
export async function downloadData() {
  const { blob, name } = await download('/api/v1/me/export', { token: tokenOrFail(), fallbackName: `klondike-player-${S.me}.json` });
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  // The download has started by now; the object URL is not needed after it.
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  return name;
}
