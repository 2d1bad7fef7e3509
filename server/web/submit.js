// submit.js - the Submit page: a config pasted or read from a file,
// checked by the server with `paictl validate`'s rules and shown with
// its file:line:col diagnostics, then submitted through the REST API
// of its format (v1 JSON: /api/v1; protocol-v2 YAML: /api/v2).
import {json, pagePath} from './api.js';
import {h, fill} from './ui.js';

// What `paictl validate` prints for d: its line, the source and a caret.
function diagText(d) {
  const where = d.line ? `${d.file}:${d.line}:${d.column}` : d.file;
  let s = `${where}: ${d.severity}: ${d.path ? `${d.path}: ` : ''}${d.message} [${d.rule}]`;
  if (d.excerpt !== undefined) {
    const pad = [...d.excerpt].slice(0, d.excerpt_column - 1)
      .map((c) => (c === '\t' ? '\t' : ' ')).join('');
    s += `\n${String(d.line).padStart(6)} | ${d.excerpt}\n       | ${pad}^`;
  }
  return s;
}

export function showSubmit(main, session) {
  let fileName = '';
  const text = h('textarea', {id: 'config', class: 'editor', spellcheck: 'false',
    autocapitalize: 'off', autocomplete: 'off', rows: '22',
    placeholder: '{\n  "jobName": "hello",\n  "image": "ubuntu",\n  "taskRoles": [ … ]\n}',
    'aria-describedby': 'config-help'});
  const file = h('input', {type: 'file', id: 'file', accept: '.json,.yaml,.yml,.jsonc,text/*'});
  const named = h('span', {class: 'muted', id: 'named'}, 'pasted');
  const check = h('button', {type: 'button', class: 'button', id: 'check'}, 'Check');
  const send = h('button', {type: 'submit', class: 'button primary', id: 'submit'}, 'Submit');
  const out = h('div', {class: 'results', id: 'results', 'aria-live': 'polite'});
  const form = h('form', {class: 'card submit-card'},
    h('div', {class: 'field-head'},
      h('label', {for: 'config'}, 'Job config'),
      h('span', {class: 'file-pick'}, h('label', {for: 'file', class: 'button small ghost'}, 'Choose file…'),
        file, named)),
    text,
    h('p', {id: 'config-help', class: 'muted'},
      'OpenPAI v1 JSON (comments allowed) or protocol-v2 YAML. It is checked with the rules of ',
      h('code', {}, 'paictl validate'), ', then submitted as ', h('strong', {}, session.user), '.'),
    h('div', {class: 'actions'}, check, send));

  file.addEventListener('change', async () => {
    const f = file.files[0];
    if (!f) return;
    text.value = await f.text();
    fileName = f.name;
    named.textContent = f.name;
    fill(out);
  });
  text.addEventListener('input', () => {
    if (fileName) named.textContent = `${fileName} (edited)`;
  });
  check.addEventListener('click', () => run(false));
  form.addEventListener('submit', (e) => { e.preventDefault(); run(true); });

  fill(main, h('div', {class: 'page-head'}, h('h1', {}, 'Submit a job')), form, out);
  text.focus();

  // Moves the caret of the editor to line:col of the config.
  function goTo(line, col) {
    const lines = text.value.split('\n');
    let pos = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) pos += lines[i].length + 1;
    pos += Math.max(0, col - 1);
    text.focus();
    text.setSelectionRange(pos, pos + 1);
  }

  function showDiags(r) {
    const name = r.diagnostics.length ? r.diagnostics[0].file : (fileName || '<pasted>');
    const plural = (n, w) => `${n} ${w}${n === 1 ? '' : 's'}`;
    fill(out, h('div', {class: `card diags ${r.errors ? 'bad' : 'good'}`},
      h('h2', {}, r.errors ? 'The config has errors' : 'The config is valid'),
      h('ul', {class: 'diag-list'}, r.diagnostics.map((d) =>
        h('li', {class: d.severity},
          h('button', {type: 'button', class: 'diag-go', disabled: !d.line,
            title: d.line ? `Go to line ${d.line}, column ${d.column}` : null,
            onclick: () => goTo(d.line, d.column)},
          h('pre', {}, diagText(d)))))),
      h('p', {class: 'mono total'},
        `${name}: ${plural(r.errors, 'error')}, ${plural(r.warnings, 'warning')}`)));
  }

  async function run(submit) {
    check.disabled = send.disabled = true;
    try {
      const name = fileName || '<pasted>';
      const v = await json('POST', `/web/api/validate?name=${encodeURIComponent(name)}`,
        {type: 'text/plain; charset=utf-8', body: text.value});
      showDiags(v.data);
      if (!submit || v.data.errors) return;
      const job = v.data.jobName;
      if (v.data.format === 'v2') {
        await json('POST', '/api/v2/jobs', {type: 'text/yaml; charset=utf-8', body: text.value});
      } else {
        await json('POST', `/api/v1/user/${encodeURIComponent(session.user)}/jobs`,
          {type: 'application/json', body: text.value});
      }
      location.assign(pagePath(session.user, job));
    } catch (err) {
      fill(out, h('div', {class: 'card diags bad'}, h('h2', {}, 'Not submitted'),
        h('p', {}, err.status === 409 ? `A job with this name exists already: ${err.message}` : err.message)));
    } finally {
      check.disabled = send.disabled = false;
    }
  }
}
