// podman.test.js - a job's page when the local cluster runs its tasks in
// their image (`paictl serve --runtime podman`), in Debian's headless
// Chromium: no note that the job runs on this machine as its user, the
// image's pull and its progress while it lasts, the log written inside
// the image, the exit code. The image is built offline as tests/podman
// builds it (tests/podman/image.sh) and served for the pull by
// tests/podman/registry.py on 127.0.0.1, each blob late so that the pull
// can be watched. Without podman (or busybox-static for the image) it
// says so in one line and skips.
'use strict';
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {execFileSync, spawn} = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const H = require('./harness.js');

const PODMAN_DIR = path.resolve(__dirname, '../podman');
const TAG = `${process.pid}`;
const IMAGE = `localhost/paictl-web-test:${TAG}`;
// what only the image has (tests/podman/image.sh)
const INSIDE = 'cat /paictl-image-marker; grep ^ID= /etc/os-release; ' +
  `test -e ${H.PAICTL} && echo host files || echo no host files`;

function run(cmd, args) {
  try {
    execFileSync(cmd, args, {stdio: 'ignore', timeout: 60000});
    return true;
  } catch (e) {
    return false;
  }
}

// Why these tests cannot run here, or null.
function whyNot() {
  if (!run('podman', ['version'])) return 'podman is not installed or does not answer';
  try {
    execFileSync('sh', ['-c', 'dpkg -L busybox-static | grep -q "/bin/busybox$"'], {stdio: 'ignore'});
  } catch (e) {
    return 'no busybox-static to build the test image';
  }
  return null;
}

const skip = whyNot();
if (skip) {
  console.log(`# web podman: skipped: ${skip} (make test-deps installs it)`);
  test('podman: a job\'s page when its tasks run in their image', {skip}, () => {});
} else {
  podmanTests();
}

function podmanTests() {
  let home, server, b, base, user, registry, pulled;

  // A job of one task in image, written to home.
  function submit(name, image, command) {
    const file = path.join(home.dir, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify({jobName: name, image, taskRoles: [{name: 'main',
      taskNumber: 1, cpuNumber: 1, memoryMB: 100, gpuNumber: 0, command}]}));
    const r = H.paictl(home, ['submit', '-q', file]);
    if (r.status !== 0) throw new Error(`submit ${name}: ${r.stderr}`);
  }

  function task(name) {
    const r = H.paictl(home, ['status', '-o', 'json', name]);
    return r.status === 0 ? JSON.parse(r.stdout).taskRoles.main.taskStatuses[0] : null;
  }

  // The test image in a registry on 127.0.0.1 that answers each blob
  // delay seconds late; podman reaches it as registries.conf says.
  async function startRegistry(delay) {
    const dir = path.join(home.dir, 'registry');
    execFileSync('podman', ['push', '-q', '--compress', '--format', 'v2s2', IMAGE, `dir:${dir}`],
      {stdio: 'ignore', timeout: 120000});
    const portFile = path.join(home.dir, 'registry.port');
    const child = spawn('python3', [path.join(PODMAN_DIR, 'registry.py'), '--dir', dir,
      '--port-file', portFile, '--log', path.join(home.dir, 'registry.log'),
      '--delay', String(delay)], {stdio: 'ignore'});
    await H.until('the registry', () => fs.existsSync(portFile), 10000);
    const port = fs.readFileSync(portFile, 'utf8').trim();
    const conf = path.join(home.dir, 'registries.conf');
    fs.writeFileSync(conf, `[[registry]]\nlocation = "127.0.0.1:${port}"\ninsecure = true\n`);
    home.env.CONTAINERS_REGISTRIES_CONF = conf;
    return {child, image: `127.0.0.1:${port}/paictl/web-${TAG}:1`};
  }

  before(async () => {
    home = H.makeHome();
    execFileSync('sh', [path.join(PODMAN_DIR, 'image.sh'), IMAGE], {stdio: 'ignore', timeout: 120000});
    registry = await startRegistry(6);
    pulled = registry.image;
    // the runtime asked for by name: the harness's homes ask for processes
    server = await H.startServer(home, ['--runtime', 'podman']);
    submit('inimage', IMAGE, `${INSIDE}; sleep 1; exit 3`);
    user = JSON.parse(H.paictl(home, ['status', '-o', 'json', 'inimage']).stdout).jobStatus.username;
    b = await H.browser(home);
    const {link} = H.loginLink(home);
    base = new URL(link).origin;
    await b.page.goto(link);
    await b.page.waitForURL(`${base}/`);
  });

  after(async () => {
    if (b) await b.ctx.close();
    const code = home ? await H.stopServer(home, server) : 0;
    if (registry) registry.child.kill();
    run('podman', ['rmi', '-f', IMAGE]);
    if (pulled) run('podman', ['rmi', '-f', pulled]);
    assert.equal(code, 0, 'the server (under SERVER_WRAPPER) exited with errors');
  });

  test('the cluster runs its tasks with podman', () => {
    const r = H.paictl(home, ['serve', '--status', '-o', 'json']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).runtime, 'podman');
  });

  test('an image\'s pull: its progress on the job\'s page while it lasts, then the task in it', async () => {
    const p = b.page;
    submit('pulled', pulled, `echo pulled; ${INSIDE}`);
    // once podman has begun (its first line), as a visitor then sees it
    await H.until('the pull to begin', () => /^preparing: /.test((task('pulled') || {}).containerDiagnostics || ''),
      30000);
    await p.goto(`${base}/job/${user}/pulled`);
    await p.waitForSelector('.tasks tbody tr .task-note');
    const note = await p.$eval('.tasks tbody tr .task-note', (e) => e.textContent);
    assert.match(note, /^preparing: (Trying to pull|Getting image|Copying|Writing|Storing)/);
    assert.ok(note.includes(pulled) || !note.startsWith('preparing: Trying'), note);
    assert.equal(await p.$eval('.page-head .pill', (e) => e.textContent), 'Running');
    await H.shot(p, 'podman-pull-1400x900');
    await p.waitForFunction(() => document.querySelector('.page-head .pill').textContent === 'Succeeded',
      null, {timeout: 90000});
    await p.waitForFunction(() => document.querySelector('.log') &&
      document.querySelector('.log').textContent.includes('no host files'));
    const log = await p.$eval('.log', (e) => e.textContent);
    assert.match(log, /^Trying to pull /, 'podman\'s progress is in the task\'s log');
    assert.ok(log.endsWith('pulled\nonly in the image\nID=paictl-test\nno host files\n'), log);
    assert.equal(await p.$('.tasks tbody tr .task-note'), null, 'the progress stays once pulled');
    assert.equal(await p.$eval('.tasks tbody tr td[data-label="Exit code"]', (e) => e.textContent), '0');
  });

  test('a job in its image: no note that it runs on this machine; its log from inside; its exit', async () => {
    const p = b.page;
    await p.goto(`${base}/job/${user}/inimage`);
    await p.waitForFunction(() => document.querySelector('.page-head .pill')?.textContent === 'Failed',
      null, {timeout: 60000});
    await p.waitForSelector('.diag:not([hidden]) pre');
    const diag = await p.$eval('.diag', (e) => e.textContent);
    assert.match(diag, /^Exit diagnostics/);
    assert.match(diag, /exited with 3/);
    const body = await p.$eval('main', (e) => e.textContent);
    assert.ok(!/on this machine|not in the image/.test(body), 'the page says the job did not run in its image');
    assert.ok(!JSON.parse(H.paictl(home, ['status', '-o', 'json', 'inimage']).stdout)
      .jobStatus.localWarnings, 'its status has notes');
    await p.waitForFunction(() => document.querySelector('.log') &&
      document.querySelector('.log').textContent.includes('no host files'));
    assert.equal(await p.$eval('.log', (e) => e.textContent),
      'only in the image\nID=paictl-test\nno host files\n');
    assert.equal(await p.$eval('.tasks tbody tr td[data-label="Exit code"]', (e) => e.textContent), '3');
    assert.equal(await p.$eval('.summary', (e) => /Exit code3/.test(e.textContent)), true);
    await H.shot(p, 'podman-job-1400x900');
    assert.deepEqual(b.problems, []);
  });

  test('the same job on a cluster of processes says that it is not in its image', async () => {
    // the contrast: the note the podman cluster no longer gives
    const other = H.makeHome();
    try {
      await H.startServer(other);
      const file = path.join(other.dir, 'job.json');
      fs.writeFileSync(file, JSON.stringify({jobName: 'plain', image: IMAGE, taskRoles: [{name: 'main',
        taskNumber: 1, cpuNumber: 1, memoryMB: 100, gpuNumber: 0, command: 'true'}]}));
      const r = H.paictl(other, ['submit', '-q', file]);
      assert.equal(r.status, 0, r.stderr);
      const st = JSON.parse(H.paictl(other, ['status', '-o', 'json', 'plain']).stdout).jobStatus;
      assert.match(st.localWarnings || '', new RegExp(`on this machine as .*not in the image '${IMAGE}'`));
    } finally {
      await H.stopServer(other, null);
    }
  });
}
