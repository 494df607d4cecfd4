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

// The errors of this module are {code, key}: the key of their words in the
// catalogue (i18n.js's errorText says them), and for an unknown failure of
// the device its own words as params.
function need() {
  if (!passkeysSupported()) throw { code: 'unsupported', key: 'passkeys.unsupported' };
  if (!window.isSecureContext) throw { code: 'unsupported', key: 'passkeys.insecure' };
}

// ask runs a ceremony on the device, and says in words why it failed.
async function ask(run, kind) {
  try {
    const cred = await run();
    if (!cred) throw { code: 'cancelled', key: 'passkeys.none_chosen' };
    return cred;
  } catch (e) {
    if (e && e.code && (e.key || e.message) && !(e instanceof Error)) throw e;
    const name = e && e.name;
    const key = {
      NotAllowedError: kind === 'create' ? 'passkeys.not_made' : 'passkeys.not_used',
      InvalidStateError: 'passkeys.already',
      SecurityError: 'passkeys.wrong_address',
      NotSupportedError: 'passkeys.no_kind',
      AbortError: 'passkeys.stopped',
    }[name];
    throw key ? { code: 'webauthn', key } : { code: 'webauthn', message: (e && e.message) || name || '' };
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
