// The folder's files as a tree with ticks: a file's tick sends it with the question, a folder's ticks all under it.
// Folders are drawn when opened, so a folder of 30,000 files shows its top level at once; the filter lists matches.
// The sizes come after the names (GET /api/tree/sizes): the tree is drawn without them, and they are filled in.

import { $, $of, h, setText } from './dom.js';
import { saveDraft } from './drafts.js';
import { pult, selected } from './state.js';
import { fmt, size, t } from './strings.js';

/** @typedef {{ name: string, path: string, dirs: Map<string, Folder>, files: Array<{ name: string, path: string }>, count: number, bytes: number }} Folder */

// The files as the server listed them, and as folders; their sizes once they came (a folder's `bytes` counts then).
const files = {
  /** @type {Folder} */
  top: { name: '', path: '', dirs: new Map(), files: [], count: 0, bytes: 0 },
  /** @type {string[]} */
  paths: [],
  /** @type {Set<string>} */
  listed: new Set(),
  /** @type {Map<string, number> | undefined} */
  sizes: undefined,
};

// The folder's files as the tree shows them, their sizes to come; `total` counts those past the list too.
/** @param {string[]} list @param {number} total */
export function takeFiles(list, total) {
  files.paths = list;
  files.listed = new Set(list);
  files.sizes = undefined;
  files.top = buildTree(list);
  $('file-count').textContent = `(${fmt(total)})`;
}

// The sizes of the files taken last, in their order: the folders' totals summed, and shown where drawn.
/** @param {number[]} sizes */
export function takeSizes(sizes) {
  const known = new Map();
  for (let i = 0; i < files.paths.length; i++) known.set(files.paths[i], sizes[i] ?? 0);
  files.sizes = known;
  sumBytes(files.top, known);
  for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#tree input[data-path]')))
    showSize(box, fileSize(box.dataset.path ?? ''));
  for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (
    document.querySelectorAll('#tree input[data-folder]')
  )) {
    const dir = folderAt(box.dataset.folder ?? '');
    if (dir !== undefined) showSize(box, folderSize(dir));
  }
  showSelected();
}

/** @param {Folder} folder @param {Map<string, number>} known */
function sumBytes(folder, known) {
  folder.bytes = 0;
  for (const dir of folder.dirs.values()) folder.bytes += sumBytes(dir, known);
  for (const file of folder.files) folder.bytes += known.get(file.path) ?? 0;
  return folder.bytes;
}

/** @param {HTMLInputElement} box @param {string} text */
function showSize(box, text) {
  const shown = box.closest('.row')?.querySelector('.size');
  if (shown) setText(/** @type {HTMLElement} */ (shown), text);
}

// A file's size as a row shows it: nothing until the sizes came.
/** @param {string} path */
function fileSize(path) {
  const bytes = files.sizes?.get(path);
  return bytes === undefined ? '' : size(bytes);
}

/** @param {Folder} dir */
function folderSize(dir) {
  return files.sizes === undefined ? t('fileCount')(dir.count) : `${t('fileCount')(dir.count)}, ${size(dir.bytes)}`;
}

// Ticks the files the folder still has, as a draft kept them.
/** @param {string[]} paths */
export function tickKept(paths) {
  for (const p of paths) if (files.listed.has(p)) selected.add(p);
}

// The folders of the listed paths, each with the count of files under it; a path is cut at its slashes in place
// (50,000 paths: split and slice took about twice as long, warm, in V8).
/** @param {string[]} list */
function buildTree(list) {
  /** @type {Folder} */
  const top = { name: '', path: '', dirs: new Map(), files: [], count: 0, bytes: 0 };
  for (const path of list) {
    let folder = top;
    folder.count++;
    let from = 0;
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', from)) {
      const part = path.slice(from, slash);
      let next = folder.dirs.get(part);
      if (next === undefined) {
        next = { name: part, path: path.slice(0, slash), dirs: new Map(), files: [], count: 0, bytes: 0 };
        folder.dirs.set(part, next);
      }
      folder = next;
      folder.count++;
      from = slash + 1;
    }
    folder.files.push({ name: path.slice(from), path });
  }
  return top;
}

/** @param {string} folderPath */
function filesUnder(folderPath) {
  const prefix = `${folderPath}/`;
  return files.paths.filter((p) => p.startsWith(prefix));
}

/** @param {string} path @param {string} label */
function fileItem(path, label) {
  const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'aria-label': path, 'data-path': path }));
  box.checked = selected.has(path);
  box.addEventListener('change', () => {
    if (box.checked) selected.add(path);
    else selected.delete(path);
    afterTicking();
  });
  return h('li', { role: 'treeitem' }, [
    h('div', { class: 'row' }, [box, h('label', {}, [label]), h('span', { class: 'size' }, [fileSize(path)])]),
  ]);
}

// Counted over the ticked files, not the listed ones: each folder drawn asked every path of the list (45 top
// folders of the corpus: 1.3 million comparisons).
/** @param {Folder} dir @param {HTMLInputElement} box */
function showFolderBox(dir, box) {
  const prefix = `${dir.path}/`;
  let ticked = 0;
  for (const p of selected) if (p.startsWith(prefix) && files.listed.has(p)) ticked++;
  box.checked = ticked > 0 && ticked === dir.count;
  box.indeterminate = ticked > 0 && ticked < dir.count;
}

/** @param {Folder} folder */
function folderList(folder) {
  const list = h('ul', { role: 'group' });
  for (const dir of [...folder.dirs.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const children = h('ul', { role: 'group', hidden: '' });
    const box = /** @type {HTMLInputElement} */ (
      h('input', { type: 'checkbox', 'aria-label': t('folderBox')(dir.path), 'data-folder': dir.path })
    );
    showFolderBox(dir, box);
    box.addEventListener('change', () => {
      for (const p of filesUnder(dir.path)) {
        if (box.checked) selected.add(p);
        else selected.delete(p);
      }
      afterTicking();
    });
    const toggle = h(
      'button',
      {
        type: 'button',
        class: 'folder',
        'aria-expanded': 'false',
        'aria-label': t('openFolder')(dir.path),
        'data-opens': dir.path,
      },
      [`▸ ${dir.name}/`],
    );
    let filled = false;
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      const item = toggle.closest('li');
      if (open && !filled) {
        item?.querySelector(':scope > ul')?.replaceWith(folderList(dir));
        filled = true;
      }
      const shown = /** @type {HTMLElement | null | undefined} */ (item?.querySelector(':scope > ul'));
      if (shown) shown.hidden = !open;
      toggle.setAttribute('aria-expanded', String(open));
      toggle.setAttribute('aria-label', (open ? t('closeFolder') : t('openFolder'))(dir.path));
      setText(toggle, `${open ? '▾' : '▸'} ${dir.name}/`);
    });
    list.append(
      h('li', { role: 'treeitem' }, [
        h('div', { class: 'row' }, [box, toggle, h('span', { class: 'size' }, [folderSize(dir)])]),
        children,
      ]),
    );
  }
  for (const file of folder.files) list.append(fileItem(file.path, file.name));
  return list;
}

export function showTree() {
  const filter = $of('filter', HTMLInputElement).value.trim().toLowerCase();
  const tree = $('tree');
  const cleared = filter === '' && lastFilter !== '';
  lastFilter = filter;
  if (filter === '') {
    tree.replaceChildren(folderList(files.top));
    // A file ticked from the filter's list stays in sight when the filter is cleared: its folders are opened.
    if (cleared && selected.size <= REVEAL) for (const p of selected) reveal(p);
    return;
  }
  const matches = files.paths.filter((p) => p.toLowerCase().includes(filter));
  const list = h(
    'ul',
    { role: 'group' },
    matches.slice(0, 300).map((p) => fileItem(p, p)),
  );
  const more = matches.length > 300 ? [h('p', { class: 'small muted' }, [t('more')(matches.length - 300)])] : [];
  tree.replaceChildren(list, ...more);
}

// The filter the tree was last drawn with, and how many ticked files are shown by opening their folders at most.
let lastFilter = '';
const REVEAL = 20;

// Opens every folder on the way to a file.
/** @param {string} path */
function reveal(path) {
  const parts = path.split('/').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const folder = parts.slice(0, i).join('/');
    const toggle = [
      .../** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('#tree button[data-opens]')),
    ].find((b) => b.dataset.opens === folder);
    if (toggle?.getAttribute('aria-expanded') === 'false') toggle.click();
  }
}

function afterTicking() {
  showSelected();
  for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (
    document.querySelectorAll('#tree input[data-folder]')
  )) {
    const dir = folderAt(box.dataset.folder ?? '');
    if (dir !== undefined) showFolderBox(dir, box);
  }
  for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#tree input[data-path]')))
    box.checked = selected.has(box.dataset.path ?? '');
  saveDraft();
}

/** @param {string} path */
function folderAt(path) {
  let folder = files.top;
  for (const part of path.split('/')) {
    const next = folder.dirs.get(part);
    if (next === undefined) return undefined;
    folder = next;
  }
  return folder;
}

// How many files are ticked, their size, and whether that is past what one step sends.
export function showSelected() {
  const el = $('selected');
  if (selected.size === 0) {
    el.textContent = t('noneTicked');
    el.classList.remove('over');
    return;
  }
  // Until the sizes came, the count alone can say the ticks are past what one step sends.
  const sizes = files.sizes;
  const bytes = sizes === undefined ? undefined : [...selected].reduce((sum, p) => sum + (sizes.get(p) ?? 0), 0);
  const over = (bytes !== undefined && bytes > pult.limits.needChars) || selected.size > pult.limits.needPaths;
  el.textContent =
    t('ticked')(selected.size, bytes === undefined ? '…' : size(bytes)) +
    (over ? t('overBudget')(pult.limits.needChars, pult.limits.needPaths) : '');
  el.classList.toggle('over', over);
}
