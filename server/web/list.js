// list.js - the jobs: name (a link to the job's page), state, user,
// submitted, duration, tasks, retries; filtered by state and text, and
// kept current through the long-poll on the list (api.js follow()).
import {follow, pagePath} from './api.js';
import {h, fill, pill, stateOf, timeEl, since, isFinal} from './ui.js';

const FILTERS = ['ALL', 'WAITING', 'RUNNING', 'STOPPING', 'SUCCEEDED',
  'FAILED', 'STOPPED'];
const WORDS = {ALL: 'All', WAITING: 'Waiting', RUNNING: 'Running',
  STOPPING: 'Stopping', SUCCEEDED: 'Succeeded', FAILED: 'Failed',
  STOPPED: 'Stopped'};

export function showList(main) {
  const view = {filter: 'ALL', text: '', jobs: null, seen: null};
  const live = h('span', {class: 'live', role: 'status'}, 'Connecting…');
  const chips = h('div', {class: 'chips', role: 'group',
    'aria-label': 'Show jobs by state'});
  const search = h('input', {type: 'search', class: 'search',
    placeholder: 'Filter by name or user', 'aria-label': 'Filter jobs by name or user'});
  const body = h('tbody');
  const empty = h('div', {class: 'empty', hidden: true});
  const table = h('table', {class: 'jobs'},
    h('caption', {class: 'sr-only'}, 'Jobs, newest first'),
    h('thead', {}, h('tr', {},
      ['Name', 'State', 'User', 'Submitted', 'Duration', 'Tasks', 'Retries']
        .map((t) => h('th', {scope: 'col'}, t)))),
    body);

  search.addEventListener('input', () => { view.text = search.value.trim().toLowerCase(); draw(); });
  fill(main,
    h('div', {class: 'page-head'},
      h('h1', {}, 'Jobs'), live,
      h('a', {class: 'button primary', href: '/submit'}, 'Submit job')),
    h('div', {class: 'toolbar'}, chips, search),
    h('div', {class: 'card table-card'}, table, empty));

  function draw() {
    const jobs = (view.jobs || []).slice().sort((a, b) => b.createdTime - a.createdTime);
    const counts = {ALL: jobs.length};
    for (const j of jobs) counts[stateOf(j)] = (counts[stateOf(j)] || 0) + 1;
    fill(chips, FILTERS.filter((f) => f === 'ALL' || counts[f] || view.filter === f)
      .map((f) => h('button', {type: 'button', class: `chip ${f.toLowerCase()}`,
        'aria-pressed': String(view.filter === f),
        onclick: () => { view.filter = f; draw(); }},
      WORDS[f], h('span', {class: 'count'}, String(counts[f] || 0)))));
    const shown = jobs.filter((j) =>
      (view.filter === 'ALL' || stateOf(j) === view.filter) &&
      (!view.text || j.name.toLowerCase().includes(view.text) ||
       j.username.toLowerCase().includes(view.text)));
    // a keyboard's place survives the redraw
    const focused = document.activeElement && document.activeElement.closest('tr');
    const again = focused && body.contains(focused) ? focused.dataset.job : null;
    fill(body, shown.map(row));
    if (again) {
      const link = body.querySelector(`tr[data-job="${CSS.escape(again)}"] a`);
      if (link) link.focus();
    }
    empty.hidden = shown.length > 0;
    fill(empty, jobs.length ? 'No job matches.' :
      h('p', {}, 'No jobs yet. Submit one here, or with ',
        h('code', {}, 'paictl submit job.json'), '.'));
    view.seen = new Set(jobs.map((j) => `${j.username}~${j.name}`));
  }

  function row(j) {
    const key = `${j.username}~${j.name}`;
    const st = stateOf(j);
    const fresh = view.seen && !view.seen.has(key);
    return h('tr', {class: fresh ? 'fresh' : '', dataset: {job: key, state: st}},
      h('td', {'data-label': 'Name'},
        h('a', {class: 'job-link', href: pagePath(j.username, j.name)}, j.name)),
      h('td', {'data-label': 'State'}, pill(st)),
      h('td', {'data-label': 'User'}, j.username),
      h('td', {'data-label': 'Submitted'}, timeEl(j.createdTime)),
      h('td', {'data-label': 'Duration', class: 'num'},
        since(j.createdTime, isFinal(st) ? j.completedTime : null)),
      h('td', {'data-label': 'Tasks', class: 'num'}, String(j.totalTaskNumber)),
      h('td', {'data-label': 'Retries', class: 'num'}, String(j.retries)));
  }

  return follow('/api/v1/jobs', (jobs) => {
    view.jobs = Array.isArray(jobs) ? jobs : [];
    draw();
  }, (state) => {
    live.className = `live ${state}`;
    live.textContent = state === 'live' ? 'Live' : 'Reconnecting…';
  });
}
