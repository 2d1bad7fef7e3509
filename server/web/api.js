// api.js - the pages talk to the local cluster's own REST APIs (v1 and
// its /web/api/ routes), signed in by the session cookie and the
// session's key beside it. A browser sends the cookie to every port of
// the host, a job's servers' too; the key only these pages hold (this
// origin's localStorage), and every request carries it in the
// X-Paictl-Session header: the server takes the cookie without it for
// nothing. The key comes once, in the address's fragment after a login
// link (taken out of the address at once), or in the login form's
// answer. Every request carries the X-Paictl-Web header too, which a
// cross-site form cannot send; the server refuses a change made without
// it or the page's Origin.
//
// Live updates come from the long-poll (?wait=MS&since=ETAG): the
// server answers when something changed, or after MS. follow() never
// asks more than once a second, and backs off when the server cannot
// be reached.

export const MIN_GAP_MS = 1000;
const WAIT_MS = 25000;

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const KEY = 'paictl-session-key';

// The key a login link's redirect left in the fragment (#key=HEX): kept,
// and the address without it.
(function takeKey() {
  const m = /^#key=([0-9a-f]{64})$/.exec(location.hash);
  if (!m) return;
  localStorage.setItem(KEY, m[1]);
  history.replaceState(null, '', location.pathname + location.search);
})();

// The session's key, from the login form's answer; null: forgotten.
export function setSessionKey(key) {
  if (key) localStorage.setItem(KEY, key);
  else localStorage.removeItem(KEY);
}

const listeners = new Set();
// fn(err) for every answer that says the session is gone (401).
export function onSignedOut(fn) { listeners.add(fn); }

export async function request(method, path, {body, type, headers} = {}) {
  const h = {'X-Paictl-Web': '1', 'X-Paictl-Session': localStorage.getItem(KEY) || '',
    ...(headers || {})};
  if (type) h['Content-Type'] = type;
  const r = await fetch(path, {method, headers: h, body,
    credentials: 'same-origin', cache: 'no-store', redirect: 'error'});
  if (r.status === 401) for (const fn of listeners) fn();
  return r;
}

// A JSON answer: {data, etag, status}; throws ApiError unless 2xx.
export async function json(method, path, opts) {
  const r = await request(method, path, opts);
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!r.ok) {
    const msg = data && data.message ? data.message : `HTTP ${r.status}`;
    throw new ApiError(r.status, data && data.code, msg);
  }
  return {data, etag: r.headers.get('ETag'), status: r.status};
}

export const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

// Calls onData(data) with what path answers now and then each time it
// changes, until onData returns false or stop() is called. onState
// ('live' | 'retrying' | 'gone', err) tells how the following goes.
export function follow(path, onData, onState = () => {}) {
  let stopped = false, etag = null, backoff = 0;
  const sep = path.includes('?') ? '&' : '?';
  (async () => {
    while (!stopped) {
      const began = Date.now();
      try {
        const url = etag === null ? path :
          `${path}${sep}wait=${WAIT_MS}&since=${encodeURIComponent(etag)}`;
        const r = await json('GET', url);
        backoff = 0;
        onState('live');
        if (stopped) break;
        if (r.etag !== etag || etag === null) {
          etag = r.etag || '';
          if (onData(r.data) === false) break;
        }
      } catch (err) {
        if (err.status === 401 || err.status === 404) {
          onState('gone', err);
          break;
        }
        backoff = Math.min(backoff ? backoff * 2 : 2000, 30000);
        onState('retrying', err);
      }
      await sleep(Math.max(MIN_GAP_MS - (Date.now() - began), backoff));
    }
  })();
  return () => { stopped = true; };
}

export function jobPath(user, name) {
  return `/api/v1/user/${encodeURIComponent(user)}/jobs/${encodeURIComponent(name)}`;
}

export function pagePath(user, name) {
  return `/job/${encodeURIComponent(user)}/${encodeURIComponent(name)}`;
}
