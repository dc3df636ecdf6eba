// The folder's files as a tree with ticks: a file's tick sends it with the question, a folder's ticks all under it.
// Folders are drawn when opened, so a folder of 30,000 files shows its top level at once; the filter lists matches.

import { $, $of, h, setText } from './dom.js';
import { saveDraft } from './drafts.js';
import { pult, selected } from './state.js';
import { fmt, size, t } from './strings.js';

/** @typedef {{ name: string, path: string, dirs: Map<string, Folder>, files: Array<{ name: string, path: string, size: number }>, count: number, bytes: number }} Folder */

// The files as the server listed them, and as folders.
const files = {
  /** @type {Folder} */
  top: { name: '', path: '', dirs: new Map(), files: [], count: 0, bytes: 0 },
  /** @type {string[]} */
  paths: [],
  /** @type {Map<string, number>} */
  sizes: new Map(),
};

// The folder's files (path and bytes) as the tree shows them; `total` counts those past the list too.
/** @param {Array<[string, number]>} list @param {number} total */
export function takeFiles(list, total) {
  files.paths = list.map((f) => f[0]);
  files.sizes = new Map(list);
  files.top = buildTree(list);
  $('file-count').textContent = `(${fmt(total)})`;
}

// Ticks the files the folder still has, as a draft kept them.
/** @param {string[]} paths */
export function tickKept(paths) {
  for (const p of paths) if (files.sizes.has(p)) selected.add(p);
}

/** @param {Array<[string, number]>} list */
function buildTree(list) {
  /** @type {Folder} */
  const top = { name: '', path: '', dirs: new Map(), files: [], count: 0, bytes: 0 };
  for (const [path, bytes] of list) {
    const parts = path.split('/');
    let folder = top;
    folder.count++;
    folder.bytes += bytes;
    for (const part of parts.slice(0, -1)) {
      let next = folder.dirs.get(part);
      if (next === undefined) {
        next = {
          name: part,
          path: folder.path === '' ? part : `${folder.path}/${part}`,
          dirs: new Map(),
          files: [],
          count: 0,
          bytes: 0,
        };
        folder.dirs.set(part, next);
      }
      folder = next;
      folder.count++;
      folder.bytes += bytes;
    }
    folder.files.push({ name: parts.at(-1) ?? path, path, size: bytes });
  }
  return top;
}

/** @param {string} folderPath */
function filesUnder(folderPath) {
  const prefix = `${folderPath}/`;
  return files.paths.filter((p) => p.startsWith(prefix));
}

/** @param {string} path @param {string} label @param {number} bytes */
function fileItem(path, label, bytes) {
  const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'aria-label': path, 'data-path': path }));
  box.checked = selected.has(path);
  box.addEventListener('change', () => {
    if (box.checked) selected.add(path);
    else selected.delete(path);
    afterTicking();
  });
  return h('li', { role: 'treeitem' }, [
    h('div', { class: 'row' }, [box, h('label', {}, [label]), h('span', { class: 'size' }, [size(bytes)])]),
  ]);
}

/** @param {Folder} dir @param {HTMLInputElement} box */
function showFolderBox(dir, box) {
  const under = filesUnder(dir.path);
  const ticked = under.filter((p) => selected.has(p)).length;
  box.checked = ticked > 0 && ticked === under.length;
  box.indeterminate = ticked > 0 && ticked < under.length;
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
    const sizeText = `${t('fileCount')(dir.count)}, ${size(dir.bytes)}`;
    list.append(
      h('li', { role: 'treeitem' }, [
        h('div', { class: 'row' }, [box, toggle, h('span', { class: 'size' }, [sizeText])]),
        children,
      ]),
    );
  }
  for (const file of folder.files) list.append(fileItem(file.path, file.name, file.size));
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
    matches.slice(0, 300).map((p) => fileItem(p, p, files.sizes.get(p) ?? 0)),
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
  const bytes = [...selected].reduce((sum, p) => sum + (files.sizes.get(p) ?? 0), 0);
  const over = bytes > pult.limits.needChars || selected.size > pult.limits.needPaths;
  el.textContent =
    t('ticked')(selected.size, size(bytes)) +
    (over ? t('overBudget')(pult.limits.needChars, pult.limits.needPaths) : '');
  el.classList.toggle('over', over);
}
