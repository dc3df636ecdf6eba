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
import { isTempName, writeAtomic, type FsOps } from './atomic.ts';
import { DeepworkError, errnoOf, messageOf } from '../common/errors.ts';
import { isInside, normalizeRequest, resolvePath, resolveTarget, type Sandbox } from '../reading/sandbox.ts';

export type Undone = { path: string; action: 'restored' | 'removed' | 'left' | 'failed'; reason?: string };
export type UndoReport = { set: SetInfo | undefined; files: Undone[] };

export function undoLast(box: Sandbox, backupDir: string, ops: FsOps = fs, name?: string): UndoReport {
  const set = setsOf(backupDir, box.root).find((s) => !s.manifest.undone && (name === undefined || s.name === name));
  if (set === undefined) return { set: undefined, files: [] };
  const files = set.manifest.files.flatMap((entry) => {
    const done = undoFile(box, set, entry, ops);
    return done === undefined ? [] : [done];
  });
  for (const dir of [...set.manifest.createdDirs].reverse()) removeIfEmpty(box, dir, ops);
  if (files.every((f) => f.action !== 'failed')) {
    set.manifest.undone = true;
    try {
      saveManifest(ops, set.dir, set.manifest);
    } catch (error) {
      throw new DeepworkError('UNDO_FAILED', `The files are back, but ${set.dir} could not be marked as undone (${messageOf(error)}); a second undo would find the files changed and leave them alone.`, { cause: error });
    }
  }
  return { set, files };
}

// One file of a set put back; undefined when there is nothing to do (it was never written).
function undoFile(box: Sandbox, set: SetInfo, entry: ManifestFile, ops: FsOps): Undone | undefined {
  const normal = normalizeRequest(entry.path);
  if ('reason' in normal || normal.rel !== entry.path) return { path: entry.path, action: 'failed', reason: 'the manifest names a path outside the project; nothing was touched' };
  const rel = normal.rel;
  const target = resolveTarget(box, rel);
  if (target.kind === 'refused') return { path: rel, action: 'left', reason: `${target.reason}; nothing was touched` };
  if (target.realRel !== rel) return { path: rel, action: 'left', reason: `it is now a link to ${target.realRel}; nothing was touched` };
  if (entry.temp !== undefined && isTempName(entry.temp)) removeLeftover(path.join(path.dirname(target.real), entry.temp), ops);
  if (entry.after === '') return undefined;

  let current: Buffer | undefined;
  if (target.kind === 'existing') {
    try {
      current = fs.readFileSync(target.real);
    } catch (error) {
      return { path: rel, action: 'failed', reason: `it cannot be read (${errnoOf(error) ?? messageOf(error)})` };
    }
  }
  const now = current === undefined ? undefined : sha256(current);
  if (now !== entry.after) {
    // Still as it was before the apply: the set was cut short before this file.
    if (now === entry.before) return undefined;
    const where = entry.existed ? `; its old version stays in ${backupCopy(set.dir, rel)}` : '';
    return { path: rel, action: 'left', reason: `it changed after deepwork wrote it${where}` };
  }
  try {
    if (!entry.existed) {
      ops.unlinkSync(target.real);
      return { path: rel, action: 'removed' };
    }
    const copy = backupCopy(set.dir, rel);
    if (!isInside(set.dir, copy)) return { path: rel, action: 'failed', reason: 'its backup copy is outside the set; nothing was touched' };
    writeAtomic(ops, target.real, fs.readFileSync(copy), entry.mode);
    return { path: rel, action: 'restored' };
  } catch (error) {
    return { path: rel, action: 'failed', reason: `${messageOf(error)}; the file is as it was` };
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
