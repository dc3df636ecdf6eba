// Walks the project folder for LIST, FIND and the tree, with one set of skip rules: `.git`, `node_modules`, the backup
// folder, secrets, what `.gitignore` files exclude, names with control characters, and anything that is not a plain
// file or folder. Symlinked files are followed when they lead to a file inside the root; symlinked folders are not
// entered, so loops cannot happen.
//
// Synchronous on purpose: measured here, sync reads beat a promise per file by about 3x.

import fs from 'node:fs';
import path from 'node:path';
import { foldName, foldRel, holdsControls, isInside, protectedReason, relativeTo, type Sandbox } from './sandbox.ts';
import { caseBlind, isIgnored, readRules, type RuleNote, type Rules } from './gitignore.ts';
import { gitDirShape } from './git-places.ts';

// `parent` is the index in the walk's list of the folder holding the entry, -1 for the folder the walk started in.
// `target` is the real path a symlinked file leads to (inside the root): it is read there, never through the link.
export type WalkEntry = { kind: 'file' | 'folder'; rel: string; name: string; parent: number; target?: string };

// The entries and what the tree should say about what the walk left out or matched wider than written.
export type Walk = { entries: WalkEntry[]; notes: WalkNote[] };

// `control-names`: files and folders left out because their names hold control characters (a folder with all it holds).
export type WalkNote = { kind: 'control-names'; count: number } | RuleNote;

// deepwork's own places inside the root, as folded relative paths, and their last names for a cheap first look.
type Skip = { rels: Set<string>; names: Set<string> };

// More entries than a project has: a walk past this many tells `onLarge` once (the home folder, a disk).
export const LARGE_FOLDER = 300_000;

// Every entry of the project folder, depth first, names in byte order within a folder.
export function walk(box: Sandbox, onLarge?: (entries: number) => void, large = LARGE_FOLDER): Walk {
  return startWalk(box, onLarge, large).finish();
}

// A walk under way, taken a slice at a time so that other work goes on beside it: the run starts it, and while the
// bridge is asked for the model's window the walk goes on; whatever needs the entries first finishes it.
// `step(ms)`: walks on for about `ms` milliseconds, true when the walk is done. `finish()`: walks to the end.
export type Walker = { step(ms: number): boolean; finish(): Walk };

// A folder being walked: its entries in order, the next to look at, and what holds for all of them.
type Frame = {
  entries: fs.Dirent[];
  next: number;
  prefix: string;
  abs: string;
  rules: Rules[];
  parent: number;
  depth: number;
  isSecret: (rel: string, name: string) => boolean;
};

export function startWalk(box: Sandbox, onLarge?: (entries: number) => void, large = LARGE_FOLDER): Walker {
  const notes: RuleNote[] = [];
  const exclude = path.join(box.root, '.git', 'info', 'exclude');
  const fold = caseBlind(box.root);
  const rules = fs.existsSync(exclude) ? [readRules('.', exclude, '.git/info/exclude', 0, notes, fold)] : [];
  const out: WalkEntry[] = [];
  const inside = box.guarded
    .filter((g) => isInside(box.root, g.real) && g.real !== box.root)
    .map((g) => foldRel(relativeTo(box.root, g.real)));
  const skip: Skip = { rels: new Set(inside), names: new Set(inside.map((r) => r.slice(r.lastIndexOf('/') + 1))) };
  const state: State = {
    notes,
    fold,
    wide: new Map(),
    controlNames: 0,
    large: onLarge === undefined ? undefined : { told: false, tell: onLarge, at: large },
  };
  const stack: Frame[] = [];
  const top = openFolder(box, '.', box.root, rules, -1, 1, state);
  if (top !== undefined) stack.push(top);
  let result: Walk | undefined;
  const done = (): Walk => {
    if (result !== undefined) return result;
    const left: WalkNote[] = state.controlNames > 0 ? [{ kind: 'control-names', count: state.controlNames }] : [];
    const wide = [...state.wide].map(([r, paths]): WalkNote => ({ kind: 'wide-paths', file: r.file, paths }));
    result = { entries: out, notes: [...left, ...notes, ...wide] };
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
      const entry = frame.entries[frame.next++];
      if (entry === undefined) {
        stack.pop();
        continue;
      }
      const child = admit(box, skip, frame, entry, out, state);
      if (child !== undefined) stack.push(child);
    }
    done();
    return true;
  };
  return {
    step: (ms) => result !== undefined || run(performance.now() + ms),
    finish: () => {
      run(Number.POSITIVE_INFINITY);
      return done();
    },
  };
}

// What one walk keeps track of besides its entries.
type State = {
  notes: RuleNote[];
  fold: boolean;
  wide: Map<Rules, number>;
  controlNames: number;
  large: { told: boolean; tell: (entries: number) => void; at: number } | undefined;
};

// Never walked, in any spelling: git's folder (or a submodule's `.git` file) and node_modules.
function skippedName(name: string, folder: boolean): boolean {
  const first = name.charCodeAt(0);
  // Most names start with neither "." nor "n"/"N", nor a code point foldName drops (U+00AD and above): one compare
  // rules them out.
  if (first !== 46 && first !== 110 && first !== 78 && first < 0xad) return false;
  const folded = foldName(name);
  return folded === '.git' || (folder && folded === 'node_modules');
}

// A folder's entries, ready to be walked: read, in byte order, with its .gitignore's rules on top of those above it.
// Undefined when it cannot be read or is a git directory under another name.
function openFolder(
  box: Sandbox,
  rel: string,
  abs: string,
  rules: Rules[],
  parent: number,
  depth: number,
  state: State,
): Frame | undefined {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(abs, { withFileTypes: true });
  } catch {
    return undefined;
  }
  // Names come in byte order from libuv, which is this order but for rare characters: sorted only when out of order.
  let sorted = true;
  let gitignore = false;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry === undefined) continue;
    if (i > 0 && (entries[i - 1]?.name ?? '') > entry.name) sorted = false;
    if (entry.name === '.gitignore' && entry.isFile()) gitignore = true;
  }
  if (!sorted) entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (isGitDirListing(entries)) return undefined;
  const prefix = rel === '.' ? '' : `${rel}/`;
  const above = gitignore ? rules.reduce((n, r) => n + r.count, 0) : 0;
  const active = gitignore
    ? [...rules, readRules(rel, path.join(abs, '.gitignore'), `${prefix}.gitignore`, above, state.notes, state.fold)]
    : rules;
  return { entries, next: 0, prefix, abs, rules: active, parent, depth, isSecret: box.secretsIn(rel) };
}

// One entry of a folder: left out, or added to the walk; a folder added comes back to be walked next.
function admit(
  box: Sandbox,
  skip: Skip,
  frame: Frame,
  entry: fs.Dirent,
  out: WalkEntry[],
  state: State,
): Frame | undefined {
  const large = state.large;
  if (large !== undefined && !large.told && out.length > large.at) {
    large.told = true;
    large.tell(large.at);
  }
  const childRel = frame.prefix + entry.name;
  let kind: 'file' | 'folder';
  let target: string | undefined;
  if (entry.isDirectory()) kind = 'folder';
  else if (entry.isFile()) kind = 'file';
  else if (entry.isSymbolicLink()) {
    target = symlinkedFileInside(box, childRel, frame.abs + path.sep + entry.name);
    if (target === undefined) return undefined;
    kind = 'file';
  } else return undefined;

  if (holdsControls(entry.name)) {
    state.controlNames++;
    return undefined;
  }
  if (skippedName(entry.name, kind === 'folder')) return undefined;
  if (kind === 'file' && frame.isSecret(childRel, entry.name)) return undefined;
  const rules = frame.rules;
  if (rules.length > 0 && isIgnored(rules, childRel, entry.name, frame.depth, kind === 'folder', state.wide))
    return undefined;
  if (skip.names.size > 0 && skip.names.has(foldName(entry.name)) && skip.rels.has(foldRel(childRel))) return undefined;

  const index =
    out.push(
      target === undefined
        ? { kind, rel: childRel, name: entry.name, parent: frame.parent }
        : { kind, rel: childRel, name: entry.name, parent: frame.parent, target },
    ) - 1;
  if (kind !== 'folder') return undefined;
  return openFolder(box, childRel, frame.abs + path.sep + entry.name, rules, index, frame.depth + 1, state);
}

// A git directory under another name (HEAD, objects/, refs/) holds what .git holds: its entries are never walked.
function isGitDirListing(entries: readonly fs.Dirent[]): boolean {
  return gitDirShape((name) => {
    const want = name.toLowerCase();
    return entries.some((e) => (e.name.charCodeAt(0) | 32) === want.charCodeAt(0) && foldName(e.name) === want);
  });
}

// A symlink is walked only as a file whose real target is inside the root and may be sent; returns that target.
function symlinkedFileInside(box: Sandbox, rel: string, abs: string): string | undefined {
  try {
    const real = fs.realpathSync.native(abs);
    if (!isInside(box.root, real)) return undefined;
    if (protectedReason(box, rel, real) !== undefined) return undefined;
    return fs.statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
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
