// security.test.js - what keeps paictl web's pages safe, one test per
// point, over plain HTTP (node's http: any Host, Origin or cookie, no
// browser's help): no session, no answer; a login link works once; a
// foreign Host is refused (DNS rebinding); a change from another site
// is refused (CSRF); the pages' CSP and how they build text; and the
// long-poll that keeps them live without polling.
'use strict';
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const H = require('./harness.js');

let home, server, base, cookie, key, user, logPath;

before(async () => {
  home = H.makeHome();
  server = await H.startServer(home);
  H.submit(home, 'sleeper', 'echo first; sleep 60');
  H.submit(home, 'victim', 'sleep 60');
  await H.until('sleeper to run', () => H.jobState(home, 'sleeper') === 'RUNNING');
  ({cookie, key, base} = await H.sessionCookie(home));
  const st = JSON.parse(H.paictl(home, ['status', '-o', 'json', 'sleeper']).stdout);
  user = st.jobStatus.username;
  logPath = new URL(st.taskRoles.main.taskStatuses[0].containerLog).pathname + 'user.pai.stdout';
});

after(async () => {
  H.paictl(home, ['stop', 'sleeper']);
  H.paictl(home, ['stop', 'victim']);
  assert.equal(await H.stopServer(home, server), 0);
});

const withCookie = (extra = {}) => ({headers: {Cookie: cookie, 'X-Paictl-Session': key, ...extra}});

test('no session: the API, the logs and the pages answer 401', async () => {
  const paths = ['/api/v1/jobs', '/api/v2/jobs', `/api/v1/user/${user}/jobs/sleeper`,
    `/api/v2/jobs/${user}~sleeper`, logPath, `/web/api/config/${user}/sleeper`, '/', '/submit',
    `/job/${user}/sleeper`];
  for (const p of paths) {
    assert.equal((await H.raw(base, 'GET', p)).status, 401, p);
    const forged = {headers: {Cookie: `${cookie.split('=')[0]}=${'0'.repeat(64)}`}};
    assert.equal((await H.raw(base, 'GET', p, forged)).status, 401, `${p} with a forged session`);
    assert.equal((await H.raw(base, 'GET', p, withCookie())).status, 200, `${p} with the session`);
  }
  // the page that says so holds no job
  const page = await H.raw(base, 'GET', '/');
  assert.ok(!page.body.includes('sleeper'));
});

test('the cookie alone, as a job\'s server on another port receives it, reads and changes nothing', async () => {
  // a browser sends the cookie to every port of the host; the key only
  // the pages send
  const token = cookie.split('=')[1];
  const reads = ['/api/v1/jobs', '/api/v2/jobs', `/api/v1/user/${user}/jobs/sleeper`, logPath,
    `/web/api/config/${user}/sleeper`, '/web/api/session'];
  for (const p of reads) {
    const replay = await H.raw(base, 'GET', p, {headers: {Cookie: cookie}});
    assert.equal(replay.status, 401, `${p} with the cookie alone`);
    assert.ok(!replay.body.includes('sleeper'), p);
    const wrong = await H.raw(base, 'GET', p, withCookie({'X-Paictl-Session': 'f'.repeat(64)}));
    assert.equal(wrong.status, 401, `${p} with another key`);
    assert.equal((await H.raw(base, 'GET', p, withCookie())).status, 200, `${p} with the key`);
    // nor is the cookie's value a bearer token, with or without the key
    const bearer = await H.raw(base, 'GET', p, {headers: {Authorization: `Bearer ${token}`,
      'X-Paictl-Session': key}});
    assert.equal(bearer.status, 401, `${p} with the cookie's value as a token`);
  }
  const stop = await H.raw(base, 'PUT', `/api/v1/user/${user}/jobs/sleeper/executionType`,
    {headers: {Cookie: cookie, 'Content-Type': 'application/json', 'X-Paictl-Web': '1'},
      body: '{"value":"STOP"}'});
  assert.ok(stop.status === 401 || stop.status === 403, `stop: ${stop.status}`);
  assert.equal(H.jobState(home, 'sleeper'), 'RUNNING');
  // the cookie ends when the session does: at its Max-Age
  const {response} = await H.sessionCookie(home);
  assert.match([].concat(response.headers['set-cookie'])[0], /; Max-Age=604800$/);
});

test('a login link works once; its cookie is HttpOnly, SameSite=Strict, Path=/', async () => {
  const {link} = H.loginLink(home, 'sleeper');
  const u = new URL(link);
  assert.equal(u.pathname, `/job/${user}/sleeper`);
  assert.match(u.search, /^\?token=[0-9a-f]{64}$/);
  const first = await H.raw(base, 'GET', u.pathname + u.search);
  assert.equal(first.status, 303);
  assert.match(first.headers.location, new RegExp(`^/job/${user}/sleeper#key=[0-9a-f]{64}$`));
  const set = [].concat(first.headers['set-cookie'])[0];
  assert.match(set, /^paictl_session_\d+=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+$/);
  const again = await H.raw(base, 'GET', u.pathname + u.search);
  assert.equal(again.status, 401);
  assert.equal(again.headers['set-cookie'], undefined);
  const guess = await H.raw(base, 'GET', `/?token=${'a'.repeat(64)}`);
  assert.equal(guess.status, 401);
  // the redirect goes to the path as it came, percent-encoded: no byte
  // of it makes a header of its own
  for (const [sent, back] of [['/job/x%20y/%3Cz%3E', '/job/x%20y/%3Cz%3E'],
    ['/job/a%0d%0aSet-Cookie:%20planted=1/b', '/job/a%0D%0ASet-Cookie%3A%20planted%3D1/b'],
    ['/job/%C3%A9t%C3%A9/n', '/job/%C3%A9t%C3%A9/n']]) {
    const secret = new URL(H.loginLink(home).link).searchParams.get('token');
    const r = await H.raw(base, 'GET', `${sent}?token=${secret}`);
    assert.equal(r.status, 303, sent);
    assert.equal(r.headers.location.replace(/#key=[0-9a-f]{64}$/, ''), back, sent);
    assert.ok(![].concat(r.headers['set-cookie']).some((c) => c.startsWith('planted')), sent);
  }
});

test('another Host is refused (DNS rebinding), even with the session', async () => {
  const port = new URL(base).port;
  for (const p of ['/', '/web/main.js', '/api/v1/jobs', logPath]) {
    // 127.0.0.1 too, where the pages have an address of their own
    const others = new URL(base).hostname === '127.0.0.1' ? [] : [`127.0.0.1:${port}`];
    for (const host of [`evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, 'localhost', ...others]) {
      const r = await H.raw(base, 'GET', p, withCookie({Host: host}));
      assert.equal(r.status, 403, `${p} as ${host}`);
      assert.equal(JSON.parse(r.body).code, 'ForbiddenHostError');
    }
    assert.equal((await H.raw(base, 'GET', p, withCookie({Host: `localhost:${port}`}))).status, 200);
  }
});

test('a change from another site is refused (CSRF); from the page it is made', async () => {
  const put = (headers) => H.raw(base, 'PUT', `/api/v1/user/${user}/jobs/victim/executionType`,
    {headers: {Cookie: cookie, 'X-Paictl-Session': key, 'Content-Type': 'application/json', ...headers},
      body: '{"value":"STOP"}'});
  for (const h of [{Origin: 'http://evil.example'}, {Origin: 'null'}, {},
    {Origin: `http://localhost:${Number(new URL(base).port) + 1}`}]) {
    const r = await put(h);
    assert.equal(r.status, 403, JSON.stringify(h));
    assert.equal(JSON.parse(r.body).code, 'ForbiddenOriginError');
  }
  const form = await H.raw(base, 'POST', `/api/v1/user/${user}/jobs`, {headers: {Cookie: cookie,
    Origin: 'http://evil.example', 'Content-Type': 'application/x-www-form-urlencoded'},
  body: `jobName=planted&image=x`});
  assert.equal(form.status, 403);
  assert.equal((await H.raw(base, 'POST', '/web/api/logout',
    withCookie({Origin: 'http://evil.example'}))).status, 403);
  assert.equal(H.jobState(home, 'victim'), 'RUNNING');
  assert.equal(H.paictl(home, ['status', 'planted']).status, 4);
  // from the page, served as http or (behind a proxy that ends TLS) https
  assert.equal((await put({Origin: base.replace(/^http:/, 'https:')})).status, 202);
  assert.equal((await put({Origin: base})).status, 202);
  await H.until('victim to stop', () => H.jobState(home, 'victim') === 'STOPPED');
});

test('a stranger\'s request is refused before its body is read, never held', async () => {
  const mb = 1024 * 1024; // under the body limit (4 MiB)
  const jobs = `/api/v1/user/${user}/jobs`;
  // no session: 401 at once, not after the body
  assert.equal(await H.announce(base, 'POST', jobs, mb), 401);
  assert.equal(await H.announce(base, 'POST', '/api/v2/jobs', mb), 401);
  assert.equal(await H.announce(base, 'POST', '/web/api/validate', mb, {'X-Paictl-Web': '1'}), 401);
  // the cookie alone (as another port's server has it): the same
  assert.equal(await H.announce(base, 'POST', jobs, mb, {Cookie: cookie, 'X-Paictl-Web': '1'}), 401);
  // another Host, another Origin: 403 at once
  assert.equal(await H.announce(base, 'POST', jobs, mb, {Cookie: cookie, 'X-Paictl-Session': key,
    Host: 'evil.example'}), 403);
  assert.equal(await H.announce(base, 'POST', jobs, mb, {Cookie: cookie, 'X-Paictl-Session': key,
    Origin: 'http://evil.example'}), 403);
  // a login's body, bounded for strangers: one far beyond it, 413 at once
  assert.equal(await H.announce(base, 'POST', '/web/api/login', mb, {'X-Paictl-Web': '1'}), 413);
  // signed in, a body beyond the limit is still answered at once
  assert.equal(await H.announce(base, 'POST', jobs, 500 * mb, {Cookie: cookie,
    'X-Paictl-Session': key, 'X-Paictl-Web': '1'}), 413);
  // and one within it is waited for (the server reads it)
  assert.equal(await H.announce(base, 'POST', jobs, mb, {Cookie: cookie, 'X-Paictl-Session': key,
    'X-Paictl-Web': '1'}, 1000), null);
});

test('the pages: CSP default-src \'self\', no inline script, and text only', async () => {
  for (const p of ['/', '/submit', `/job/${user}/sleeper`, '/web/main.js', '/web/app.css']) {
    const r = await H.raw(base, 'GET', p, withCookie());
    const csp = r.headers['content-security-policy'];
    assert.match(csp, /(^|; )default-src 'self'(;|$)/, p);
    assert.ok(!csp.includes('unsafe-inline') && !csp.includes('unsafe-eval'), p);
    assert.match(csp, /require-trusted-types-for 'script'/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['x-frame-options'], 'DENY');
  }
  const dir = path.resolve(__dirname, '../../server/web');
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  for (const m of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
    assert.match(m[1], /\ssrc="\/web\/[a-z]+\.js"/);
    assert.equal(m[2].trim(), '');
  }
  assert.doesNotMatch(html, /\son[a-z]+=|\sstyle=|=["']?\s*javascript:/i);
  // nothing builds HTML from a string: a job's words stay text
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.js'))) {
    const js = fs.readFileSync(path.join(dir, f), 'utf8');
    assert.doesNotMatch(js, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|srcdoc/, f);
  }
  // a log is plain text a browser never sniffs
  const log = await H.raw(base, 'GET', logPath, withCookie());
  assert.match(log.headers['content-type'], /^text\/plain/);
  assert.equal(log.headers['x-content-type-options'], 'nosniff');
});

test('the list\'s long-poll holds until a job comes, and never answers early', async () => {
  const first = await H.raw(base, 'GET', '/api/v1/jobs', withCookie());
  const etag = first.headers.etag;
  assert.match(etag, /^W\/"[0-9a-f]{16}"$/);
  let t0 = Date.now();
  const idle = await H.raw(base, 'GET', `/api/v1/jobs?wait=1500&since=${encodeURIComponent(etag)}`, withCookie());
  assert.ok(Date.now() - t0 >= 1400, 'answered before anything changed');
  assert.equal(idle.headers.etag, etag);
  t0 = Date.now();
  const held = H.raw(base, 'GET', `/api/v1/jobs?wait=20000&since=${encodeURIComponent(etag)}`, withCookie());
  await H.sleep(300);
  H.submit(home, 'newcomer', 'true');
  const r = await held;
  assert.ok(Date.now() - t0 < 10000);
  assert.notEqual(r.headers.etag, etag);
  assert.ok(JSON.parse(r.body).some((j) => j.name === 'newcomer'));
});

test('a log\'s long-poll answers when the task writes, and 416 when it does not', async () => {
  H.submit(home, 'writer', 'echo one; sleep 2; echo two; sleep 60');
  await H.until('writer to run', () => H.jobState(home, 'writer') === 'RUNNING');
  const st = JSON.parse(H.paictl(home, ['status', '-o', 'json', 'writer']).stdout);
  const p = new URL(st.taskRoles.main.taskStatuses[0].containerLog).pathname + 'user.pai.stdout';
  await H.until('one', async () => (await H.raw(base, 'GET', p, withCookie())).body === 'one\n');
  const t0 = Date.now();
  const r = await H.raw(base, 'GET', `${p}?wait=20000`, withCookie({Range: 'bytes=4-'}));
  assert.equal(r.status, 206);
  assert.equal(r.body, 'two\n');
  assert.ok(Date.now() - t0 > 500 && Date.now() - t0 < 10000);
  const t1 = Date.now();
  const none = await H.raw(base, 'GET', `${p}?wait=1000`, withCookie({Range: 'bytes=8-'}));
  assert.equal(none.status, 416);
  assert.ok(Date.now() - t1 >= 900);
  H.paictl(home, ['stop', 'writer']);
});

test('paictl web: the local cluster only; JOB must exist; the URL in serve --status', async () => {
  const missing = H.paictl(home, ['web', '--no-open', 'nope']);
  assert.equal(missing.status, 4);
  assert.equal(missing.stderr, "paictl: web: job 'nope' not found\n");
  const other = H.paictl(home, ['--uri', 'http://127.0.0.1:9', 'web', '--no-open']);
  assert.equal(other.status, 2);
  const status = H.paictl(home, ['serve', '--status', '-o', 'json']);
  assert.equal(JSON.parse(status.stdout).web, base);
});

// The local cluster under libfaketime, whose clock moves when the test
// writes an offset ("+11h") to a file: a session's idle end and its
// end with the cookie's Max-Age, without waiting days.
const FAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

test('a session ends after 12 h unused, and after 7 days (the cookie\'s Max-Age) in any case', async () => {
  assert.ok(fs.existsSync(FAKETIME), `no ${FAKETIME} (Debian package libfaketime: make test-deps)`);
  const h = H.makeHome();
  const clock = path.join(h.dir, 'faketime');
  fs.writeFileSync(clock, '+0\n');
  const r = H.paictl(h, ['serve', '--background', '--no-ssh'], {env: {LD_PRELOAD: FAKETIME,
    FAKETIME_TIMESTAMP_FILE: clock, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1',
    // under check-asan: ASan beside the preloaded library
    ASAN_OPTIONS: `${process.env.ASAN_OPTIONS || ''}:verify_asan_link_order=0`}});
  assert.equal(r.status, 0, r.stderr);
  try {
    const at = async (hours) => { fs.writeFileSync(clock, `+${hours * 3600}\n`); await H.sleep(200); };
    const asks = async (s) => (await H.raw(s.base, 'GET', '/web/api/session',
      {headers: {Cookie: s.cookie, 'X-Paictl-Session': s.key || ''}})).status;
    const idle = await H.sessionCookie(h);
    assert.equal(await asks(idle), 200);
    await at(11);
    assert.equal(await asks(idle), 200, 'used after 11 h');
    await at(22.5);
    assert.equal(await asks(idle), 200, '11.5 h after its last use');
    await at(34.6);
    assert.equal(await asks(idle), 401, '12.1 h after its last use');
    // used every 11 h, it lasts as long as its cookie: 7 days
    const week = await H.sessionCookie(h);
    for (let t = 35; t < 34.6 + 7 * 24 - 1; t += 11) {
      await at(t);
      assert.equal(await asks(week), 200, `at ${t} h`);
    }
    await at(34.6 + 7 * 24 + 0.1);
    assert.equal(await asks(week), 401, 'after 7 days');
  } finally {
    fs.writeFileSync(clock, '+0\n');
    await H.stopServer(h, null);
  }
});
