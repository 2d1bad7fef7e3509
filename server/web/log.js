// log.js - a task's log (stdout or stderr), as text: its last part
// first, then what the task writes, through the long-poll on the log
// (a GET with "Range: bytes=N-" and ?wait=MS, answered once there is
// more). Scrolled to the end, it follows the end; scrolled up, it keeps
// its place and offers to jump to the end.
import {request, sleep, MIN_GAP_MS} from './api.js';
import {h} from './ui.js';

const FIRST_BYTES = 256 * 1024; // shown at first: the end of a long log
const KEEP_CHARS = 4 * 1024 * 1024; // the most kept on the page
const WAIT_MS = 25000;
// colours and cursor moves of a terminal: not text
const CSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

// A view of the log at url (a /api/v1/local/logs/... file); live() says
// whether the task may still write to it.
export function logView(url, live) {
  const text = document.createTextNode('');
  const pre = h('pre', {class: 'log', tabindex: '0', 'aria-label': 'Log',
    'aria-live': 'off'}, text);
  const note = h('p', {class: 'log-note', hidden: true});
  const jump = h('button', {type: 'button', class: 'button small jump', hidden: true,
    onclick: () => { pre.scrollTop = pre.scrollHeight; jump.hidden = true; }},
  'New output ↓');
  const status = h('span', {class: 'log-status muted'}, 'Loading…');
  const el = h('div', {class: 'log-view'}, note, h('div', {class: 'log-box'}, pre, jump), status);
  const decoder = new TextDecoder('utf-8');
  let offset = 0, stopped = false;

  pre.addEventListener('scroll', () => { if (atEnd()) jump.hidden = true; });

  function atEnd() {
    return pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 8;
  }

  function add(bytes, last) {
    const s = decoder.decode(bytes, {stream: !last}).replace(CSI, '');
    if (!s) return;
    const follow = atEnd();
    text.appendData(s);
    if (text.length > KEEP_CHARS) {
      text.deleteData(0, text.length - KEEP_CHARS);
      showNote('Earlier output is not shown: the page keeps the last 4 MiB.');
    }
    if (follow) pre.scrollTop = pre.scrollHeight;
    else jump.hidden = false;
  }

  function showNote(s) {
    note.textContent = s;
    note.hidden = false;
  }

  // One GET of range; {bytes, from, size} or null for nothing there.
  async function get(range, wait) {
    const r = await request('GET', wait ? `${url}?wait=${WAIT_MS}` : url,
      {headers: {Range: range}});
    if (r.status === 416 || r.status === 404) {
      await r.arrayBuffer();
      return r.status === 416 ? {bytes: null} : null;
    }
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    const bytes = new Uint8Array(await r.arrayBuffer());
    const cr = /bytes (\d+)-(\d+)\/(\d+)/.exec(r.headers.get('Content-Range') || '');
    return {bytes, from: cr ? Number(cr[1]) : 0};
  }

  async function run() {
    let got = await get(`bytes=-${FIRST_BYTES}`, false);
    if (got === null) {
      status.textContent = live() ? 'No output yet' : 'No log';
    } else if (got.bytes) {
      if (got.from > 0) showNote(`The first ${got.from.toLocaleString()} bytes are not shown.`);
      offset = got.from + got.bytes.length;
      add(got.bytes, false);
    }
    let quiet = 0;
    // while the task may write, and once after: its last words
    for (let more = live(); !stopped && (more || quiet === 0); more = live()) {
      if (!more) quiet++;
      status.textContent = more ? 'Following' : 'Complete';
      status.className = more ? 'log-status live' : 'log-status muted';
      const began = Date.now();
      try {
        got = await get(`bytes=${offset}-`, more);
        if (got && got.bytes) {
          offset += got.bytes.length;
          add(got.bytes, false);
          quiet = 0;
        }
      } catch {
        status.textContent = 'Reconnecting…';
        await sleep(3000);
      }
      await sleep(Math.max(0, MIN_GAP_MS - (Date.now() - began)));
    }
    add(new Uint8Array(0), true);
    if (!stopped) {
      status.textContent = text.length ? 'Complete' : 'Empty';
      status.className = 'log-status muted';
    }
  }

  run().catch(() => { status.textContent = 'Cannot read this log'; });
  return {el, stop: () => { stopped = true; }};
}
