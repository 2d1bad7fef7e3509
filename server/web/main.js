// main.js - the local cluster's pages (paictl web): who is signed in,
// then the page the path names: / (the jobs), /job/USER/NAME (a job),
// /submit. Links are plain links: every page is a page of its own.
import {json, request, onSignedOut, setSessionKey} from './api.js';
import {h, fill, banner, tick} from './ui.js';
import {showList} from './list.js';
import {showJob} from './job.js';
import {showSubmit} from './submit.js';
import {showSignIn} from './login.js';

// {signedIn, user, admin, login}: login says how one signs in here
async function session() {
  const r = await request('GET', '/web/api/session');
  const data = await r.json();
  if (r.status !== 200 && r.status !== 401) throw new Error(data.message || `HTTP ${r.status}`);
  return {signedIn: r.status === 200, ...data};
}

function who(s) {
  const box = document.getElementById('who');
  if (!s.signedIn) return fill(box);
  const out = s.login === 'password' ? h('button', {type: 'button', class: 'button small ghost',
    onclick: async () => {
      await json('POST', '/web/api/logout').catch(() => {});
      setSessionKey(null);
      location.assign('/');
    }}, 'Sign out') : null;
  return fill(box, h('span', {class: 'user', title: s.admin ? 'may act on every job' : null}, s.user), out);
}

function mark(id) {
  for (const a of document.querySelectorAll('.top nav a')) {
    if (a.id === id) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

async function start() {
  const main = document.getElementById('main');
  let s;
  try {
    s = await session();
  } catch (err) {
    banner('error', `The local cluster does not answer: ${err.message}`);
    return;
  }
  if (!s.signedIn) {
    who(s);
    showSignIn(main, s.login);
    return;
  }
  who(s);
  onSignedOut(() => banner('error', 'Signed out: the session ended. ',
    s.login === 'password' ? 'Reload to sign in again.' : 'Run paictl web for a new link.'));
  setInterval(tick, 1000);
  const path = location.pathname;
  const m = /^\/job\/([^/]+)\/([^/]+)$/.exec(path);
  if (path === '/') {
    mark('nav-jobs');
    document.title = 'Jobs · paictl';
    showList(main);
  } else if (path === '/submit') {
    mark('nav-submit');
    document.title = 'Submit a job · paictl';
    showSubmit(main, s);
  } else if (m) {
    const [user, name] = [decodeURIComponent(m[1]), decodeURIComponent(m[2])];
    mark('nav-jobs');
    document.title = `${name} · paictl`;
    showJob(main, s, user, name);
  } else {
    fill(main, h('h1', {}, 'No such page'), h('p', {}, h('a', {href: '/'}, 'All jobs')));
  }
}

start();
