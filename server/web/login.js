// login.js - signing in: with the login form of `paictl serve --listen
// ADDR --users FILE`'s accounts, or, on paictl web's own listener, with
// the link it prints (good once, for two minutes).
import {json, setSessionKey} from './api.js';
import {h, fill} from './ui.js';

export function showSignIn(main, kind) {
  document.title = 'Sign in · paictl';
  if (kind === 'password') return passwordForm(main);
  const used = new URLSearchParams(location.search).has('token');
  fill(main, h('div', {class: 'card signin'},
    h('h1', {}, used ? 'This link has expired' : 'Sign in'),
    h('p', {}, used
      ? 'A login link works once, within two minutes of being printed.'
      : 'These pages belong to your local cluster.'),
    h('p', {}, 'Run this on the machine of the cluster: it prints a link that signs you in, and opens it.'),
    h('pre', {class: 'command'}, 'paictl web')));
}

function passwordForm(main) {
  const user = h('input', {id: 'username', name: 'username', autocomplete: 'username', required: true});
  const pass = h('input', {id: 'password', name: 'password', type: 'password',
    autocomplete: 'current-password', required: true});
  const err = h('p', {class: 'error', role: 'alert'});
  const form = h('form', {class: 'card signin'},
    h('h1', {}, 'Sign in'),
    h('p', {class: 'muted'}, 'With an account of this cluster.'),
    h('label', {for: 'username'}, 'User'), user,
    h('label', {for: 'password'}, 'Password'), pass,
    err,
    h('button', {type: 'submit', class: 'button primary'}, 'Sign in'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.textContent = '';
    try {
      const r = await json('POST', '/web/api/login', {type: 'application/json',
        body: JSON.stringify({username: user.value, password: pass.value})});
      setSessionKey(r.data.key);
      location.reload();
    } catch (ex) {
      err.textContent = ex.message;
      pass.select();
    }
  });
  fill(main, form);
  user.focus();
}
