// The pult's file tree (GET /api/tree): the folder's files with their sizes, by the same rules as LIST, made once per
// session from the run's own walk and kept. A page load used to walk the folder and look at every file again: 2.5 s on
// the Linux source. It is made again when a run has walked the folder afresh (from that walk: only the sizes are looked
// at), and after the pult wrote or put back files. It starts being made as the pult starts, a slice at a time, so that
// the page's first load finds it ready or nearly.

import fs from 'node:fs';
import path from 'node:path';
import type { Executor } from '../reading/executor.ts';
import { readPathOf, walk, type WalkEntry } from '../reading/walk.ts';
import type { FileTree } from './contract.ts';

// The most files the page is sent: past this, the total still counts them.
const TREE_LIMIT = 50_000;
// Files looked at per slice while the tree is made ahead of a request.
const SLICE = 2_000;

export type FileTrees = {
  // The tree, finished now if it is not yet.
  get(): FileTree;
  // The pult wrote or put back files: the next tree walks the folder again.
  stale(): void;
};

export function fileTrees(executor: Executor): FileTrees {
  let made: { generation: number; tree: FileTree } | undefined;
  let making: { generation: number; entries: readonly WalkEntry[]; next: number; tree: FileTree } | undefined;
  let fresh = false;
  const begin = () => {
    const generation = executor.generation();
    // After a write or undo the run's walk is out of date: a walk of its own.
    const entries = fresh ? walk(executor.box).entries : executor.walked().entries;
    fresh = false;
    making = { generation, entries, next: 0, tree: { root: path.basename(executor.box.root), files: [], total: 0 } };
    return making;
  };
  const work = (m: NonNullable<typeof making>, count: number): boolean => {
    const end = Math.min(m.entries.length, m.next + count);
    for (; m.next < end; m.next++) {
      const entry = m.entries[m.next];
      if (entry === undefined || entry.kind !== 'file') continue;
      m.tree.total++;
      if (m.tree.files.length < TREE_LIMIT) m.tree.files.push([entry.rel, sizeOf(executor, entry)]);
    }
    if (m.next < m.entries.length) return false;
    made = { generation: m.generation, tree: m.tree };
    making = undefined;
    return true;
  };
  const current = () => made !== undefined && made.generation === executor.generation() && !fresh;
  // Ahead of the first request: the walk and the sizes a slice per task, so that the pult answers meanwhile.
  const ahead = () => {
    if (current()) return;
    if (making === undefined && executor.walkedSoFar() === undefined) {
      setImmediate(ahead);
      return;
    }
    const m = making !== undefined && making.generation === executor.generation() ? making : begin();
    if (!work(m, SLICE)) setImmediate(ahead);
  };
  setImmediate(ahead);
  return {
    get() {
      if (!current()) {
        const m = making !== undefined && making.generation === executor.generation() && !fresh ? making : begin();
        work(m, Number.POSITIVE_INFINITY);
      }
      return made?.tree ?? { root: path.basename(executor.box.root), files: [], total: 0 };
    },
    stale() {
      fresh = true;
      made = undefined;
      making = undefined;
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
