// login.test.js - `paictl serve --listen ADDR --users FILE`: the same
// pages, behind a login form for those accounts, with the same tokens
// as the REST API; the REST API itself keeps OpenPAI's rules there.
'use strict';
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const H = require('./harness.js');

let home, server, b, base;

function freePort() {
  return new Promise((res) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const {port} = s.address();
      s.close(() => res(port));
    });
  });
}

before(async () => {
  home = H.makeHome();
  const users = path.join(home.dir, 'users');
  fs.writeFileSync(users, 'alice:s3cret-pw\nbob:other-pw\ncarol:carols-pw\ndave:daves-pw\n',
    {mode: 0o600});
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = await H.startServer(home, ['--listen', `127.0.0.1:${port}`, '--users', users]);
  H.submit(home, 'alices-job', 'echo hi', {});
  b = await H.browser(home);
});

after(async () => {
  if (b) await b.ctx.close();
  assert.equal(await H.stopServer(home, server), 0);
});

test('the pages ask to sign in; a wrong password is said, the right one signs in', async () => {
  const p = b.page;
  const r = await p.goto(`${base}/`);
  assert.equal(r.status(), 401);
  await p.waitForSelector('form.signin');
  await H.shot(p, 'login-1400x900');
  await p.fill('#username', 'alice');
  await p.fill('#password', 'wrong-password');
  await p.click('form.signin button[type=submit]');
  await p.waitForFunction(() => document.querySelector('.signin .error').textContent !== '');
  assert.equal(await p.$eval('.signin .error', (e) => e.textContent), 'Password is incorrect.');
  await p.fill('#password', 's3cret-pw');
  await p.click('form.signin button[type=submit]');
  await p.waitForSelector('tr[data-job]');
  assert.equal(await p.$eval('#who .user', (e) => e.textContent), 'alice');
  const [c] = await b.ctx.cookies(base);
  assert.equal(c.httpOnly, true);
  assert.equal(c.sameSite, 'Strict');
  // the session's cookie is no REST token, and no session without the
  // key the page holds (which another port's server is never sent)
  const key = await p.evaluate(() => localStorage.getItem('paictl-session-key'));
  assert.match(key, /^[0-9a-f]{64}$/);
  const bearer = await H.raw(base, 'GET', '/api/v2/jobs', {headers: {Authorization: `Bearer ${c.value}`}});
  assert.equal(bearer.status, 401);
  const alone = await H.raw(base, 'GET', '/api/v2/jobs', {headers: {Cookie: `${c.name}=${c.value}`}});
  assert.equal(alone.status, 401);
  const me = await H.raw(base, 'GET', '/api/v2/jobs', {headers: {Cookie: `${c.name}=${c.value}`,
    'X-Paictl-Session': key}});
  assert.equal(me.status, 200);
});

test('signing out ends the session, for the REST API too', async () => {
  const p = b.page;
  const [c] = await b.ctx.cookies(base);
  const key = await p.evaluate(() => localStorage.getItem('paictl-session-key'));
  await p.click('#who button');
  await p.waitForSelector('form.signin');
  const after = await H.raw(base, 'GET', '/api/v2/jobs', {headers: {Cookie: `${c.name}=${c.value}`,
    'X-Paictl-Session': key}});
  assert.equal(after.status, 401);
  assert.equal(await p.evaluate(() => localStorage.getItem('paictl-session-key')), null);
});

test('the REST API keeps its rules: v1 reads need no token, a link is no login here', async () => {
  assert.equal((await H.raw(base, 'GET', '/api/v1/jobs')).status, 200);
  assert.equal((await H.raw(base, 'GET', '/api/v2/jobs')).status, 401);
  const login = await H.raw(base, 'POST', '/api/v1/token', {headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({username: 'bob', password: 'other-pw'})});
  assert.equal(login.status, 200);
  assert.equal((await H.raw(base, 'GET', `/?token=${'a'.repeat(64)}`)).status, 401);
  // a stranger's body is refused before it is read: a submit's at once
  // (401), a login's beyond what a login sends (413)
  assert.equal(await H.announce(base, 'POST', '/api/v1/user/bob/jobs', 1024 * 1024), 401);
  assert.equal(await H.announce(base, 'POST', '/api/v1/token', 1024 * 1024), 413);
  // a loopback listener refuses another Host too
  const r = await H.raw(base, 'GET', '/api/v1/jobs', {headers: {Host: 'evil.example'}});
  assert.equal(r.status, 403);
});

test('wrong passwords meet 429 with a growing Retry-After; the right one gets in after it', async () => {
  const login = (route, username, password) => H.raw(base, 'POST', route, {headers:
    {'Content-Type': 'application/json', 'X-Paictl-Web': '1'},
  body: JSON.stringify({username, password})});
  const v1 = '/api/v1/token';
  for (let i = 0; i < 6; i++) assert.equal((await login(v1, 'carol', 'wrong-pw')).status, 400, `try ${i}`);
  let r = await login(v1, 'carol', 'carols-pw');
  assert.equal(r.status, 429);
  assert.equal(r.headers['retry-after'], '1');
  assert.equal(JSON.parse(r.body).code, 'TooManyRequestsError');
  // another account from the same address is not slowed down
  assert.equal((await login(v1, 'bob', 'other-pw')).status, 200);
  await H.sleep(1100);
  assert.equal((await login(v1, 'carol', 'wrong-pw')).status, 400);
  r = await login(v1, 'carol', 'carols-pw');
  assert.equal(r.status, 429);
  assert.equal(r.headers['retry-after'], '2', 'the wait grows');
  await H.sleep(2100);
  assert.equal((await login(v1, 'carol', 'carols-pw')).status, 200);
  // which clears the count
  for (let i = 0; i < 5; i++) assert.equal((await login(v1, 'carol', 'wrong-pw')).status, 400);
  // the three login routes count together, unknown accounts too
  for (let i = 0; i < 6; i++) {
    assert.equal((await login('/api/v2/authn/basic/login', 'dave', 'wrong-pw')).status, 400);
  }
  assert.equal((await login('/web/api/login', 'dave', 'daves-pw')).status, 429);
  assert.equal((await login(v1, 'dave', 'daves-pw')).status, 429);
  for (let i = 0; i < 6; i++) assert.equal((await login(v1, 'nobody', 'wrong-pw')).status, 400);
  assert.equal((await login(v1, 'nobody', 'wrong-pw')).status, 429);
  await H.sleep(1100);
  assert.equal((await login('/web/api/login', 'dave', 'daves-pw')).status, 200);
});
