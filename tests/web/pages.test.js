// pages.test.js - paictl web's pages as a person uses them, in Debian's
// headless Chromium against a local cluster: the list, a job's page,
// live logs and states, Stop, Submit; and what the browser must never
// do (load from another host, run what a job wrote). Screenshots at
// 1400x900 and on a narrow window stay in build/web/screenshots/.
'use strict';
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const H = require('./harness.js');

let home, server, b, base, user, opened, jobPort;

// a job that writes, slowly, HTML among its lines
const CHATTY = 'echo "<script>alert(\'log\')</script><b id=bold>not bold</b>"; ' +
  'for i in $(seq 1 600); do echo "step $i loss=0.$((RANDOM % 900 + 100))"; sleep 0.2; done';

before(async () => {
  home = H.makeHome();
  server = await H.startServer(home);
  H.submit(home, 'hello', 'echo hello');
  H.submit(home, 'broken', 'echo "ValueError: <i>bad</i> shape" >&2; exit 3');
  H.submit(home, 'chatty', CHATTY, {taskNumber: 2,
    portList: [{label: 'http', beginAt: 0, portNumber: 1}]});
  await H.until('hello and broken to end', () =>
    H.jobState(home, 'hello') === 'SUCCEEDED' && H.jobState(home, 'broken') === 'FAILED');
  user = JSON.parse(H.paictl(home, ['status', '-o', 'json', 'hello']).stdout).jobStatus.username;
  b = await H.browser(home);
  // as paictl web opens it: a file that redirects to the link
  opened = H.openedLink(home);
  base = new URL(opened.link).origin;
  await b.page.goto(`file://${opened.file}`);
  await b.page.waitForURL(`${base}/`);
});

after(async () => {
  if (b) await b.ctx.close();
  H.paictl(home, ['stop', 'chatty']);
  H.paictl(home, ['stop', 'ender']);
  const code = await H.stopServer(home, server);
  assert.equal(code, 0, 'the server (under SERVER_WRAPPER) exited with errors');
});

// A mark on the window: gone after a reload.
async function mark(page) { await page.evaluate(() => { window.notReloaded = true; }); }
async function notReloaded(page) { return page.evaluate(() => window.notReloaded === true); }

async function rowState(page, name) {
  return page.$eval(`tr[data-job="${user}~${name}"] .pill`, (e) => e.textContent).catch(() => null);
}

test('the opener\'s argv holds no secret; its file is 0600 and signs in', async () => {
  const secret = new URL(opened.link).searchParams.get('token');
  assert.match(secret, /^[0-9a-f]{64}$/);
  assert.ok(!opened.argv.join(' ').includes(secret), 'the secret is in the opener\'s argv');
  assert.equal(opened.argv.length, 2);
  assert.equal(fs.statSync(opened.file).mode & 0o777, 0o600);
  assert.ok(fs.readFileSync(opened.file, 'utf8').includes(opened.link));
  await b.page.waitForSelector('tr[data-job]');
});

test('the login link signs in and leaves the address without its secret, nor its key', async () => {
  assert.equal(new URL(b.page.url()).pathname, '/');
  assert.equal(new URL(b.page.url()).search, '');
  assert.equal(new URL(b.page.url()).hash, '');
  assert.match(await b.page.evaluate(() => localStorage.getItem('paictl-session-key')), /^[0-9a-f]{64}$/);
  const [c] = await b.ctx.cookies(base);
  assert.match(c.name, /^paictl_session_\d+$/);
  assert.equal(c.httpOnly, true);
  assert.equal(c.sameSite, 'Strict');
  assert.equal(c.path, '/');
  assert.equal(await b.page.evaluate(() => document.cookie), '', 'JavaScript sees the session');
});

test('a job\'s server on 127.0.0.1, visited by the signed-in browser, is sent no session', async () => {
  // the pages have a loopback address of their own: the browser keeps
  // their cookie for it, and sends it to no other host
  assert.match(new URL(base).hostname, /^127\.\d+\.\d+\.\d+$/);
  assert.notEqual(new URL(base).hostname, '127.0.0.1');
  const seen = [];
  const srv = http.createServer((req, res) => {
    seen.push(`${req.url} ${req.headers.cookie || ''}`);
    res.end('a job\'s TensorBoard');
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  jobPort = srv.address().port;
  const p = await b.ctx.newPage();
  try {
    for (const host of ['127.0.0.1', 'localhost']) {
      await p.goto(`http://${host}:${srv.address().port}/`);
      assert.equal(await p.textContent('body'), 'a job\'s TensorBoard');
    }
  } finally {
    await p.close();
    srv.close();
  }
  assert.equal(seen.filter((r) => r.startsWith('/ ')).length, 2, seen.join('; '));
  assert.ok(seen.every((r) => !r.includes('paictl_session')), seen.join('; '));
});

test('the list shows the jobs submitted and their states, in words', async () => {
  const p = b.page;
  await p.waitForSelector(`tr[data-job="${user}~chatty"]`);
  assert.equal(await rowState(p, 'hello'), 'Succeeded');
  assert.equal(await rowState(p, 'broken'), 'Failed');
  assert.equal(await rowState(p, 'chatty'), 'Running');
  const cells = await p.$$eval(`tr[data-job="${user}~chatty"] td`, (tds) => tds.map((t) => t.textContent));
  assert.equal(cells[0], 'chatty');
  assert.equal(cells[2], user);
  assert.match(cells[3], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  assert.equal(cells[5], '2');
  assert.equal(cells[6], '0');
  await H.shot(p, 'list-1400x900');
});

test('a new job and a changed state appear without a reload', async () => {
  const p = b.page;
  await mark(p);
  H.submit(home, 'late', 'sleep 2');
  await p.waitForSelector(`tr[data-job="${user}~late"]`, {timeout: 15000});
  await H.until('late to show Succeeded', async () => (await rowState(p, 'late')) === 'Succeeded');
  assert.ok(await notReloaded(p));
});

test('many changes at once: the list asks no more than once a second', async () => {
  const p = b.page;
  const asked = () => b.requests.filter((u) => new URL(u).pathname === '/api/v1/jobs').length;
  const n0 = asked(), t0 = Date.now();
  for (let i = 0; i < 6; i++) H.submit(home, `burst-${i}`, 'true');
  await p.waitForSelector(`tr[data-job="${user}~burst-5"]`, {timeout: 15000});
  await H.until('the burst to end', async () => (await rowState(p, 'burst-5')) === 'Succeeded');
  await H.sleep(2000);
  const secs = (Date.now() - t0) / 1000, n = asked() - n0;
  assert.ok(n <= Math.ceil(secs) + 1, `${n} requests of the list in ${secs} s`);
});

test('a job\'s link opens its page: state, tasks, ports, the ssh line', async () => {
  const p = b.page;
  await p.click(`tr[data-job="${user}~chatty"] a`);
  await p.waitForURL(`${base}/job/${user}/chatty`);
  await p.waitForSelector('.tasks tbody tr');
  assert.equal(await p.$eval('.page-head h1', (e) => e.textContent), 'chatty');
  assert.equal(await p.$eval('.page-head .pill', (e) => e.textContent), 'Running');
  const rows = await p.$$eval('.tasks tbody tr', (trs) => trs.map((tr) => tr.dataset.task));
  assert.deepEqual(rows, ['main-0', 'main-1']);
  const ports = await p.$eval('.tasks tbody tr .ports', (e) => e.textContent);
  assert.match(ports, /^http\d+ssh\d+$/);
  const status = JSON.parse(H.paictl(home, ['status', '-o', 'json', 'chatty']).stdout);
  const http = status.taskRoles.main.taskStatuses[0].containerPorts.http;
  assert.equal(ports.replace(/ssh.*/, ''), `http${http}`);
  const ssh = await p.$eval('.ssh code', (e) => e.textContent);
  assert.equal(ssh, 'paictl ssh chatty main 0');
});

test('a running task\'s log grows without a reload, and its HTML is text', async () => {
  const p = b.page;
  await mark(p);
  await p.waitForFunction(() => document.querySelector('.log').textContent.includes('step 2'));
  const first = await p.$eval('.log', (e) => e.textContent.length);
  await H.until('the log to grow', async () => (await p.$eval('.log', (e) => e.textContent.length)) > first + 40);
  assert.ok(await notReloaded(p));
  const text = await p.$eval('.log', (e) => e.textContent);
  assert.ok(text.startsWith('<script>alert(\'log\')</script><b id=bold>not bold</b>\n'));
  assert.equal(await p.$('#bold'), null);
  assert.equal(await p.$$eval('.log *', (els) => els.length), 0, 'the log holds elements');
  await H.shot(p, 'job-1400x900');
});

test('Raw opens the log as plain text, fetched with the session\'s key', async () => {
  const p = b.page;
  const [raw] = await Promise.all([b.ctx.waitForEvent('page'), p.click('a.raw')]);
  await raw.waitForLoadState();
  await H.until('the raw log', async () => (await raw.textContent('body')).includes('step 1 loss='));
  assert.ok(raw.url().startsWith(`blob:${base}/`), raw.url());
  assert.equal(await raw.$('#bold'), null, 'the log\'s HTML became elements');
  await raw.close();
});

test('scrolled up, the log keeps its place while it grows', async () => {
  const p = b.page;
  await p.$eval('.log', (e) => { e.scrollTop = 0; });
  const len = await p.$eval('.log', (e) => e.textContent.length);
  await H.until('more log', async () => (await p.$eval('.log', (e) => e.textContent.length)) > len + 40);
  assert.equal(await p.$eval('.log', (e) => e.scrollTop), 0);
  assert.equal(await p.$eval('.jump', (e) => e.hidden), false);
  await p.click('.jump');
  assert.ok(await p.$eval('.log', (e) => e.scrollTop + e.clientHeight >= e.scrollHeight - 8));
});

test('Stop asks first, then stops the job; the page and paictl agree', async () => {
  const p = b.page;
  await mark(p);
  await p.click('#stop');
  await p.waitForSelector('dialog[open]');
  await p.click('dialog button[value=no]');
  await H.sleep(300);
  assert.equal(H.jobState(home, 'chatty'), 'RUNNING', 'Cancel stopped the job');
  await p.click('#stop');
  await p.click('dialog button[value=yes]');
  await p.waitForFunction(() => document.querySelector('.page-head .pill').textContent === 'Stopped',
    null, {timeout: 30000});
  assert.equal(H.jobState(home, 'chatty'), 'STOPPED');
  assert.ok(await notReloaded(p));
  assert.equal(await p.$('#stop'), null);
});

test('a job\'s end shows without a reload, with its exit code', async () => {
  const p = b.page;
  H.submit(home, 'ender', 'echo started; sleep 2; echo finished; exit 0');
  await p.goto(`${base}/job/${user}/ender`);
  await p.waitForSelector('.page-head .pill');
  await mark(p);
  await p.waitForFunction(() => document.querySelector('.page-head .pill').textContent === 'Succeeded',
    null, {timeout: 20000});
  assert.ok(await notReloaded(p));
  await p.waitForFunction(() => document.querySelector('.log').textContent === 'started\nfinished\n');
  const exit = await p.$eval('.tasks tbody tr td[data-label="Exit code"]', (e) => e.textContent);
  assert.equal(exit, '0');
});

test('a failed job shows its diagnostics and its stderr, as text', async () => {
  const p = b.page;
  await p.goto(`${base}/job/${user}/broken`);
  await p.waitForSelector('.diag:not([hidden]) pre');
  assert.match(await p.$eval('.diag pre', (e) => e.textContent), /exited with 3/);
  // the log shown first is both streams, as paictl logs shows them
  await p.click('.tasks button:has-text("View log")');
  await p.waitForFunction(() => document.querySelector('.log') &&
    document.querySelector('.log').textContent.includes('ValueError'));
  assert.equal(await p.$eval('button[role=tab][aria-selected=true]', (e) => e.textContent), 'all');
  await p.click('button[role=tab]:has-text("stdout")');
  await p.waitForFunction(() => !(document.querySelector('.log')?.textContent ?? 'ValueError').includes('ValueError'));
  await p.click('button[role=tab]:has-text("stderr")');
  await p.waitForFunction(() => document.querySelector('.log').textContent.includes('ValueError'));
  assert.equal(await p.$eval('.log', (e) => e.textContent), 'ValueError: <i>bad</i> shape\n');
  await p.click('.config-card summary');
  await p.waitForFunction(() => document.querySelector('.config').textContent.startsWith('{'));
  assert.deepEqual(JSON.parse(await p.$eval('.config', (e) => e.textContent)),
    JSON.parse(H.job('broken', 'echo "ValueError: <i>bad</i> shape" >&2; exit 3')));
});

test('Submit shows paictl validate\'s diagnostics, then submits', async () => {
  const p = b.page;
  const bad = '{\n  "jobName": "from-page",\n  "image": "debian",\n  "taskRoles": [{"name": "main",' +
    ' "taskNumber": 1, "cpuNumber": 1, "memoryMB": 64, "gpuNumber": 0, "command": "echo hi"}]\n}\n';
  await p.click('#nav-submit');
  await p.waitForSelector('#config');
  await p.fill('#config', bad);
  await p.click('#check');
  await p.waitForSelector('.diag-list pre');
  const shown = await p.$$eval('.diag-list pre', (els) => els.map((e) => e.textContent).join('\n'));
  // (a file: node's child stdin is a socket, which `validate -` cannot
  // open as /dev/stdin)
  const file = require('node:path').join(home.dir, 'bad.json');
  require('node:fs').writeFileSync(file, bad);
  const cli = H.paictl(home, ['validate', '--color=never', file]);
  assert.equal(cli.status, 3, cli.stderr);
  const lines = cli.stderr.split(file).join('<pasted>').trimEnd().split('\n');
  assert.equal(shown, lines.slice(0, -1).join('\n'));
  assert.equal(await p.$eval('.total', (e) => e.textContent), lines[lines.length - 1]);
  await H.shot(p, 'submit-1400x900');
  await p.fill('#config', bad.replace('"memoryMB": 64', '"memoryMB": 128'));
  await p.click('#submit');
  await p.waitForURL(`${base}/job/${user}/from-page`);
  await H.until('from-page to succeed', () => H.jobState(home, 'from-page') === 'SUCCEEDED');
});

test('Submit takes protocol-v2 YAML through the v2 API', async () => {
  const p = b.page;
  const yaml = 'protocolVersion: 2\nname: yaml-page\ntype: job\nprerequisites:\n' +
    '  - {type: dockerimage, uri: debian, name: img}\ntaskRoles:\n  main:\n    instances: 1\n' +
    '    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 200, gpu: 0}\n' +
    '    commands:\n      - echo from yaml\n';
  await p.goto(`${base}/submit`);
  await p.fill('#config', yaml);
  await p.click('#submit');
  await p.waitForURL(`${base}/job/${user}/yaml-page`);
  await p.click('.config-card summary');
  await p.waitForFunction((y) => document.querySelector('.config').textContent === y, yaml);
});

test('the pages on a narrow window', async () => {
  const p = b.page;
  await p.setViewportSize({width: 390, height: 844});
  await p.goto(`${base}/`);
  await p.waitForSelector(`tr[data-job="${user}~hello"]`);
  await H.shot(p, 'list-narrow');
  const width = await p.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the list is ${width} px wide`);
  await p.goto(`${base}/job/${user}/chatty`);
  await p.waitForSelector('.log');
  await H.shot(p, 'job-narrow');
  await p.setViewportSize({width: 1400, height: 900});
});

test('the keyboard reaches every job: Tab to a link, Enter opens it', async () => {
  const p = b.page;
  await p.goto(`${base}/`);
  await p.waitForSelector('tr[data-job] a');
  for (let i = 0; i < 40; i++) {
    await p.keyboard.press('Tab');
    const onJob = await p.evaluate(() => document.activeElement.classList.contains('job-link'));
    if (onJob) break;
  }
  const name = await p.evaluate(() => document.activeElement.textContent);
  await p.keyboard.press('Enter');
  await p.waitForURL(new RegExp(`/job/${user}/${name}$`));
});

test('in the browser, the CSP refuses HTML from strings and inline script', async () => {
  const p = b.page;
  await p.goto(`${base}/`);
  await p.waitForSelector('tr[data-job]');
  const before = b.problems.length;
  const tried = await p.evaluate(async () => {
    const out = {};
    try { document.body.insertAdjacentHTML('beforeend', '<b id=injected>x</b>'); out.html = 'allowed'; }
    catch (e) { out.html = e.name; }
    const s = document.createElement('script');
    s.append(document.createTextNode('window.inlineRan = true'));
    try { document.body.append(s); } catch (e) { out.script = e.name; }
    await new Promise((r) => setTimeout(r, 200));
    out.ran = window.inlineRan === true;
    return out;
  });
  assert.equal(tried.html, 'TypeError');
  assert.equal(tried.ran, false);
  assert.equal(await p.$('#injected'), null);
  // what the browser said of the attempts, and nothing else
  const said = b.problems.splice(before);
  assert.ok(said.length >= 1 && said.every((m) => /Trusted|Content Security Policy/.test(m)), said.join('\n'));
});

test('nothing was loaded from another host, and nothing went wrong', async () => {
  // but for the opener's file, which sent the browser here, the raw
  // log's blob, of the pages' own origin, and the job's server the test
  // visited
  const hosts = new Set(b.requests.filter((u) => u !== `file://${opened.file}` &&
    !u.startsWith(`blob:${base}/`)).map((u) => new URL(u).host)
    .filter((h) => h !== `127.0.0.1:${jobPort}` && h !== `localhost:${jobPort}`));
  assert.deepEqual([...hosts], [new URL(base).host]);
  assert.deepEqual(b.problems, []);
});
