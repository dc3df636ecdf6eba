// A proposed file as deepwork shows it, never as the model wrote it: a card with its status, counts, diff, Write and
// Undo; the run's summary with Write all; and what an Undo did. Deepwork's own boxes, kept apart from the model's
// prose (run-view.js).

import { post } from './api.js';
import { fromServer, h, hasHidden, showError } from './dom.js';
import { t } from './strings.js';

/** @import { AnswerPart, FileView } from '../contract.ts' */
/** @import { Run } from './state.js' */

// A unified diff as rows: the old and new line numbers beside each line, and whether the line holds hidden characters.
// A CR ending a line is the line end of a CRLF file, and a BOM starting line 1 the file's own: neither is hidden text.
/** @param {string} diff @returns {Array<{ cls: string, left: string, right: string, text: string, hidden: boolean }>} */
function diffRows(diff) {
  const rows = [];
  let oldLine = 0;
  let newLine = 0;
  for (const raw of diff.split('\n')) {
    if (
      raw.startsWith('---') ||
      raw.startsWith('+++') ||
      raw.startsWith('Index:') ||
      raw.startsWith('====') ||
      raw === ''
    )
      continue;
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    let cls = '';
    let left = '';
    let right = '';
    if (hunk !== null) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      cls = 'hunk';
    } else if (line.startsWith('+')) {
      cls = 'add';
      right = String(newLine++);
    } else if (line.startsWith('-')) {
      cls = 'del';
      left = String(oldLine++);
    } else if (line.startsWith('\\')) {
      cls = 'hunk';
    } else {
      left = String(oldLine++);
      right = String(newLine++);
    }
    if ((left === '1' || right === '1') && line[1] === '\uFEFF') line = line.slice(0, 1) + line.slice(2);
    rows.push({ cls, left, right, text: line, hidden: hasHidden(line) });
  }
  return rows;
}

// The diff's rows; a line holding hidden characters is marked, and shows them as codes as all text does.
/** @param {string} diff @param {string} label */
function diffView(diff, label) {
  const view = h('div', { class: 'diff', role: 'region', 'aria-label': label });
  for (const row of diffRows(diff)) {
    const cells = [
      h('span', { class: 'n' }, [row.left]),
      h('span', { class: 'n' }, [row.right]),
      h('span', { class: 'code' }, [row.text]),
    ];
    if (row.hidden)
      cells.unshift(
        h('span', { class: 'flag', role: 'img', title: t('hiddenLine'), 'aria-label': t('hiddenLine') }, ['⚠']),
      );
    view.append(h('div', { class: `line ${row.cls}${row.hidden ? ' flagged' : ''}` }, cells));
  }
  return view;
}

/** @param {FileView} file */
function writable(file) {
  return !file.written && (file.status === 'new' || file.status === 'changed' || file.status === 'held back');
}

/** @param {FileView} file */
function countsOf(file) {
  if (file.status === 'new') return h('span', { class: 'counts' }, [h('span', { class: 'add' }, [`+${file.added}`])]);
  if (file.status === 'changed' || file.status === 'held back')
    return h('span', { class: 'counts' }, [
      h('span', { class: 'add' }, [`+${file.added}`]),
      ' ',
      h('span', { class: 'del' }, [`−${file.removed}`]),
    ]);
  return h('span');
}

// A proposal's card. `part`: its block in the answer (undefined: proposed at an earlier step); `extra`: which of
// several blocks for the path it is. `redraw`: draws the run again after a change of the page's own state.
/** @param {Run} run @param {string} path @param {Extract<AnswerPart, { kind: 'proposal' }> | undefined} part @param {string} extra @param {(run: Run) => void} redraw */
export function proposalCard(run, path, part, extra, redraw) {
  const { view } = run;
  const file = view.files.find((f) => f.path === path);
  const status =
    file === undefined
      ? part !== undefined && !part.complete
        ? 'incomplete'
        : 'unknown'
      : file.written
        ? 'written'
        : file.status;
  const kind = part === undefined ? '' : part.block === 'edit' ? t('editBlock') : t('fileBlock');
  const card = h('div', { class: `proposal ${status.split(' ')[0] ?? ''}`, 'data-path': path });
  const head = h('div', { class: 'head' }, [
    h('span', { class: `badge ${status.split(' ')[0] ?? ''}` }, [t('status')(status)]),
    h('code', {}, [path]),
  ]);
  if (kind !== '') head.append(h('span', { class: 'muted small' }, [kind]));
  if (file !== undefined) head.append(countsOf(file));
  if (extra !== '') head.append(h('span', { class: 'muted small' }, [extra]));
  const actions = h('span', { class: 'actions' });
  head.append(actions);
  card.append(head);
  if (file === undefined) {
    card.append(h('p', { class: 'reason' }, [part !== undefined && !part.complete ? t('cutCard') : t('notKept')]));
    return card;
  }
  if (file.diff !== undefined && file.diff !== '') {
    const open = run.diffs.has(path);
    const toggle = h('button', { type: 'button', 'aria-expanded': String(open), 'aria-label': t('diffLabel')(path) }, [
      open ? t('hideDiff') : t('diff'),
    ]);
    toggle.addEventListener('click', () => {
      if (run.diffs.has(path)) run.diffs.delete(path);
      else run.diffs.add(path);
      redraw(run);
    });
    actions.append(toggle);
  }
  if (writable(file)) {
    const force = file.status === 'held back';
    const write = h(
      'button',
      { type: 'button', class: 'primary', 'aria-label': (force ? t('writeAnywayLabel') : t('writeLabel'))(path) },
      [force ? t('writeAnyway') : t('write')],
    );
    write.addEventListener(
      'click',
      () => void post('POST /api/write', { run: view.id, path, base: file.base ?? '', force }).catch(showError),
    );
    actions.append(write);
  }
  if (file.reason !== undefined) card.append(h('p', { class: 'reason' }, [fromServer(file.reason)]));
  // Said on the card, not only in the diff: the reader may write it without opening the diff.
  if (
    hasHidden(path) ||
    view.hiddenIn.includes(path) ||
    (file.diff !== undefined && diffRows(file.diff).some((row) => row.hidden))
  ) {
    card.append(h('p', { class: 'reason hidden-note', role: 'note' }, [t('hiddenNote')]));
  }
  if (file.written) {
    const set = file.backupSet?.split(/[\\/]/).pop();
    // Undo puts back the whole set this file's Write made: the button says how many files that is.
    const together = view.files.filter((f) => f.written && f.backupSet === file.backupSet).map((f) => f.path);
    const undo = h('button', { type: 'button', 'aria-label': t('undoLabel')(together.length, together.join(', ')) }, [
      t('undo')(together.length),
    ]);
    undo.addEventListener('click', () => void undoSet(run, set, together.length, redraw));
    card.append(h('p', { class: 'reason written' }, [t('written')(file.backupSet ?? ''), ' ', undo]));
  }
  if (run.diffs.has(path) && file.diff !== undefined) card.append(diffView(file.diff, t('diffLabel')(path)));
  return card;
}

/** @param {Run} run @param {string | undefined} set @param {number} count @param {(run: Run) => void} redraw */
async function undoSet(run, set, count, redraw) {
  try {
    const report = await post('POST /api/undo', set === undefined ? {} : { set });
    run.undone = { files: report.files, count };
    redraw(run);
  } catch (error) {
    showError(error);
  }
}

// What the last Undo did, each file with what became of it: restored, removed, left alone (the reader changed it
// since), or failed. The reasons are the server's.
/** @param {NonNullable<Run['undone']>} undone */
export function undoneView(undone) {
  if (undone.files.length === 0) return h('p', { class: 'notice', role: 'status' }, [t('nothingUndone')]);
  /** @type {Array<Node | string>} */
  const parts = [`${t('undone')(undone.count)}: `];
  undone.files.forEach((f, i) => {
    if (i > 0) parts.push(', ');
    parts.push(
      `${f.path} (${t('action')(f.action)}`,
      ...(f.reason === undefined ? [] : [': ', fromServer(f.reason)]),
      ')',
    );
  });
  parts.push('.');
  return h('p', { class: 'notice', role: 'status' }, parts);
}

// The run's proposals in one list, and Write all when more than one can be written as they are.
/** @param {Run} run */
export function summaryView(run) {
  const { view } = run;
  const ready = view.files.filter(writable).filter((f) => f.status !== 'held back');
  const items = view.files.map((f) =>
    h('li', {}, [
      h('span', { class: `badge ${(f.written ? 'written' : f.status).split(' ')[0] ?? ''}` }, [
        t('status')(f.written ? 'written' : f.status),
      ]),
      ' ',
      h('code', {}, [f.path]),
      ' ',
      countsOf(f),
    ]),
  );
  const box = h('div', { class: 'summary', role: 'group', 'aria-label': t('proposals')(view.files.length) }, [
    h('strong', {}, [t('proposals')(view.files.length)]),
    h('ul', {}, items),
  ]);
  if (ready.length > 1) {
    const all = h('button', { type: 'button', class: 'primary' }, [t('writeAll')(ready.length)]);
    all.addEventListener('click', () => {
      /** @type {Record<string, string>} */
      const files = {};
      for (const f of ready) files[f.path] = f.base ?? '';
      void post('POST /api/write', { run: view.id, files }).catch(showError);
    });
    box.append(all);
  }
  return box;
}
