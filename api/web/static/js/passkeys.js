// Passkeys (WebAuthn): adding one to the player, and signing in with one on
// another browser or device to become that player. The server runs the
// ceremonies (go-webauthn): it hands out options with a single-use
// challenge, and checks what the authenticator signed.
//
// The options and the credential travel as JSON, whose binary fields are
// base64url. Browsers that have PublicKeyCredential.parseCreationOptionsFromJSON
// and toJSON convert them; for the others this module does it by hand.

import { api } from './http.js';

/** passkeysSupported tells whether this browser can use passkeys at all. */
export function passkeysSupported() {
  return typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;
}

/**
 * addPasskey makes a passkey for the player whose credential is token, and
 * returns the server's answer ({passkeys}). It rejects with {code, message}
 * in words a player understands.
 */
export async function addPasskey(token) {
  need();
  const { ceremony, options } = await api('POST', '/api/v1/me/passkeys/options', { token });
  const publicKey = creationOptions(options.publicKey);
  const cred = await ask(() => navigator.credentials.create({ publicKey }), 'create');
  return api('POST', '/api/v1/me/passkeys', { token, body: { ceremony, credential: credentialJSON(cred) } });
}

/**
 * signInWithPasskey asks the device for a passkey of this site (any of its
 * players: the server's options name none), and returns the server's
 * answer: {token, player}, a new device credential of that player.
 */
export async function signInWithPasskey() {
  need();
  const { ceremony, options } = await api('POST', '/api/v1/passkeys/login/options');
  const publicKey = requestOptions(options.publicKey);
  const cred = await ask(() => navigator.credentials.get({ publicKey }), 'get');
  return api('POST', '/api/v1/passkeys/login', { body: { ceremony, credential: credentialJSON(cred) } });
}

function need() {
  if (!passkeysSupported()) throw { code: 'unsupported', message: 'This browser does not support passkeys.' };
  if (!window.isSecureContext) throw { code: 'unsupported', message: 'Passkeys need a secure page (https, or localhost).' };
}

// ask runs a ceremony on the device, and says in words why it failed.
async function ask(run, kind) {
  try {
    const cred = await run();
    if (!cred) throw { code: 'cancelled', message: 'No passkey was chosen.' };
    return cred;
  } catch (e) {
    if (e && e.code && e.message && !(e instanceof Error)) throw e;
    const name = e && e.name;
    const words = {
      NotAllowedError: kind === 'create'
        ? 'No passkey was made: the request was cancelled or timed out.'
        : 'No passkey was used: the request was cancelled or timed out, or this device holds no passkey for this site.',
      InvalidStateError: 'This device already holds a passkey of this player.',
      SecurityError: 'Passkeys do not work at this address: the server is set up for another one.',
      NotSupportedError: 'This device has no kind of passkey the server accepts.',
      AbortError: 'The passkey request was stopped.',
    }[name];
    throw { code: 'webauthn', message: words || `The passkey request failed: ${(e && e.message) || name || 'unknown error'}` };
  }
}

// creationOptions turns the server's creation options (JSON) into what
// navigator.credentials.create takes.
function creationOptions(json) {
  if (typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function') {
    try { return PublicKeyCredential.parseCreationOptionsFromJSON(json); } catch { /* by hand below */ }
  }
  return {
    ...json,
    challenge: fromB64u(json.challenge),
    user: { ...json.user, id: fromB64u(json.user.id) },
    excludeCredentials: (json.excludeCredentials || []).map((c) => ({ ...c, id: fromB64u(c.id) })),
  };
}

// requestOptions turns the server's request options (JSON) into what
// navigator.credentials.get takes.
function requestOptions(json) {
  if (typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function') {
    try { return PublicKeyCredential.parseRequestOptionsFromJSON(json); } catch { /* by hand below */ }
  }
  const o = { ...json, challenge: fromB64u(json.challenge) };
  if (json.allowCredentials) o.allowCredentials = json.allowCredentials.map((c) => ({ ...c, id: fromB64u(c.id) }));
  return o;
}

// credentialJSON is a PublicKeyCredential as JSON, base64url for its bytes.
function credentialJSON(cred) {
  if (typeof cred.toJSON === 'function') {
    try { return cred.toJSON(); } catch { /* by hand below */ }
  }
  const r = cred.response;
  const response = { clientDataJSON: toB64u(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64u(r.attestationObject);
    if (typeof r.getTransports === 'function') response.transports = r.getTransports();
  } else {
    response.authenticatorData = toB64u(r.authenticatorData);
    response.signature = toB64u(r.signature);
    if (r.userHandle) response.userHandle = toB64u(r.userHandle);
  }
  return {
    id: cred.id, rawId: toB64u(cred.rawId), type: cred.type, response,
    authenticatorAttachment: cred.authenticatorAttachment || undefined,
    clientExtensionResults: typeof cred.getClientExtensionResults === 'function' ? cred.getClientExtensionResults() : {},
  };
}

function fromB64u(s) {
  const b64 = String(s).replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

function toB64u(buf) {
  const bytes = new Uint8Array(buf);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
