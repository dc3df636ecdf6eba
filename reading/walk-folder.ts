// A folder of the walk (reading/walk.ts): read, its entries taken or left out by the skip rules, or taken as the last
// run's walk kept it (reading/walk-cache.ts) when it is unchanged under unchanged rules.

import fs from 'node:fs';
import path from 'node:path';
import { foldName, foldRel, holdsControls, isInside, protectedReason, type Sandbox } from './sandbox.ts';
import { isIgnored, readRules, type RuleNote, type Rules } from './gitignore.ts';
import { gitDirShape } from './git-places.ts';
import {
  CHILD,
  childNamed,
  FLAG,
  holds,
  keptRuleFile,
  sameRuleFile,
  stamp,
  stampOf,
  statIfThere,
  type Kept,
  type RuleFile,
} from './walk-cache.ts';
import type { Seen } from './walk-keep.ts';
import type { WalkEntry } from './walk.ts';

// deepwork's own places inside the root, as folded relative paths, and their last names for a cheap first look.
export type Skip = { rels: Set<string>; names: Set<string> };

// A folder being walked, read from disk (`entries`) or taken from what was kept (`entries` undefined: its children in
// the kept walk from `next` to `end`). `index`: its entry's, -1 for the root. `depth`: the names of its entries.
// `rules`: those in force for its entries, made only when needed in a kept folder; `clean`: they are the ones the kept
// walk was made under. `old`: its folder in the kept walk, -1 when none.
export type Frame = {
  rel: string;
  prefix: string;
  abs: string;
  index: number;
  depth: number;
  up: Frame | undefined;
  gitignore: boolean;
  rules: Rules[] | undefined;
  clean: boolean;
  entries: fs.Dirent[] | undefined;
  next: number;
  end: number;
  old: number;
  seen: Seen;
  isSecret: ((rel: string, name: string) => boolean) | undefined;
  // Told when a rule matches one of its entries in its wider form: counted for the note, and the folder is read again
  // next time (a read folder's; made once per folder, not per entry).
  wide: ((rules: Rules) => void) | undefined;
};

// The most files of a kept folder added in one go, between looks at the slice's deadline.
const REPLAYED = 64;

// What one walk keeps track of besides its entries.
export type State = {
  box: Sandbox;
  skip: Skip;
  out: WalkEntry[];
  notes: RuleNote[];
  fold: boolean;
  wide: Map<Rules, number>;
  controlNames: number;
  large: { told: boolean; tell: (entries: number) => void; at: number } | undefined;
  kept: Kept | undefined;
  // .git/info/exclude's rules, made when first needed when the kept walk's still hold.
  exclude: Rules[] | undefined;
  excludeFile: RuleFile;
  seen: Seen[];
  read: number;
};

export function tellIfLarge(state: State): void {
  const large = state.large;
  if (large !== undefined && !large.told && state.out.length > large.at) {
    large.told = true;
    large.tell(large.at);
  }
}

// .git/info/exclude's rules (none when it is not there), its notes going to `notes`.
export function excludeRules(state: State, notes: RuleNote[]): Rules[] {
  const exclude = path.join(state.box.root, '.git', 'info', 'exclude');
  return fs.existsSync(exclude) ? [readRules('.', exclude, '.git/info/exclude', 0, notes, state.fold)] : [];
}

// The rules in force for a folder's entries. A kept folder's are made when a folder below it has to be read; the notes
// its .gitignore gives were given from what was kept, and are not given twice.
function rulesOf(state: State, frame: Frame | undefined): Rules[] {
  if (frame === undefined) {
    state.exclude ??= excludeRules(state, []);
    return state.exclude;
  }
  if (frame.rules !== undefined) return frame.rules;
  const above = rulesOf(state, frame.up);
  frame.rules = frame.gitignore ? [...above, ownRules(state, frame.rel, frame.abs, above, [])] : above;
  return frame.rules;
}

function ownRules(state: State, rel: string, abs: string, above: readonly Rules[], notes: RuleNote[]): Rules {
  const count = above.reduce((n, r) => n + r.count, 0);
  const prefix = rel === '.' ? '' : `${rel}/`;
  return readRules(rel, path.join(abs, '.gitignore'), `${prefix}.gitignore`, count, notes, state.fold);
}

// A folder to walk, `index` its entry: taken from the kept walk when its folder there (`old`) is as it is now and the
// rules above it are the kept walk's (`clean`), else read. Undefined when it cannot be read or is a git directory
// under another name.
export function openFolder(
  state: State,
  rel: string,
  abs: string,
  index: number,
  depth: number,
  up: Frame | undefined,
  clean: boolean,
  old: number,
): Frame | undefined {
  const kept = state.kept;
  let folderStamp: RuleFile['stamp'];
  if (kept !== undefined && old !== -1) {
    const stats = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (stats !== undefined && clean && holds(kept, old, stats) && ((kept.flags[old] ?? 0) & FLAG.wide) === 0) {
      const flags = kept.flags[old] ?? 0;
      const seen = newSeen(state, index, abs);
      seen.stamp = stampOf(stats);
      seen.flags = flags;
      if ((flags & FLAG.gitDir) !== 0) return undefined;
      const gitignore = (flags & FLAG.rules) !== 0;
      if (!gitignore || holds(kept, old, statIfThere(path.join(abs, '.gitignore')), true)) {
        const notes = kept.notes.get(old) ?? [];
        state.notes.push(...notes);
        if (gitignore) seen.gitignore = keptRuleFile(kept, old);
        seen.controlNames = kept.controlNames[old] ?? 0;
        state.controlNames += seen.controlNames;
        const frame = frameOf(rel, abs, index, depth, up, seen);
        frame.gitignore = gitignore;
        frame.clean = true;
        frame.next = kept.firsts[old] ?? 0;
        frame.end = frame.next + (kept.counts[old] ?? 0);
        frame.old = old;
        return frame;
      }
      // Its .gitignore changed: read again, with all below it.
      state.seen.pop();
    }
    // Taken before the read: a change made after it shows in the next walk.
    if (stats !== undefined) folderStamp = stampOf(stats);
  }
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(abs, { withFileTypes: true });
  } catch {
    return undefined;
  }
  state.read++;
  const seen = newSeen(state, index, abs);
  seen.stamp = folderStamp;
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
  if (isGitDirListing(entries)) {
    seen.flags = FLAG.gitDir;
    return undefined;
  }
  const frame = frameOf(rel, abs, index, depth, up, seen);
  frame.entries = entries;
  frame.old = old;
  const above = rulesOf(state, up);
  if (gitignore) {
    seen.flags |= FLAG.rules;
    const ruleStamp = kept === undefined ? undefined : stamp(path.join(abs, '.gitignore'));
    const before = state.notes.length;
    frame.rules = [...above, ownRules(state, rel, abs, above, state.notes)];
    seen.gitignore = { stamp: ruleStamp, notes: state.notes.slice(before) };
  } else frame.rules = above;
  frame.gitignore = gitignore;
  // The folders below keep their kept entries only when this folder's rules are the kept walk's too.
  frame.clean =
    kept !== undefined &&
    old !== -1 &&
    clean &&
    (gitignore
      ? ((kept.flags[old] ?? 0) & FLAG.rules) !== 0 &&
        sameRuleFile(kept, keptRuleFile(kept, old), seen.gitignore?.stamp)
      : ((kept.flags[old] ?? 0) & FLAG.rules) === 0);
  frame.isSecret = state.box.secretsIn(rel);
  frame.wide = (r: Rules) => {
    state.wide.set(r, (state.wide.get(r) ?? 0) + 1);
    seen.flags |= FLAG.wide;
  };
  return frame;
}

function frameOf(rel: string, abs: string, index: number, depth: number, up: Frame | undefined, seen: Seen): Frame {
  return {
    rel,
    prefix: rel === '.' ? '' : `${rel}/`,
    abs,
    index,
    depth,
    up,
    gitignore: false,
    rules: undefined,
    clean: false,
    entries: undefined,
    next: 0,
    end: 0,
    old: -1,
    seen,
    isSecret: undefined,
    wide: undefined,
  };
}

function newSeen(state: State, index: number, abs: string): Seen {
  const seen: Seen = { index, abs, stamp: undefined, gitignore: undefined, controlNames: 0, flags: 0, links: [] };
  state.seen.push(seen);
  return seen;
}

// Never walked, in any spelling: git's folder (or a submodule's `.git` file) and node_modules.
function skippedName(name: string, folder: boolean): boolean {
  const first = name.charCodeAt(0);
  // Most names start with neither "." nor "n"/"N", nor a code point foldName drops (U+00AD and above): one compare
  // rules them out.
  if (first !== 46 && first !== 110 && first !== 78 && first < 0xad) return false;
  const folded = foldName(name);
  return folded === '.git' || (folder && folded === 'node_modules');
}

// What the skip rules say of a name in a read folder, whatever it leads to: left out for its control characters
// (counted in a note), left out, or taken. `wide` is told when a rule matched it in its wider form.
function verdictOf(
  state: State,
  frame: Frame,
  name: string,
  rel: string,
  folder: boolean,
  wide: (rules: Rules) => void,
): 'control' | 'left out' | 'taken' {
  if (holdsControls(name)) return 'control';
  if (skippedName(name, folder)) return 'left out';
  if (!folder && frame.isSecret?.(rel, name) === true) return 'left out';
  const rules = frame.rules ?? [];
  if (rules.length > 0 && isIgnored(rules, rel, name, frame.depth, folder, wide)) return 'left out';
  const skip = state.skip;
  if (skip.names.size > 0 && skip.names.has(foldName(name)) && skip.rels.has(foldRel(rel))) return 'left out';
  return 'taken';
}

// One entry of a read folder: left out, or added to the walk; a folder added comes back to be walked next.
export function admit(state: State, frame: Frame, entry: fs.Dirent): Frame | undefined {
  const childRel = frame.prefix + entry.name;
  const seen = frame.seen;
  let kind: 'file' | 'folder';
  let target: string | undefined;
  if (entry.isDirectory()) kind = 'folder';
  else if (entry.isFile()) kind = 'file';
  else if (entry.isSymbolicLink()) {
    target = symlinkedFileInside(state.box, childRel, frame.abs + path.sep + entry.name);
    if (target === undefined) {
      // Kept for the next walk when its name would be taken: its target may be a file then.
      const would = verdictOf(state, frame, entry.name, childRel, false, () => {
        seen.flags |= FLAG.wide;
      });
      if (would !== 'left out') seen.links.push({ name: entry.name, control: would === 'control' });
      return undefined;
    }
    kind = 'file';
  } else return undefined;

  const verdict = verdictOf(state, frame, entry.name, childRel, kind === 'folder', frame.wide ?? (() => {}));
  if (verdict === 'control') {
    state.controlNames++;
    if (target === undefined) seen.controlNames++;
    else seen.links.push({ name: entry.name, control: true });
    return undefined;
  }
  if (verdict === 'left out') return undefined;
  const index =
    state.out.push(
      target === undefined
        ? { kind, rel: childRel, name: entry.name, parent: frame.index }
        : { kind, rel: childRel, name: entry.name, parent: frame.index, target },
    ) - 1;
  if (kind !== 'folder') return undefined;
  // A subfolder is taken from the kept walk only under the rules it was kept under.
  const old = !frame.clean || state.kept === undefined ? -1 : keptFolderNamed(state.kept, frame.old, entry.name);
  return openFolder(
    state,
    childRel,
    frame.abs + path.sep + entry.name,
    index,
    frame.depth + 1,
    frame,
    frame.clean,
    old,
  );
}

// A folder child of a kept folder, by name, or -1.
function keptFolderNamed(kept: Kept, folder: number, name: string): number {
  const child = childNamed(kept, folder, name);
  return child === -1 || kept.kinds[child] !== CHILD.folder ? -1 : (kept.childFolders[child] ?? -1);
}

// The next children of a kept folder, added to the walk as they were kept: its files up to REPLAYED at a time, then
// a folder, which comes back to be walked next (taken from the kept walk or read), or a symlink, followed again.
export function replay(state: State, frame: Frame): Frame | undefined {
  const kept = state.kept;
  if (kept === undefined) return undefined;
  const { names, kinds } = kept;
  const out = state.out;
  const end = Math.min(frame.end, frame.next + REPLAYED);
  let child = frame.next;
  for (; child < end && kinds[child] === CHILD.file; child++) {
    const name = names[child] ?? '';
    out.push({ kind: 'file', rel: frame.prefix + name, name, parent: frame.index });
  }
  frame.next = child + 1;
  if (child === end) {
    frame.next = child;
    return undefined;
  }
  const name = names[child] ?? '';
  const kind = kinds[child];
  const childRel = frame.prefix + name;
  const abs = frame.abs + path.sep + name;
  if (kind === CHILD.folder) {
    const index = state.out.push({ kind: 'folder', rel: childRel, name, parent: frame.index }) - 1;
    return openFolder(state, childRel, abs, index, frame.depth + 1, frame, true, kept.childFolders[child] ?? -1);
  }
  const control = kind === CHILD.controlLink;
  const target = symlinkedFileInside(state.box, childRel, abs);
  if (target === undefined || control) {
    if (target !== undefined) state.controlNames++;
    frame.seen.links.push({ name, control });
    return undefined;
  }
  state.out.push({ kind: 'file', rel: childRel, name, parent: frame.index, target });
  return undefined;
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
