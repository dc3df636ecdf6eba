// @ts-check
// The pult's page: the folder's files, the question, the run as it happens, the answer and the proposed files.
// Everything from a model's reply is put in as text; the answer's HTML comes from the server's markdown renderer,
// which keeps raw HTML as text, and the page's CSP runs no script but this one.

/** @typedef {{ path: string, status: string, added: number, removed: number, written: boolean, reason?: string, diff?: string, base?: string, backupSet?: string }} FileView */
/** @typedef {{ id: number, question: string, attached: string[], bridge: string, state: string, log: string[], waiting?: { step: number, since: number, received: number, thinking: number }, answerHtml?: string, stop?: string, error?: string, files: FileView[] }} RunView */
/** @typedef {{ name: string, path: string, dirs: Map<string, Folder>, files: Array<{ name: string, path: string, size: number }>, count: number }} Folder */

const token = new URLSearchParams(location.search).get('token') ?? '';
/** @type {Set<string>} */
const selected = new Set();
/** @type {Map<number, RunView>} */
const runs = new Map();
/** @type {Folder} */
let rootFolder = { name: '', path: '', dirs: new Map(), files: [], count: 0 };
/** @type {string[]} */
let allPaths = [];

/** @param {string} id */
function $(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`no #${id}`);
  return el;
}

/**
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @param {Array<Node | string>} [children]
 */
function h(tag, attrs = {}, children = []) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const child of children) el.append(child);
  return el;
}

/**
 * @param {'GET' | 'POST'} method
 * @param {string} route
 * @param {unknown} [body]
 * @returns {Promise<unknown>}
 */
async function api(method, route, body) {
  const res = await fetch(route, {
    method,
    headers: { 'x-deepwork-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  /** @type {unknown} */
  const value = await res.json();
  if (!res.ok) {
    const error = isRecord(value) && typeof value.error === 'string' ? value.error : `HTTP ${res.status}`;
    throw new Error(error);
  }
  return value;
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @param {number} bytes */
function size(bytes) {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1048576).toFixed(1)} MB`;
}

// ---- the file tree ----

/** @param {Array<[string, number]>} files */
function buildTree(files) {
  /** @type {Folder} */
  const root = { name: '', path: '', dirs: new Map(), files: [], count: 0 };
  for (const [path, bytes] of files) {
    const parts = path.split('/');
    let folder = root;
    folder.count++;
    for (const part of parts.slice(0, -1)) {
      let next = folder.dirs.get(part);
      if (next === undefined) {
        next = { name: part, path: folder.path === '' ? part : `${folder.path}/${part}`, dirs: new Map(), files: [], count: 0 };
        folder.dirs.set(part, next);
      }
      folder = next;
      folder.count++;
    }
    folder.files.push({ name: parts.at(-1) ?? path, path, size: bytes });
  }
  return root;
}

/** @param {string} path @param {string} label @param {number} bytes */
function fileItem(path, label, bytes) {
  const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'aria-label': path, 'data-path': path }));
  box.checked = selected.has(path);
  box.addEventListener('change', () => {
    if (box.checked) selected.add(path);
    else selected.delete(path);
    showSelected();
  });
  return h('li', { role: 'treeitem' }, [h('label', {}, [box, ` ${label}`]), h('span', { class: 'size' }, [size(bytes)])]);
}

/** @param {Folder} folder */
function folderList(folder) {
  const list = h('ul', { role: 'group' });
  for (const dir of [...folder.dirs.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const children = h('ul', { role: 'group', hidden: '' });
    const toggle = h('button', { type: 'button', class: 'folder', 'aria-expanded': 'false', 'aria-label': `Open folder ${dir.path}` }, [`▸ ${dir.name}/`]);
    let filled = false;
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      if (open && !filled) {
        children.replaceWith(folderList(dir));
        filled = true;
      }
      const shown = /** @type {HTMLElement} */ (toggle.parentElement?.querySelector(':scope > ul'));
      shown.hidden = !open;
      toggle.setAttribute('aria-expanded', String(open));
      toggle.setAttribute('aria-label', `${open ? 'Close' : 'Open'} folder ${dir.path}`);
      toggle.textContent = `${open ? '▾' : '▸'} ${dir.name}/`;
    });
    list.append(h('li', { role: 'treeitem' }, [toggle, h('span', { class: 'size' }, [`${dir.count} file${dir.count === 1 ? '' : 's'}`]), children]));
  }
  for (const file of folder.files) list.append(fileItem(file.path, file.name, file.size));
  return list;
}

/** @type {Map<string, number>} */
const sizes = new Map();

function showTree() {
  const filter = /** @type {HTMLInputElement} */ ($('filter')).value.trim().toLowerCase();
  const tree = $('tree');
  if (filter === '') {
    tree.replaceChildren(folderList(rootFolder));
    return;
  }
  const matches = allPaths.filter((p) => p.toLowerCase().includes(filter));
  const list = h('ul', { role: 'group' }, matches.slice(0, 300).map((p) => fileItem(p, p, sizes.get(p) ?? 0)));
  const more = matches.length > 300 ? [h('p', {}, [`… ${matches.length - 300} more; type more of the path`])] : [];
  tree.replaceChildren(list, ...more);
}

function showSelected() {
  $('selected').textContent = selected.size === 0
    ? 'No files ticked: the model asks for what it needs.'
    : `${selected.size === 1 ? '1 file goes' : `${selected.size} files go`} with the question: ${[...selected].join(', ')}`;
}

// ---- runs ----

/** @param {string} diff */
function diffView(diff) {
  const pre = h('pre', { class: 'diff' });
  for (const line of diff.split('\n')) {
    const cls = line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
    pre.append(h('span', cls === '' ? {} : { class: cls }, [`${line}\n`]));
  }
  return pre;
}

/** @param {RunView} run @param {FileView} file */
function fileView(run, file) {
  const counts = file.status === 'changed' || file.status === 'held back' ? ` +${file.added} −${file.removed}` : file.status === 'new' ? ` +${file.added}` : '';
  const item = h('li', {}, [h('span', { class: `badge ${file.status.split(' ')[0] ?? ''}` }, [file.status]), h('code', {}, [file.path]), counts]);
  if (file.reason !== undefined) item.append(h('div', { class: 'reason' }, [file.reason]));
  if (file.diff !== undefined && file.diff !== '') item.append(h('details', {}, [h('summary', {}, ['Diff']), diffView(file.diff)]));
  if (file.written) {
    const set = file.backupSet?.split(/[\\/]/).pop();
    const undo = h('button', { type: 'button', 'aria-label': `Undo writing ${file.path}` }, ['Undo']);
    undo.addEventListener('click', () => void api('POST', '/api/undo', set === undefined ? {} : { set }).catch(showError));
    item.append(h('p', { class: 'written' }, [`written${file.backupSet ? `; previous version in ${file.backupSet}` : ''} `, undo]));
  } else if (file.status === 'new' || file.status === 'changed' || file.status === 'held back') {
    const force = file.status === 'held back';
    const write = h('button', { type: 'button', 'aria-label': `Write ${file.path}${force ? ' anyway' : ''}` }, [force ? 'Write anyway' : 'Write']);
    write.addEventListener('click', () => void api('POST', '/api/write', { run: run.id, path: file.path, base: file.base ?? '', force }).catch(showError));
    item.append(write);
  }
  return item;
}

/** @param {RunView} run */
function runView(run) {
  const log = h('ol', { class: 'log' }, run.log.map((line) => h('li', {}, [line])));
  if (run.waiting !== undefined) log.append(h('li', { class: 'waiting', 'data-since': String(run.waiting.since), 'data-step': String(run.waiting.step) }, [waitingText(run.waiting)]));
  const parts = [h('h3', {}, [`${run.id}. ${run.question}`]), h('p', { class: 'meta' }, [`${run.bridge}${run.attached.length > 0 ? `; with ${run.attached.join(', ')}` : ''}`]), log];
  if (run.answerHtml !== undefined) {
    const answer = h('div', { class: 'answer' });
    answer.innerHTML = run.answerHtml;
    parts.push(answer);
  }
  if (run.error !== undefined && run.state !== 'stopped') parts.push(h('p', { class: 'error', role: 'alert' }, [run.error]));
  if (run.files.length > 0) parts.push(h('h4', {}, ['Proposed files']), h('ul', { class: 'files' }, run.files.map((f) => fileView(run, f))));
  return h('article', { class: 'run', id: `run-${run.id}`, 'data-state': run.state }, parts);
}

/** @param {{ step: number, since: number, received: number, thinking: number }} waiting */
function waitingText({ step, since, received, thinking }) {
  const seconds = Math.max(0, Math.round((Date.now() - since) / 1000));
  const thoughts = thinking > 0 ? `, thinking, ${thinking.toLocaleString('en-US')} characters` : '';
  return `Step ${step}: waiting ${seconds} s${thoughts}${received > 0 ? `, ${received.toLocaleString('en-US')} characters so far` : ''}…`;
}

/** @param {RunView} run */
function showRun(run) {
  runs.set(run.id, run);
  const view = runView(run);
  const old = document.getElementById(`run-${run.id}`);
  if (old === null) $('runs').append(view);
  else old.replaceWith(view);
  const running = [...runs.values()].some((r) => r.state === 'running');
  /** @type {HTMLButtonElement} */ ($('ask')).disabled = running;
  /** @type {HTMLButtonElement} */ ($('stop')).disabled = !running;
}

/** @param {unknown} error */
function showError(error) {
  const text = error instanceof Error ? error.message : String(error);
  $('runs').append(h('p', { class: 'error', role: 'alert' }, [text]));
}

setInterval(() => {
  for (const el of document.querySelectorAll('.waiting')) {
    const run = runs.get(Number(el.closest('.run')?.id.slice(4)));
    if (run?.waiting !== undefined) el.textContent = waitingText(run.waiting);
  }
}, 1000);

// ---- the bridge ----

async function check() {
  // The old state's class goes at once: until the answer comes, nothing on the page says ready, idle or down.
  $('bridge-state').textContent = 'checking…';
  $('bridge-state').className = 'state checking';
  try {
    const report = /** @type {{ state: string, message: string }} */ (await api('GET', '/api/check'));
    $('bridge-state').textContent = report.state;
    $('bridge-state').className = `state ${report.state}`;
    const hint = report.state === 'down' ? ' Choose the demo bridge above to try deepwork without a model.' : '';
    $('bridge-message').textContent = report.message + hint;
  } catch (error) {
    showError(error);
  }
}

function connect() {
  const ws = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  ws.addEventListener('open', () => ws.send(JSON.stringify({ type: 'hello' })));
  ws.addEventListener('message', (event) => {
    /** @type {unknown} */
    const message = JSON.parse(String(event.data));
    if (!isRecord(message)) return;
    if (message.type === 'run' && isRecord(message.run)) showRun(/** @type {RunView} */ (message.run));
    else if (message.type === 'progress' && typeof message.id === 'number' && typeof message.received === 'number') {
      const run = runs.get(message.id);
      if (run?.waiting !== undefined) {
        run.waiting.received = message.received;
        run.waiting.thinking = typeof message.thinking === 'number' ? message.thinking : 0;
      }
    }
  });
  ws.addEventListener('close', () => setTimeout(connect, 1000));
}

async function start() {
  const state = /** @type {{ rootName: string, steps: number, bridge: { label: string, demo: string }, runs: RunView[] }} */ (await api('GET', '/api/state'));
  $('root-name').textContent = `— ${state.rootName}`;
  document.title = `deepwork — ${state.rootName}`;
  /** @type {HTMLInputElement} */ ($('steps')).value = String(state.steps);
  const choice = /** @type {HTMLSelectElement} */ ($('bridge-choice'));
  choice.replaceChildren(h('option', { value: 'configured' }, [state.bridge.label]), h('option', { value: 'demo' }, [state.bridge.demo]));
  for (const run of state.runs) showRun(run);
  connect();
  void check();
  const tree = /** @type {{ files: Array<[string, number]>, total: number }} */ (await api('GET', '/api/tree'));
  allPaths = tree.files.map((f) => f[0]);
  for (const [p, bytes] of tree.files) sizes.set(p, bytes);
  rootFolder = buildTree(tree.files);
  $('file-count').textContent = `(${tree.total.toLocaleString('en-US')})`;
  showTree();
}

$('filter').addEventListener('input', showTree);
$('check').addEventListener('click', () => void check());
$('stop').addEventListener('click', () => void api('POST', '/api/stop', {}).catch(showError));
$('ask-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const question = /** @type {HTMLTextAreaElement} */ ($('question')).value.trim();
  if (question === '') return;
  const steps = Number(/** @type {HTMLInputElement} */ ($('steps')).value);
  const demo = /** @type {HTMLSelectElement} */ ($('bridge-choice')).value === 'demo';
  void api('POST', '/api/ask', { question, files: [...selected], steps, demo }).catch(showError);
});
$('question').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    /** @type {HTMLFormElement} */ ($('ask-form')).requestSubmit();
  }
});
void start().catch(showError);
