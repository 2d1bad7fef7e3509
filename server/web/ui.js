// ui.js - building the pages. Everything shown is made of elements and
// text nodes: a job's name, its logs, diagnostics and config reach the
// page as text, never as HTML (the server's CSP makes every setter that
// parses a string as HTML throw, through Trusted Types).

// h('a', {href: '/', class: 'x'}, 'text', child, ...): an element with
// properties (on* ones as listeners) and children (strings as text).
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// Replaces el's children.
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// The states, in words and as a class for their colour.
const STATES = {
  WAITING: 'waiting', RUNNING: 'running', STOPPING: 'stopping',
  SUCCEEDED: 'succeeded', FAILED: 'failed', STOPPED: 'stopped',
};

export function stateOf(status) {
  // v1's status says STOPPING as RUNNING with executionType STOP
  if (status.state === 'RUNNING' && status.executionType === 'STOP') return 'STOPPING';
  return status.state || 'UNKNOWN';
}

export function pill(state) {
  const cls = STATES[state] || 'unknown';
  return h('span', {class: `pill ${cls}`},
    h('span', {class: 'dot', 'aria-hidden': 'true'}),
    state.charAt(0) + state.slice(1).toLowerCase());
}

export function isFinal(state) {
  return state === 'SUCCEEDED' || state === 'FAILED' || state === 'STOPPED';
}

const pad = (n) => String(n).padStart(2, '0');

// "2026-11-22 05:12:03", as paictl prints times; "–" for none.
export function time(ms) {
  if (!ms) return '–';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function timeEl(ms) {
  if (!ms) return h('span', {class: 'muted'}, '–');
  return h('time', {datetime: new Date(ms).toISOString()}, time(ms));
}

// "3h 04m", "4m 05s", "12s".
export function duration(ms) {
  if (ms === null || ms === undefined || ms < 0) return '–';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${pad(s % 60)}s`;
  const hr = Math.floor(m / 60);
  if (hr < 24) return `${hr}h ${pad(m % 60)}m`;
  return `${Math.floor(hr / 24)}d ${pad(hr % 24)}h`;
}

// A span whose text is the time from start to end, or to now while
// there is no end: redrawn by tick(), from what the page has.
export function since(start, end) {
  const el = h('span', {class: 'duration'});
  el.dataset.start = start || '';
  el.dataset.end = end || '';
  drawSince(el);
  return el;
}

function drawSince(el) {
  const start = Number(el.dataset.start), end = Number(el.dataset.end);
  el.textContent = start ? duration((end || Date.now()) - start) : '–';
}

// Once a second: the running durations (no request is made for them).
export function tick() {
  for (const el of document.querySelectorAll('.duration')) {
    if (!el.dataset.end) drawSince(el);
  }
}

// A button that copies text, and says so.
export function copyButton(text, label = 'Copy') {
  const b = h('button', {type: 'button', class: 'button small ghost',
    'aria-label': `${label}: ${text}`}, label);
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = 'Copied';
    } catch {
      // no clipboard (plain http on another host): select it instead
      const sel = window.getSelection();
      const code = b.previousElementSibling;
      if (code) { sel.selectAllChildren(code); }
      b.textContent = 'Selected';
    }
    setTimeout(() => { b.textContent = label; }, 1500);
  });
  return b;
}

// A modal question; resolves true when the person confirms.
export function confirmDialog(title, text, yes) {
  return new Promise((resolve) => {
    const d = h('dialog', {class: 'dialog', 'aria-labelledby': 'dlg-title'},
      h('h2', {id: 'dlg-title'}, title),
      h('p', {}, text),
      h('form', {method: 'dialog', class: 'actions'},
        h('button', {value: 'no', class: 'button ghost'}, 'Cancel'),
        h('button', {value: 'yes', class: 'button danger'}, yes)));
    d.addEventListener('close', () => {
      resolve(d.returnValue === 'yes');
      d.remove();
    });
    document.body.append(d);
    d.showModal();
    d.querySelector('button[value=no]').focus();
  });
}

// A message at the top of the page: error, info.
export function banner(kind, ...text) {
  const box = document.getElementById('banner') ||
    document.body.insertBefore(h('div', {id: 'banner', role: 'status'}),
      document.getElementById('main'));
  fill(box, h('p', {class: `notice ${kind}`}, ...text));
}

export function clearBanner() {
  const box = document.getElementById('banner');
  if (box) box.replaceChildren();
}
