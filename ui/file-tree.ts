// The pult's file tree (GET /api/tree): the folder's files, by the same rules as LIST, made once per session from the
// run's own walk and kept; their sizes (GET /api/tree/sizes) come after, so that the page draws the tree without
// waiting for a stat of every file (issue 30: 113-117 ms of a 220-275 ms first load on the npm corpus, 273 ms on the
// Linux source). A page load used to walk the folder and look at every file again: 2.5 s on the Linux source. It is
// made again when a run has walked the folder afresh (from that walk: only the sizes are looked at), and after the
// pult wrote or put back files. It starts being made as the pult starts, a slice at a time, so that the page's first
// load finds it ready or nearly; the sizes go on a slice at a time once the names are listed.

import fs from 'node:fs';
import path from 'node:path';
import type { Executor } from '../reading/executor.ts';
import { readPathOf, walk, type WalkEntry } from '../reading/walk.ts';
import type { FileSizes, FileTree } from './contract.ts';

// The most files the page is sent: past this, the total still counts them.
const TREE_LIMIT = 50_000;
// Entries listed, or files looked at for their size, per slice while the tree is made ahead of a request.
const SLICE = 2_000;

export type FileTrees = {
  // The tree, its names listed now if they are not yet.
  get(): FileTree;
  // The sizes of the tree as it stands, in the order of its files, looked at now if they are not yet; the page's tree
  // when their `version` is the one it was given.
  sizes(): FileSizes;
  // The pult wrote or put back files: the next tree walks the folder again.
  stale(): void;
};

// A tree being made: the walk's entries listed up to `next`, then the listed files' sizes up to `sized`.
type Making = {
  generation: number;
  entries: readonly WalkEntry[];
  next: number;
  listed: WalkEntry[];
  sized: number;
  tree: FileTree;
  sizes: number[];
};

export function fileTrees(executor: Executor): FileTrees {
  let version = 0;
  let current: Making | undefined;
  let fresh = false;
  const begin = (): Making => {
    // After a write or undo the run's walk is out of date: a walk of its own.
    const entries = fresh ? walk(executor.box).entries : executor.walked().entries;
    fresh = false;
    const root = path.basename(executor.box.root);
    current = {
      generation: executor.generation(),
      entries,
      next: 0,
      listed: [],
      sized: 0,
      tree: { root, files: [], total: 0, version: ++version },
      sizes: [],
    };
    return current;
  };
  const list = (m: Making, count: number): void => {
    const end = Math.min(m.entries.length, m.next + count);
    for (; m.next < end; m.next++) {
      const entry = m.entries[m.next];
      if (entry === undefined || entry.kind !== 'file') continue;
      m.tree.total++;
      if (m.listed.length < TREE_LIMIT) {
        m.listed.push(entry);
        m.tree.files.push(entry.rel);
      }
    }
  };
  const size = (m: Making, count: number): boolean => {
    const end = Math.min(m.listed.length, m.sized + count);
    for (; m.sized < end; m.sized++) {
      const entry = m.listed[m.sized];
      if (entry !== undefined) m.sizes.push(sizeOf(executor, entry));
    }
    return m.sized === m.listed.length;
  };
  // The tree as it stands, or a new one when the run walked afresh or the pult wrote since.
  const now = (): Making => {
    const m = current;
    return m !== undefined && m.generation === executor.generation() && !fresh ? m : begin();
  };
  // Ahead of a request: the walk, the names and then the sizes a slice per task, so that the pult answers meanwhile.
  // While the walk goes on, it is told when the walk is done rather than looking again each task: a pult closed
  // mid-walk looked forever, and its process never ended.
  let waiting = false;
  const ahead = () => {
    waiting = false;
    // After a write, the next request walks the folder again; not a task here.
    if (fresh) return;
    if (current === undefined && executor.walkedSoFar(later) === undefined) return;
    const m = now();
    // The names first, then their sizes, each in a task of its own.
    if (m.next < m.entries.length) list(m, SLICE);
    else if (size(m, SLICE)) return;
    later();
  };
  const later = () => {
    if (waiting) return;
    waiting = true;
    setImmediate(ahead);
  };
  later();
  return {
    get() {
      const m = now();
      list(m, Number.POSITIVE_INFINITY);
      // The sizes go on once this answer is on its way.
      if (m.sized < m.listed.length) later();
      return m.tree;
    },
    sizes() {
      const m = now();
      list(m, Number.POSITIVE_INFINITY);
      size(m, Number.POSITIVE_INFINITY);
      return { version: m.tree.version, sizes: m.sizes };
    },
    stale() {
      fresh = true;
      current = undefined;
    },
  };
}

function sizeOf(executor: Executor, entry: WalkEntry): number {
  try {
    return fs.statSync(readPathOf(executor.box, entry)).size;
  } catch {
    // Gone since the walk saw it: size unknown.
    return 0;
  }
}
