// What a finished walk keeps for the next run's (reading/walk-cache.ts holds the format and says why): every folder it
// entered, with the stamps of the folder and of its .gitignore, and the folder's children in order: its entries, and
// the symlinks that are not entries this time but may lead to a file next time.

import path from 'node:path';
import type { WalkEntry } from './walk.ts';
import {
  CHILD,
  encodeKept,
  KEPT_ENTRIES,
  lstamp,
  stamp,
  type KeptFolder,
  type RuleFile,
  type Stamp,
} from './walk-cache.ts';

// A folder the walk entered, or found to be a git directory, as the walk notes it. `index`: its entry's, -1 for the
// root. `stamp`: the folder's, when it was taken before the folder was read or comes from the kept walk; else it is
// taken when the walk is kept, which is as good (a change after the read is newer than the walk's start, so the next
// walk does not trust it). `gitignore`: its .gitignore as read. `controlNames`: entries left out for control
// characters, but for symlinks, which are in `links` with every other symlink that is not an entry. `flags`: FLAG's.
export type Seen = {
  index: number;
  abs: string;
  stamp: Stamp | undefined;
  gitignore: RuleFile | undefined;
  controlNames: number;
  flags: number;
  links: Link[];
};

// A symlink that is not an entry of this walk, whose name the skip rules take (`control`: they leave it out for its
// control characters, which is counted in a note when it leads to a file).
export type Link = { name: string; control: boolean };

// Takes the stamps not yet taken of `seen`, from `from` on, until `deadline` (performance.now()) has passed; returns
// where it got to (seen.length when all are taken). Taken after the walk, in slices while the model reads the first
// message: a stat of every folder took 50-70 ms on the Linux source's 5,000 folders here.
export function stampSeen(seen: readonly Seen[], from: number, deadline: number): number {
  let i = from;
  for (; i < seen.length; i++) {
    const s = seen[i];
    if (s === undefined) continue;
    s.stamp ??= lstamp(s.abs);
    if (s.gitignore !== undefined) s.gitignore.stamp ??= stamp(path.join(s.abs, '.gitignore'));
    if (i % 64 === 63 && performance.now() > deadline) return i + 1;
  }
  return i;
}

// The bytes to keep for a walk begun at `began` (ms since the epoch), whose folders are `seen` in the order it entered
// them and whose entries are `out`; undefined past KEPT_ENTRIES.
export function keptWalkOf(
  key: string,
  began: number,
  exclude: RuleFile,
  seen: readonly Seen[],
  out: readonly WalkEntry[],
): Uint8Array | undefined {
  if (out.length > KEPT_ENTRIES || seen.length === 0) return undefined;
  stampSeen(seen, 0, Number.POSITIVE_INFINITY);
  // Each folder entry's place in `seen` (-1: not entered), and the entries grouped by the folder holding them (the
  // root is seen first), in their order.
  const seenOf = new Int32Array(out.length).fill(-1);
  let children = out.length;
  for (let i = 0; i < seen.length; i++) {
    const s = seen[i];
    if (s === undefined) continue;
    if (s.index >= 0) seenOf[s.index] = i;
    children += s.links.length;
  }
  const holders = new Int32Array(out.length);
  const starts = new Uint32Array(seen.length + 1);
  for (let i = 0; i < out.length; i++) {
    const parent = out[i]?.parent ?? -1;
    const holder = parent === -1 ? 0 : (seenOf[parent] ?? 0);
    holders[i] = holder;
    starts[holder + 1] = (starts[holder + 1] ?? 0) + 1;
  }
  for (let i = 1; i <= seen.length; i++) starts[i] = (starts[i] ?? 0) + (starts[i - 1] ?? 0);
  const filled = starts.slice(0, seen.length);
  const grouped = new Int32Array(out.length);
  for (let i = 0; i < out.length; i++) {
    const holder = holders[i] ?? 0;
    const at = filled[holder] ?? 0;
    grouped[at] = i;
    filled[holder] = at + 1;
  }
  const folders: KeptFolder[] = [];
  const names: string[] = [];
  const kinds = new Uint8Array(children);
  const childFolders = new Int32Array(children).fill(-1);
  for (let i = 0; i < seen.length; i++) {
    const s = seen[i];
    if (s === undefined) continue;
    const first = names.length;
    // The entries and the other symlinks, both in name order, merged back into the folder's order.
    let a = starts[i] ?? 0;
    const aEnd = starts[i + 1] ?? 0;
    let b = 0;
    while (a < aEnd || b < s.links.length) {
      const at = grouped[a] ?? 0;
      const e = a < aEnd ? out[at] : undefined;
      const link = s.links[b];
      const j = names.length;
      if (e !== undefined && (link === undefined || e.name < link.name)) {
        names.push(e.name);
        if (e.kind === 'folder') {
          kinds[j] = CHILD.folder;
          childFolders[j] = seenOf[at] ?? -1;
        } else kinds[j] = e.target === undefined ? CHILD.file : CHILD.link;
        a++;
      } else if (link !== undefined) {
        names.push(link.name);
        kinds[j] = link.control ? CHILD.controlLink : CHILD.link;
        b++;
      }
    }
    folders.push({
      stamp: s.stamp,
      gitignore: s.gitignore,
      controlNames: s.controlNames,
      flags: s.flags,
      first,
      count: names.length - first,
    });
  }
  return encodeKept({ key, began, exclude, folders, names, kinds, childFolders });
}
