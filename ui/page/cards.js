// A proposed file as deepwork shows it, never as the model wrote it: a card with its status, counts, diff, Write and
// Undo, and what its Undo did; the run's summary with the set's Write. Deepwork's own boxes, kept apart from the
// model's prose (run-view.js). Each button says what it does: how many files a Write or an Undo touches.

import { post } from './api.js';
import { diffRows, diffView, isSmall } from './diff-view.js';
import { h, hasHidden, showError } from './dom.js';
import { saidView } from './said.js';
import { t } from './strings.js';

/** @import { AnswerPart, FileView } from '../contract.ts' */
/** @import { Run } from './state.js' */

/** @param {FileView} file */
function writable(file) {
  return !file.written && (file.status === 'new' || file.status === 'changed' || file.status === 'held back');
}

// What the set's Write writes: every file that can be written as it is (a held-back one is written from its card).
/** @param {FileView[]} files */
function readyOf(files) {
  return files.filter(writable).filter((f) => f.status !== 'held back');
}

// The counts of a change; a count of nothing is left out (`+3`, not `+3 −0`).
/** @param {FileView} file */
function countsOf(file) {
  if (file.status !== 'new' && file.status !== 'changed' && file.status !== 'held back') return h('span');
  const counts = h('span', { class: 'counts' });
  if (file.added > 0 || file.removed === 0) counts.append(h('span', { class: 'add' }, [`+${file.added}`]));
  if (file.added > 0 && file.removed > 0) counts.append(' ');
  if (file.removed > 0) counts.append(h('span', { class: 'del' }, [`−${file.removed}`]));
  return counts;
}

// Whether the card's diff is open: a small one is, a long one is not, until the reader says otherwise.
/** @param {Run} run @param {string} path @param {string} diff */
function diffOpen(run, path, diff) {
  return isSmall(diff) !== run.diffs.has(path);
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
  const open = file.diff !== undefined && file.diff !== '' && diffOpen(run, path, file.diff);
  if (file.diff !== undefined && file.diff !== '') {
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
    // The set's Write is the run's one primary action; with no set beside it, the card's Write is.
    const alone = view.files.length === 1;
    const write = h(
      'button',
      {
        type: 'button',
        class: alone ? 'primary' : 'secondary',
        'aria-label': (force ? t('writeAnywayLabel') : t('writeLabel'))(path),
      },
      [force ? t('writeAnyway') : t('write')],
    );
    write.addEventListener('click', () => {
      run.undone = undefined;
      void post('POST /api/write', { run: view.id, path, base: file.base ?? '', force }).catch(showError);
    });
    actions.append(write);
  }
  if (file.said !== undefined) card.append(h('p', { class: 'reason' }, [saidView(file.said)]));
  // Said on the card, not only in the diff: the reader may write it without opening the diff.
  if (
    hasHidden(path) ||
    view.hiddenIn.includes(path) ||
    (file.diff !== undefined && diffRows(file.diff).some((row) => row.hidden))
  ) {
    card.append(h('p', { class: 'reason hidden-note', role: 'note' }, [t('hiddenNote')]));
  }
  if (file.written) card.append(writtenNote(run, file, redraw));
  // What this card's Undo did, by the card, until the next Write.
  if (run.undone !== undefined && run.undone.path === path) card.append(undoneView(run.undone));
  if (open && file.diff !== undefined) card.append(diffView(file.diff, t('diffLabel')(path)));
  return card;
}

// A written file: where its previous version is (a new file has none: Undo removes it), and the Undo of its Write,
// which puts back every file that Write wrote, and says how many.
/** @param {Run} run @param {FileView} file @param {(run: Run) => void} redraw */
function writtenNote(run, file, redraw) {
  const set = file.backupSet?.split(/[\\/]/).pop();
  const together = run.view.files.filter((f) => f.written && f.backupSet === file.backupSet).map((f) => f.path);
  const undo = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      title: together.join(', '),
      'aria-label': t('undoLabel')(together.length, together.join(', ')),
    },
    [t('undo')(together.length)],
  );
  undo.addEventListener('click', () => void undoSet(run, set, file.path, together.length, redraw));
  const note = file.status === 'new' ? t('writtenNew') : t('written')(file.backupSet ?? '');
  return h('p', { class: 'reason written' }, [note, ' ', undo]);
}

/** @param {Run} run @param {string | undefined} set @param {string} path @param {number} count @param {(run: Run) => void} redraw */
async function undoSet(run, set, path, count, redraw) {
  try {
    const report = await post('POST /api/undo', set === undefined ? {} : { set });
    run.undone = { files: report.files, count, path };
    redraw(run);
  } catch (error) {
    showError(error);
  }
}

// What an Undo did, each file with what became of it: restored, removed, left alone (the reader changed it since), or
// failed, and why.
/** @param {NonNullable<Run['undone']>} undone */
function undoneView(undone) {
  if (undone.files.length === 0) return h('p', { class: 'notice', role: 'status' }, [t('nothingUndone')]);
  /** @type {Array<Node | string>} */
  const parts = [`${t('undone')(undone.count)}: `];
  undone.files.forEach((f, i) => {
    if (i > 0) parts.push(', ');
    parts.push(`${f.path} (${t('action')(f.action)}`, ...(f.said === undefined ? [] : [': ', saidView(f.said)]), ')');
  });
  parts.push('.');
  return h('p', { class: 'notice', role: 'status' }, parts);
}

// The run's proposals in one list, and the set's Write: "Write all (n)" before any is written, "Write the rest (n)"
// after, for as long as one can still be written as it is.
/** @param {Run} run */
export function summaryView(run) {
  const { view } = run;
  const ready = readyOf(view.files);
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
  if (view.files.length > 1 && ready.length > 0) {
    const some = view.files.some((f) => f.written);
    const all = h('button', { type: 'button', class: 'primary' }, [
      (some ? t('writeRest') : t('writeAll'))(ready.length),
    ]);
    all.addEventListener('click', () => {
      run.undone = undefined;
      /** @type {Record<string, string>} */
      const files = {};
      for (const f of ready) files[f.path] = f.base ?? '';
      void post('POST /api/write', { run: view.id, files }).catch(showError);
    });
    box.append(all);
  }
  return box;
}
