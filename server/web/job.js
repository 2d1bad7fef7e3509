// job.js - a job's page: its state and exit diagnostics, each task
// role's tasks (state and its runtime's words, IP, ports by label, exit
// code, times), a task's log, the `paictl ssh` line for it, the config
// as it was given, and
// Stop. Kept current through the long-poll on the job's status.
import {follow, json, request, jobPath, ApiError} from './api.js';
import {h, fill, pill, stateOf, timeEl, since, isFinal, copyButton,
  confirmDialog, banner} from './ui.js';
import {logView} from './log.js';

// A log as plain text in a tab of its own: fetched with the session's
// key (a plain visit of its URL carries the cookie alone, not enough).
async function openRaw(url) {
  const r = await request('GET', url);
  const blob = new Blob([await r.arrayBuffer()], {type: 'text/plain; charset=utf-8'});
  const u = URL.createObjectURL(blob);
  window.open(u, '_blank', 'noopener');
  setTimeout(() => URL.revokeObjectURL(u), 60000);
}

export function showJob(main, session, user, name) {
  const view = {job: null, task: null, file: 'all', log: null, logUrl: ''};
  const live = h('span', {class: 'live', role: 'status'}, 'Connecting…');
  const title = h('div', {class: 'title'}, h('h1', {}, name));
  const actions = h('div', {class: 'actions'});
  const summary = h('dl', {class: 'summary card'});
  const diag = h('div', {class: 'diag', hidden: true});
  const roles = h('div', {class: 'roles'});
  const logHead = h('div', {class: 'log-head'});
  const logBody = h('div', {class: 'log-body'});
  const config = h('pre', {class: 'config'}, 'Loading…');
  const configSummary = h('summary', {}, 'Job config');

  fill(main,
    h('nav', {class: 'crumbs', 'aria-label': 'Breadcrumb'},
      h('a', {href: '/'}, 'Jobs'), h('span', {'aria-hidden': 'true'}, '›'),
      h('span', {}, user), h('span', {'aria-hidden': 'true'}, '›'),
      h('span', {'aria-current': 'page'}, name)),
    h('div', {class: 'page-head'}, title, live, actions),
    summary, diag,
    h('section', {'aria-labelledby': 'roles-h'},
      h('h2', {id: 'roles-h'}, 'Task roles'), roles),
    h('section', {class: 'card log-card', 'aria-labelledby': 'log-h'}, logHead, logBody),
    h('details', {class: 'card config-card'}, configSummary, config));
  loadConfig();

  async function loadConfig() {
    try {
      const r = await json('GET', `/web/api/config/${encodeURIComponent(user)}/${encodeURIComponent(name)}`);
      const text = typeof r.data === 'string' ? r.data : JSON.stringify(r.data, null, 2);
      config.textContent = text;
      fill(configSummary, 'Job config ', h('span', {class: 'muted'},
        /^\s*[{/]/.test(text) ? '(v1 JSON, as submitted)' : '(protocol-v2 YAML, as submitted)'));
    } catch (err) {
      config.textContent = `Cannot read the config: ${err.message}`;
    }
  }

  function tasks(job) {
    const out = [];
    for (const [role, r] of Object.entries(job.taskRoles || {})) {
      for (const t of r.taskStatuses || []) out.push({role, ...t});
    }
    return out;
  }

  function jobState() {
    return view.job ? stateOf(view.job.jobStatus) : 'WAITING';
  }

  function taskLive(t) {
    const cur = view.job && tasks(view.job).find((x) => x.role === t.role && x.taskIndex === t.taskIndex);
    return !isFinal(jobState()) && cur && (cur.taskState === 'RUNNING' || cur.taskState === 'WAITING');
  }

  function draw() {
    const st = view.job.jobStatus, state = stateOf(st);
    fill(title, h('h1', {}, name), pill(state));
    drawActions(state);
    const ended = isFinal(state);
    const item = (k, ...v) => h('div', {}, h('dt', {}, k), h('dd', {}, ...v));
    fill(summary,
      item('User', st.username),
      item('Submitted', timeEl(st.createdTime)),
      item('Started', timeEl(st.appLaunchedTime)),
      item('Finished', timeEl(ended ? st.completedTime : null)),
      item('Duration', since(st.appLaunchedTime || st.createdTime, ended ? st.completedTime : null)),
      item('Retries', String(st.retries)),
      item('Exit code', st.appExitCode === null || st.appExitCode === undefined ? '–' : String(st.appExitCode)),
      item('Virtual cluster', st.virtualCluster || 'default'));
    const text = [st.appExitDiagnostics, st.localWarnings].filter(Boolean);
    diag.hidden = text.length === 0;
    diag.className = st.appExitDiagnostics ? 'diag' : 'diag note';
    fill(diag, h('h2', {}, st.appExitDiagnostics ? 'Exit diagnostics' : 'Notes'),
      ...text.map((t) => h('pre', {}, t)));
    drawRoles();
    drawLog();
  }

  function drawActions(state) {
    const can = state === 'WAITING' || state === 'RUNNING';
    fill(actions, can ? h('button', {type: 'button', class: 'button danger', id: 'stop',
      onclick: stop}, 'Stop job') : null);
  }

  async function stop() {
    const ok = await confirmDialog(`Stop ${name}?`,
      'Its tasks get SIGTERM, then SIGKILL after the grace time; the job ends STOPPED.',
      'Stop job');
    if (!ok) return;
    try {
      await json('PUT', `${jobPath(user, name)}/executionType`,
        {type: 'application/json', body: JSON.stringify({value: 'STOP'})});
      fill(actions, h('span', {class: 'muted'}, 'Stopping…'));
    } catch (err) {
      banner('error', `Cannot stop ${name}: ${err.message}`);
    }
  }

  function ports(p) {
    if (!p) return h('span', {class: 'muted'}, '–');
    return h('span', {class: 'ports'}, Object.entries(p).map(([label, v]) =>
      h('span', {class: 'port'}, h('span', {class: 'label'}, label), String(v))));
  }

  function drawRoles() {
    const byRole = {};
    for (const t of tasks(view.job)) (byRole[t.role] = byRole[t.role] || []).push(t);
    if (!view.task) {
      const all = tasks(view.job);
      view.task = all.find((t) => t.taskState === 'RUNNING') || all[0] || null;
    }
    fill(roles, Object.entries(byRole).map(([role, ts]) =>
      h('div', {class: 'card table-card role'},
        h('h3', {}, role, h('span', {class: 'muted'}, ` · ${ts.length} task${ts.length === 1 ? '' : 's'}`)),
        h('table', {class: 'tasks'},
          h('thead', {}, h('tr', {}, ['Task', 'State', 'IP', 'Ports', 'Exit code', 'Started',
            'Finished', 'Log'].map((t) => h('th', {scope: 'col'}, t)))),
          h('tbody', {}, ts.map(taskRow))))));
  }

  function taskRow(t) {
    const sel = view.task && view.task.role === t.role && view.task.taskIndex === t.taskIndex;
    const ended = isFinal(t.taskState);
    return h('tr', {class: sel ? 'selected' : '', dataset: {task: `${t.role}-${t.taskIndex}`}},
      h('td', {'data-label': 'Task'}, `${t.role}-${t.taskIndex}`),
      // its runtime's words: a pull's progress, or why it could not run
      h('td', {'data-label': 'State'}, pill(t.taskState),
        t.containerDiagnostics ? h('div', {class: 'task-note'}, t.containerDiagnostics) : null),
      h('td', {'data-label': 'IP'}, t.containerIp || h('span', {class: 'muted'}, '–')),
      h('td', {'data-label': 'Ports'}, ports(t.containerPorts)),
      h('td', {'data-label': 'Exit code', class: 'num'},
        t.containerExitCode === null || t.containerExitCode === undefined ? '–' : String(t.containerExitCode)),
      h('td', {'data-label': 'Started'}, timeEl(t.launchedTime)),
      h('td', {'data-label': 'Finished'}, timeEl(ended ? t.completedTime : null)),
      h('td', {'data-label': 'Log'}, h('button', {type: 'button', class: 'button small',
        'aria-pressed': String(!!sel), disabled: !t.containerLog,
        onclick: () => { view.task = t; drawRoles(); drawLog(); }}, 'View log')));
  }

  function sshLine(t) {
    const ref = user === session.user ? name : `${user}~${name}`;
    return `paictl ssh ${ref} ${t.role} ${t.taskIndex}`;
  }

  function drawLog() {
    const t = view.task && tasks(view.job).find((x) => x.role === view.task.role && x.taskIndex === view.task.taskIndex);
    if (!t) return;
    const base = t.containerLog ? new URL(t.containerLog, location.href).pathname : '';
    const url = base && `${base}user.pai.${view.file}`;
    const tab = (f) => h('button', {type: 'button', role: 'tab', class: 'tab',
      'aria-selected': String(view.file === f),
      onclick: () => { view.file = f; drawLog(); }}, f);
    const ssh = sshLine(t);
    fill(logHead,
      h('h2', {id: 'log-h'}, 'Log of ', h('span', {class: 'mono'}, `${t.role}-${t.taskIndex}`)),
      h('div', {role: 'tablist', class: 'tabs', 'aria-label': 'Which log'}, tab('all'), tab('stdout'), tab('stderr')),
      h('div', {class: 'ssh'}, h('code', {}, ssh), copyButton(ssh)),
      url ? h('a', {class: 'raw', href: url, target: '_blank', rel: 'noopener',
        onclick: (e) => { e.preventDefault(); openRaw(url); }}, 'Raw') : null);
    if (url === view.logUrl) return;
    if (view.log) view.log.stop();
    view.logUrl = url;
    view.log = null;
    if (!url) {
      fill(logBody, h('p', {class: 'muted'}, 'The task has not started: no log yet.'));
      return;
    }
    const snapshot = {role: t.role, taskIndex: t.taskIndex};
    view.log = logView(url, () => taskLive(snapshot));
    fill(logBody, view.log.el);
  }

  return follow(jobPath(user, name), (job) => {
    view.job = job;
    draw();
    if (!isFinal(jobState())) return true;
    live.className = 'live ended';
    live.textContent = 'Ended';
    return false;
  }, (state, err) => {
    if (state === 'gone' && err instanceof ApiError && err.status === 404) {
      fill(main, h('h1', {}, 'No such job'),
        h('p', {}, `There is no job ${name} of ${user}. `, h('a', {href: '/'}, 'All jobs')));
    }
    live.className = `live ${state}`;
    live.textContent = state === 'live' ? 'Live' : state === 'gone' ? 'Signed out' : 'Reconnecting…';
  });
}
