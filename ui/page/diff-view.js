// A proposed file's diff as the pult shows it: long lines wrapped, not cut at the card's edge; tabs four wide; the
// words that changed marked within a changed line; both line numbers on a wide screen, one on a narrow one.

import { h, hasHidden } from './dom.js';
import { t } from './strings.js';

// A diff this short is open when its card is drawn: reading it is quicker than opening it.
const SMALL = 24;

/** @typedef {{ cls: string, left: string, right: string, text: string, hidden: boolean }} Row */

// A unified diff as rows: the old and new line numbers beside each line, and whether the line holds hidden characters.
// A CR ending a line is the line end of a CRLF file, and a BOM starting line 1 the file's own: neither is hidden text.
/** @param {string} diff @returns {Row[]} */
export function diffRows(diff) {
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

/** @param {string} diff */
export function isSmall(diff) {
  return diffRows(diff).length <= SMALL;
}

// Where two lines differ: the part between their common start and common end, as offsets into each (past the
// leading "-" or "+"). Undefined when they share nothing worth marking (a line rewritten throughout).
/** @param {string} a @param {string} b @returns {{ a: [number, number], b: [number, number] } | undefined} */
function changedSpan(a, b) {
  let start = 1;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const kept = start - 1 + (a.length - endA);
  if (kept < 3 || (endA === start && endB === start)) return undefined;
  return { a: [start, endA], b: [start, endB] };
}

// A run of removed lines followed by as many added ones is a change of those lines, one for one: each pair's changed
// words are marked.
/** @param {Row[]} rows @returns {Map<Row, [number, number]>} */
function pairedChanges(rows) {
  /** @type {Map<Row, [number, number]>} */
  const marks = new Map();
  let i = 0;
  while (i < rows.length) {
    let dels = 0;
    while (rows[i + dels]?.cls === 'del') dels++;
    let adds = 0;
    while (rows[i + dels + adds]?.cls === 'add') adds++;
    if (dels > 0 && dels === adds) {
      for (let k = 0; k < dels; k++) {
        const del = rows[i + k];
        const add = rows[i + dels + k];
        if (del === undefined || add === undefined) continue;
        const span = changedSpan(del.text, add.text);
        if (span === undefined) continue;
        marks.set(del, span.a);
        marks.set(add, span.b);
      }
    }
    i += Math.max(1, dels + adds);
  }
  return marks;
}

/** @param {Row} row @param {[number, number] | undefined} mark */
function codeCell(row, mark) {
  if (mark === undefined) return h('span', { class: 'code' }, [row.text]);
  return h('span', { class: 'code' }, [
    row.text.slice(0, mark[0]),
    h('mark', {}, [row.text.slice(mark[0], mark[1])]),
    row.text.slice(mark[1]),
  ]);
}

// The diff's rows; a line holding hidden characters is marked, and shows them as codes as all text does.
/** @param {string} diff @param {string} label */
export function diffView(diff, label) {
  const view = h('div', { class: 'diff', role: 'region', 'aria-label': label });
  const rows = diffRows(diff);
  const marks = pairedChanges(rows);
  for (const row of rows) {
    const cells = [
      h('span', { class: 'n old' }, [row.left]),
      h('span', { class: 'n new' }, [row.right]),
      // On a narrow screen, one column: the new line's number, or the old one's for a removed line.
      h('span', { class: 'n one' }, [row.right === '' ? row.left : row.right]),
      codeCell(row, marks.get(row)),
    ];
    if (row.hidden)
      cells.unshift(
        h('span', { class: 'flag', role: 'img', title: t('hiddenLine'), 'aria-label': t('hiddenLine') }, ['⚠']),
      );
    view.append(h('div', { class: `line ${row.cls}${row.hidden ? ' flagged' : ''}` }, cells));
  }
  return view;
}
