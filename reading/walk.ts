// Walks the project folder for LIST, FIND and the tree, with one set of skip rules: `.git`, `node_modules`, the backup
// folder, secrets, what `.gitignore` files exclude, names with control characters, and anything that is not a plain
// file or folder. Symlinked files are followed when they lead to a file inside the root; symlinked folders are not
// entered, so loops cannot happen.
//
// Synchronous on purpose: measured here, sync reads beat a promise per file by about 3x.
//
// A walk can start from what the last run's walk kept (reading/walk-cache.ts), as git's untracked cache does: a folder
// whose stat is unchanged and old enough to be trusted, under rule files unchanged, is not read again and its entries
// are the kept ones; any other is read and walked as before, its unchanged subfolders still taken from what was kept.
// A changed rule file has every folder under it read again. Symlinks are looked at again each time: where they lead is
// not in their folder's stat. The result is the same as a walk from scratch, entry for entry, note for note.

import path from 'node:path';
import { foldRel, isInside, relativeTo, type Sandbox } from './sandbox.ts';
import { caseBlind, type RuleNote } from './gitignore.ts';
import { decodeKept, fullKey, sameRuleFile, stamp } from './walk-cache.ts';
import { keptWalkOf, stampSeen } from './walk-keep.ts';
import { admit, excludeRules, openFolder, replay, tellIfLarge, type Frame, type State } from './walk-folder.ts';

// `parent` is the index in the walk's list of the folder holding the entry, -1 for the folder the walk started in.
// `target` is the real path a symlinked file leads to (inside the root): it is read there, never through the link.
export type WalkEntry = { kind: 'file' | 'folder'; rel: string; name: string; parent: number; target?: string };

// The entries and what the tree should say about what the walk left out or matched wider than written.
export type Walk = { entries: WalkEntry[]; notes: WalkNote[] };

// `control-names`: files and folders left out because their names hold control characters (a folder with all it holds).
export type WalkNote = { kind: 'control-names'; count: number } | RuleNote;

// More entries than a project has: a walk past this many tells `onLarge` once (the home folder, a disk).
export const LARGE_FOLDER = 300_000;

// `onLarge`: told once when the walk passes `large` entries. `kept`: what an earlier walk kept (its bytes, checked
// here) and the key of what it must have been made under (the sandbox's guarded places and secret names): a walk kept
// under another is not used.
export type WalkOptions = {
  onLarge?: ((entries: number) => void) | undefined;
  large?: number | undefined;
  kept?: { bytes: Uint8Array | undefined; key: string } | undefined;
};

// Every entry of the project folder, depth first, names in byte order within a folder.
export function walk(box: Sandbox, options: WalkOptions = {}): Walk {
  return startWalk(box, options).finish();
}

// A walk under way, taken a slice at a time so that other work goes on beside it: the run starts it, and while the
// bridge is asked for the model's window the walk goes on; whatever needs the entries first finishes it.
// `step(ms)`: walks on for about `ms` milliseconds, true when the walk is done. `finish()`: walks to the end.
// `keep()`, once done: what the next walk can start from, as bytes to keep; undefined when what this one started from
// still holds whole, or no `kept` was asked, or the folder is past KEPT_ENTRIES. `prepare(ms)`, once done: takes for
// about `ms` the stats keep() needs, true when it has them all, so that keep() itself is quick. `counts()`: folders
// read and taken from what was kept.
export type Walker = {
  step(ms: number): boolean;
  finish(): Walk;
  prepare(ms: number): boolean;
  keep(): Uint8Array | undefined;
  counts(): { read: number; kept: number };
};

export function startWalk(box: Sandbox, options: WalkOptions = {}): Walker {
  const began = Date.now();
  const fold = caseBlind(box.root);
  const key = options.kept === undefined ? undefined : fullKey(JSON.stringify([fold, options.kept.key]));
  const kept = key === undefined ? undefined : decodeKept(options.kept?.bytes, key);
  const inside = box.guarded
    .filter((g) => isInside(box.root, g.real) && g.real !== box.root)
    .map((g) => foldRel(relativeTo(box.root, g.real)));
  const excludeAbs = path.join(box.root, '.git', 'info', 'exclude');
  const state: State = {
    box,
    skip: { rels: new Set(inside), names: new Set(inside.map((r) => r.slice(r.lastIndexOf('/') + 1))) },
    out: [],
    notes: [],
    fold,
    wide: new Map(),
    controlNames: 0,
    large:
      options.onLarge === undefined
        ? undefined
        : { told: false, tell: options.onLarge, at: options.large ?? LARGE_FOLDER },
    kept,
    exclude: undefined,
    excludeFile: { stamp: stamp(excludeAbs), notes: [] },
    seen: [],
    read: 0,
  };
  // The exclude file is read now unless the kept walk read it as it is: then its notes are the kept ones, and its
  // rules are made only if a folder has to be read.
  const clean = kept !== undefined && sameRuleFile(kept, kept.exclude, state.excludeFile.stamp);
  if (clean) {
    state.excludeFile.notes = kept.exclude.notes;
    state.notes.push(...kept.exclude.notes);
  } else state.exclude = excludeRules(state, state.notes);
  const stack: Frame[] = [];
  const top = openFolder(state, '.', box.root, -1, 1, undefined, clean, kept === undefined ? -1 : 0);
  if (top !== undefined) stack.push(top);
  let result: Walk | undefined;
  const done = (): Walk => {
    if (result !== undefined) return result;
    const left: WalkNote[] = state.controlNames > 0 ? [{ kind: 'control-names', count: state.controlNames }] : [];
    const wide = [...state.wide].map(([r, paths]): WalkNote => ({ kind: 'wide-paths', file: r.file, paths }));
    result = { entries: state.out, notes: [...left, ...state.notes, ...wide] };
    return result;
  };
  // Walks until the stack is empty or `deadline` (performance.now()) has passed, looked at every few hundred entries.
  const run = (deadline: number): boolean => {
    let budget = 256;
    for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
      if (--budget === 0) {
        if (performance.now() > deadline) return false;
        budget = 256;
      }
      tellIfLarge(state);
      let child: Frame | undefined;
      if (frame.entries !== undefined) {
        const entry = frame.entries[frame.next++];
        if (entry === undefined) {
          stack.pop();
          continue;
        }
        child = admit(state, frame, entry);
      } else {
        if (frame.next >= frame.end) {
          stack.pop();
          continue;
        }
        child = replay(state, frame);
      }
      if (child !== undefined) stack.push(child);
    }
    done();
    return true;
  };
  // Whether there is anything to keep: a walk asked to, done, that read a folder or started from nothing usable.
  const keeping = () => key !== undefined && result !== undefined && (kept === undefined || state.read > 0);
  let stamped = 0;
  return {
    step: (ms) => result !== undefined || run(performance.now() + ms),
    finish: () => {
      run(Number.POSITIVE_INFINITY);
      return done();
    },
    prepare: (ms) => {
      if (keeping()) stamped = stampSeen(state.seen, stamped, performance.now() + ms);
      return !keeping() || stamped >= state.seen.length;
    },
    keep: () =>
      key !== undefined && keeping() ? keptWalkOf(key, began, state.excludeFile, state.seen, state.out) : undefined,
    counts: () => ({ read: state.read, kept: state.seen.length - state.read }),
  };
}

// Where a walked file is read: a symlinked file at its target, any other at its path. Worked out when needed: most
// entries are only ever named by their relative path.
export function readPathOf(box: Sandbox, entry: WalkEntry): string {
  return entry.target ?? absOf(box, entry.rel);
}

// The absolute path of a walked entry.
export function absOf(box: Sandbox, rel: string): string {
  return rel === '.' ? box.root : box.root + path.sep + (path.sep === '/' ? rel : rel.replaceAll('/', path.sep));
}
