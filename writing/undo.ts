// `deepwork undo`: puts an applied set of this project back, the last one unless named (the pult's Undo names the
// set its Write made). Each file is judged by what is on disk now: one holding what deepwork wrote is put back; one
// still holding its old content was never written (a set cut short) and is left; one holding anything else changed
// after the apply and is left alone and named — undo never throws away work done since.
//
// A manifest is data on disk and may have been edited: every path in it goes through the path rule, and a file that
// is now reached through a symlink is not touched.

import fs from 'node:fs';
import path from 'node:path';
import { backupCopy, saveManifest, setsOf, sha256, type ManifestFile, type SetInfo } from './backup-sets.ts';
import { ChangedSinceRead, guardedRename, isTempName, writeAtomic, type FsOps } from './atomic.ts';
import { DeepworkError, errnoOf, messageOf } from '../common/errors.ts';
import { foldRel, isInside, normalizeRequest, resolvePath, resolveTarget, type Sandbox } from '../reading/sandbox.ts';

// `why`: `reason` as a tag, for the pult, which words it in the reader's language.
export type Undone = {
  path: string;
  action: 'restored' | 'removed' | 'left' | 'failed';
  reason?: string;
  why?: UndoWhy;
};

// Why undo left a file as it is, or could not put it back. `copy`: where the old version stays, when there is one.
export type UndoWhy =
  | { kind: 'outside' }
  | { kind: 'path-refused'; detail: string }
  | { kind: 'now-link'; to: string }
  | { kind: 'unreadable'; code: string }
  | { kind: 'changed-after'; copy: string | undefined }
  | { kind: 'changed-while'; copy: string | undefined }
  | { kind: 'copy-outside' }
  | { kind: 'failed'; detail: string };
// `later`: files of the set that a later set, not undone, wrote again, with that set's name. When there are any,
// nothing was touched: putting the set's old versions back would throw away the later write and whatever the user
// did between the two, which only the later set's backup holds. Undo the later set first.
export type UndoReport = { set: SetInfo | undefined; files: Undone[]; later: Array<{ path: string; set: string }> };

export function undoLast(box: Sandbox, backupDir: string, ops: FsOps = fs, name?: string): UndoReport {
  const sets = setsOf(backupDir, box.root);
  const at = sets.findIndex((s) => !s.manifest.undone && (name === undefined || s.name === name));
  const set = sets[at];
  if (set === undefined) return { set: undefined, files: [], later: [] };
  const later = writtenLater(set, sets.slice(0, at));
  if (later.length > 0) return { set, files: [], later };
  const files = set.manifest.files.flatMap((entry) => {
    const done = undoFile(box, set, entry, ops);
    return done === undefined ? [] : [done];
  });
  for (const dir of [...set.manifest.createdDirs].reverse()) removeIfEmpty(box, dir, ops);
  if (files.every((f) => f.action !== 'failed')) {
    set.manifest.undone = true;
    set.manifest.undoneAt = new Date().toISOString();
    try {
      saveManifest(ops, set.dir, set.manifest);
    } catch (error) {
      throw new DeepworkError(
        'UNDO_FAILED',
        `The files are back, but ${set.dir} could not be marked as undone (${messageOf(error)}); a second undo would find the files changed and leave them alone.`,
        { cause: error },
      );
    }
  }
  return { set, files, later };
}

// The later writes that stand in an undo's way, in words: "a.js was written again by the later set NAME, which is not
// undone". The console and the pult both say it.
export function laterWrites(later: UndoReport['later']): string {
  const bySet = new Map<string, string[]>();
  for (const { path: file, set } of later) bySet.set(set, [...(bySet.get(set) ?? []), file]);
  return [...bySet]
    .map(([set, files]) => {
      const list = files.length === 1 ? (files[0] ?? '') : `${files.slice(0, -1).join(', ')} and ${files.at(-1) ?? ''}`;
      return `${list} ${files.length === 1 ? 'was' : 'were'} written again by the later set ${set}, which is not undone`;
    })
    .join('; ');
}

// The files of `set` that a newer set, not undone, also wrote (or may have: one cut short before it could say).
// Sets come newest first; only a named undo can reach past the newest.
function writtenLater(set: SetInfo, newer: readonly SetInfo[]): UndoReport['later'] {
  const later: UndoReport['later'] = [];
  for (const entry of set.manifest.files) {
    if (entry.after === '' || (!entry.written && set.manifest.complete)) continue;
    const folded = foldRel(entry.path);
    const by = newer.find(
      (s) =>
        !s.manifest.undone &&
        s.manifest.files.some((f) => foldRel(f.path) === folded && (f.written || !s.manifest.complete)),
    );
    if (by !== undefined) later.push({ path: entry.path, set: by.name });
  }
  return later;
}

// One file of a set put back; undefined when there is nothing to do (it was never written).
function undoFile(box: Sandbox, set: SetInfo, entry: ManifestFile, ops: FsOps): Undone | undefined {
  const normal = normalizeRequest(entry.path);
  if ('reason' in normal || normal.rel !== entry.path)
    return {
      path: entry.path,
      action: 'failed',
      reason: 'the manifest names a path outside the project; nothing was touched',
      why: { kind: 'outside' },
    };
  const rel = normal.rel;
  const target = resolveTarget(box, rel);
  if (target.kind === 'refused')
    return {
      path: rel,
      action: 'left',
      reason: `${target.reason}; nothing was touched`,
      why: { kind: 'path-refused', detail: target.reason },
    };
  if (target.realRel !== rel)
    return {
      path: rel,
      action: 'left',
      reason: `it is now a link to ${target.realRel}; nothing was touched`,
      why: { kind: 'now-link', to: target.realRel },
    };
  if (entry.temp !== undefined && isTempName(entry.temp))
    removeLeftover(path.join(path.dirname(target.real), entry.temp), ops);
  if (entry.after === '') return undefined;

  let current: Buffer | undefined;
  if (target.kind === 'existing') {
    try {
      current = fs.readFileSync(target.real);
    } catch (error) {
      const code = errnoOf(error) ?? messageOf(error);
      return { path: rel, action: 'failed', reason: `it cannot be read (${code})`, why: { kind: 'unreadable', code } };
    }
  }
  const now = current === undefined ? undefined : sha256(current);
  const copy = entry.existed ? backupCopy(set.dir, rel) : undefined;
  const where = copy === undefined ? '' : `; its old version stays in ${copy}`;
  if (now !== entry.after) {
    // Still as it was before the apply: the set was cut short before this file.
    if (now === entry.before) return undefined;
    return {
      path: rel,
      action: 'left',
      reason: `it changed after deepwork wrote it${where}`,
      why: { kind: 'changed-after', copy },
    };
  }
  try {
    if (!entry.existed) {
      ops.unlinkSync(target.real);
      return { path: rel, action: 'removed' };
    }
    const old = backupCopy(set.dir, rel);
    if (!isInside(set.dir, old))
      return {
        path: rel,
        action: 'failed',
        reason: 'its backup copy is outside the set; nothing was touched',
        why: { kind: 'copy-outside' },
      };
    // A save between the look above and the rename is kept: the file is left, as one changed after the apply is.
    writeAtomic(
      guardedRename(ops, target.real, () => stillWritten(target.real, entry.after)),
      target.real,
      fs.readFileSync(old),
      entry.mode,
    );
    return { path: rel, action: 'restored' };
  } catch (error) {
    if (error instanceof ChangedSinceRead)
      return {
        path: rel,
        action: 'left',
        reason: `it changed while undo ran, and is as you left it${where}`,
        why: { kind: 'changed-while', copy },
      };
    return {
      path: rel,
      action: 'failed',
      reason: `${messageOf(error)}; the file is as it was`,
      why: { kind: 'failed', detail: messageOf(error) },
    };
  }
}

function stillWritten(file: string, after: string): boolean {
  try {
    return sha256(fs.readFileSync(file)) === after;
  } catch {
    return false;
  }
}

function removeLeftover(temp: string, ops: FsOps): void {
  try {
    if (fs.lstatSync(temp).isFile()) ops.unlinkSync(temp);
  } catch {
    // No leftover: the usual case.
  }
}

// A folder deepwork made, removed when it is empty again; only a real folder inside the project, never through a link.
function removeIfEmpty(box: Sandbox, dir: string, ops: FsOps): void {
  const normal = normalizeRequest(dir);
  if ('reason' in normal || normal.rel !== dir) return;
  const place = resolvePath(box, dir);
  if (place.kind !== 'folder' || place.real !== path.join(box.root, ...dir.split('/'))) return;
  try {
    ops.rmdirSync(place.real);
  } catch {
    // Not empty (the user put something there) or already gone: leave it.
  }
}
