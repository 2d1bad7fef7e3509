// harness.js - what the web tests share: a local cluster of their own
// (in a temporary HOME, so that no user's cluster is touched), paictl
// run without a shell, job configs, the login link, and Debian's
// Chromium driven by playwright-core, with the flags this machine's
// closed network needs and a new empty profile each time.
'use strict';
const {execFileSync, spawn} = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const net = require('node:net');

const PAICTL = process.env.PAICTL || path.resolve(__dirname, '../../build/paictl');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.WEB_SHOTS || path.resolve(__dirname, '../../build/web/screenshots');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync'];

// A home of its own: XDG dirs there, nothing of the caller's PAICTL_*.
function makeHome() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paictl-web-'));
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('PAICTL_') && !k.startsWith('XDG_') && k !== 'DISPLAY' &&
        k !== 'WAYLAND_DISPLAY') env[k] = v;
  }
  // its jobs run as processes, podman installed or not
  Object.assign(env, {HOME: dir, XDG_STATE_HOME: path.join(dir, 'state'),
    XDG_CONFIG_HOME: path.join(dir, 'config'), LC_ALL: 'C', TZ: 'UTC',
    PAICTL_SERVE_RUNTIME: 'process'});
  return {dir, env};
}

function paictl(home, args, opts = {}) {
  try {
    const out = execFileSync(PAICTL, args, {env: {...home.env, ...(opts.env || {})},
      input: opts.input || '', encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'],
      timeout: opts.timeout || 30000});
    return {status: 0, stdout: out, stderr: ''};
  } catch (e) {
    if (e.status === undefined || e.status === null) throw e;
    return {status: e.status, stdout: e.stdout, stderr: e.stderr};
  }
}

function stateDir(home) {
  return path.join(home.env.XDG_STATE_HOME, 'paictl', 'local');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The local cluster of home: in the background as paictl starts it, or
// in the foreground under $SERVER_WRAPPER (valgrind: tests/web/run.sh).
async function startServer(home, extra = []) {
  const wrapper = (process.env.SERVER_WRAPPER || '').split(' ').filter(Boolean);
  if (!wrapper.length) {
    const r = paictl(home, ['serve', '--background', '--no-ssh', ...extra]);
    if (r.status !== 0) throw new Error(`serve: ${r.stderr}`);
    return null;
  }
  const log = fs.openSync(path.join(home.dir, 'server.out'), 'w');
  const child = spawn(wrapper[0], [...wrapper.slice(1), PAICTL, 'serve', '--no-ssh', ...extra],
    {env: home.env, stdio: ['ignore', log, log], detached: true});
  for (let i = 0; i < 600; i++) {
    if (paictl(home, ['serve', '--status']).status === 0) return child;
    await sleep(100);
  }
  throw new Error('the server under SERVER_WRAPPER did not start');
}

// Stops home's cluster; under a wrapper, waits for the process's exit
// and returns its status (valgrind's error exit says a leak or error).
// Then home goes, unless KEEP=1 (its server.log, server.out stay).
async function stopServer(home, child) {
  paictl(home, ['serve', '--stop', '-q'], {timeout: 120000});
  let code = 0;
  if (child && child.exitCode !== null) code = child.exitCode;
  else if (child) code = await new Promise((res) => child.on('exit', (c) => res(c)));
  if (process.env.KEEP === '1' || code !== 0) console.log(`# kept ${home.dir}`);
  else fs.rmSync(home.dir, {recursive: true, force: true});
  return code;
}

function job(name, command, extra = {}) {
  return JSON.stringify({jobName: name, image: 'debian', taskRoles: [{name: 'main',
    taskNumber: 1, cpuNumber: 1, memoryMB: 100, gpuNumber: 0, command, ...extra}]});
}

function submit(home, name, command, extra) {
  const file = path.join(home.dir, `${name}.json`);
  fs.writeFileSync(file, job(name, command, extra));
  const r = paictl(home, ['submit', '-q', file]);
  if (r.status !== 0) throw new Error(`submit ${name}: ${r.stderr}`);
}

// A fresh login link: {link, base}.
function loginLink(home, jobRef) {
  const r = paictl(home, ['web', '--no-open', ...(jobRef ? [jobRef] : [])]);
  if (r.status !== 0) throw new Error(`paictl web: ${r.status} ${r.stderr}`);
  const link = r.stdout.trim();
  return {link, base: new URL(link).origin};
}

// paictl web as it opens a browser: with a display, and a stand-in
// xdg-open that records its argv. {argv, file, link}: what the opener
// was given, the file it was given, the link paictl printed.
function openedLink(home, jobRef) {
  const bin = path.join(home.dir, 'opener-bin');
  const rec = path.join(home.dir, 'opener-argv');
  fs.mkdirSync(bin, {recursive: true});
  fs.rmSync(rec, {force: true});
  fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$0" "$@" >"${rec}"\n`,
    {mode: 0o755});
  const r = paictl(home, ['web', ...(jobRef ? [jobRef] : [])],
    {env: {DISPLAY: ':0', PATH: `${bin}:${process.env.PATH}`}});
  if (r.status !== 0) throw new Error(`paictl web: ${r.status} ${r.stderr}`);
  for (let i = 0; i < 100 && !fs.existsSync(rec); i++) execFileSync('sleep', ['0.1']);
  const argv = fs.readFileSync(rec, 'utf8').trim().split('\n');
  return {argv, file: argv[argv.length - 1], link: r.stdout.trim()};
}

function jobState(home, ref) {
  const r = paictl(home, ['status', '-o', 'json', ref]);
  return r.status === 0 ? JSON.parse(r.stdout).jobStatus.state : null;
}

async function until(what, fn, ms = 20000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

// Chromium with a new empty profile; every request it makes is kept
// in requests (to check that none goes to another host).
async function browser(home, viewport = {width: 1400, height: 900}) {
  const {chromium} = require('playwright-core');
  const profile = fs.mkdtempSync(path.join(home.dir, 'chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport,
    chromiumSandbox: false, timeout: 60000,
  });
  const requests = [], problems = [];
  ctx.on('request', (r) => requests.push(r.url()));
  ctx.on('page', (p) => watch(p, problems));
  for (const p of ctx.pages()) watch(p, problems);
  return {ctx, requests, problems, page: ctx.pages()[0] || await ctx.newPage()};
}

// What a page must never do: an alert (a log's script run), an error
// of its own, a CSP violation.
function watch(page, problems) {
  page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
}

async function shot(page, name) {
  fs.mkdirSync(SHOTS, {recursive: true});
  await page.screenshot({path: path.join(SHOTS, `${name}.png`), fullPage: false});
}

// One raw HTTP request (node's http: any Host header, no cookie jar).
function raw(base, method, pathname, {headers = {}, body} = {}) {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({host: u.hostname, port: u.port, method, path: pathname,
      headers: {...(body ? {'Content-Length': Buffer.byteLength(body)} : {}), ...headers},
      setHost: !('Host' in headers)}, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { data += c; });
      res.on('end', () => resolve({status: res.statusCode, headers: res.headers, body: data}));
    });
    req.on('error', reject);
    req.setTimeout(30000, () => req.destroy(new Error('timeout')));
    if (body) req.write(body);
    req.end();
  });
}

// A request that announces a body of length bytes and sends none of
// it: the status the server answers with, or null when it has not
// answered within ms (it waits for the body).
function announce(base, method, pathname, length, headers = {}, ms = 3000) {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port), u.hostname);
    let data = '';
    const timer = setTimeout(() => { sock.destroy(); resolve(null); }, ms);
    sock.on('error', (e) => { clearTimeout(timer); reject(e); });
    sock.on('data', (c) => {
      data += c.toString('latin1');
      const m = /^HTTP\/1\.[01] (\d+)/.exec(data);
      if (m) { clearTimeout(timer); sock.destroy(); resolve(Number(m[1])); }
    });
    const lines = [`${method} ${pathname} HTTP/1.1`, `Host: ${u.host}`, `Content-Length: ${length}`,
      'Content-Type: application/json',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    sock.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

// The session a login link gives: its cookie "name=value", and its
// key (from the redirect's fragment) for the X-Paictl-Session header.
async function sessionCookie(home, jobRef) {
  const {link, base} = loginLink(home, jobRef);
  const u = new URL(link);
  const r = await raw(base, 'GET', u.pathname + u.search);
  const set = [].concat(r.headers['set-cookie'] || [])[0] || '';
  const key = (/#key=([0-9a-f]{64})$/.exec(r.headers.location || '') || [])[1];
  return {cookie: set.split(';')[0], key, base, response: r, link};
}

module.exports = {PAICTL, makeHome, paictl, stateDir, startServer, stopServer, job, submit,
  loginLink, openedLink, jobState, until, browser, shot, raw, announce, sessionCookie, sleep};
