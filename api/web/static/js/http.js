// The server's HTTP routes (/api/v1/…): JSON in and out, the device
// credential as a bearer token where a route needs one, and the server's
// error body turned into {code, message} as the WebSocket's errors are.
//
// The credential goes in the Authorization header and never in the URL: a
// URL ends up in logs and histories, and no other site can make a browser
// send a header it does not know.

/**
 * api calls a route and returns its JSON, or null for a reply without a
 * body. body is sent as JSON; token, when given, as the bearer token. It
 * rejects with {code, message, status}: status 0 when the server could not
 * be reached.
 */
export async function api(method, path, { body, token } = {}) {
  const res = await send(method, path, { body, token });
  if (res.status === 204) return null;
  let data = null;
  try { data = await res.json(); } catch { /* not JSON: the error below says the status */ }
  if (!res.ok) throw errorOf(res, data);
  return data;
}

/**
 * download calls a route whose answer is a file, and returns it as a Blob
 * with the file name the server suggests (Content-Disposition), or
 * fallbackName.
 */
export async function download(path, { token, fallbackName }) {
  const res = await send('GET', path, { token });
  if (!res.ok) {
    let data = null;
    try { data = await res.json(); } catch { /* see api */ }
    throw errorOf(res, data);
  }
  const cd = res.headers.get('Content-Disposition') || '';
  const m = /filename="?([^";]+)"?/.exec(cd);
  return { blob: await res.blob(), name: m ? m[1] : fallbackName };
}

async function send(method, path, { body, token }) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    return await fetch(path, {
      method, headers, cache: 'no-store', credentials: 'omit',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw { code: 'network', key: 'error.network', status: 0 };
  }
}

function errorOf(res, data) {
  const e = (data && data.error) || {};
  return { code: e.code || `http_${res.status}`, message: e.message || `the server answered ${res.status}`, status: res.status };
}
