// `deepwork undo`: puts an applied set of this project back, the last one unless named (the pult's Undo names the
// set its Write made). A file that changed since deepwork wrote it is left alone and named: undo never throws away
// work done after the apply.

import fs from 'node:fs';
import path from 'node:path';
import { backupCopy, saveManifest, setsOf, sha256, writeAtomic, type FsOps, type SetInfo } from './backup.ts';
import { DeepworkError, errnoOf, messageOf } from './errors.ts';
import type { Sandbox } from './sandbox.ts';

export type Undone = { path: string; action: 'restored' | 'removed' | 'left' | 'failed'; reason?: string };
export type UndoReport = { set: SetInfo | undefined; files: Undone[] };

export function undoLast(box: Sandbox, backupDir: string, ops: FsOps = fs, name?: string): UndoReport {
  const set = setsOf(backupDir, box.root).find((s) => !s.manifest.undone && (name === undefined || s.name === name));
  if (set === undefined) return { set: undefined, files: [] };
  const files: Undone[] = [];
  for (const entry of set.manifest.files) {
    if (!entry.written) continue;
    const target = path.join(box.root, ...entry.path.split('/'));
    let current: Buffer | undefined;
    try {
      current = fs.readFileSync(target);
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') {
        files.push({ path: entry.path, action: 'failed', reason: `it cannot be read (${errnoOf(error) ?? messageOf(error)})` });
        continue;
      }
    }
    if (current === undefined ? entry.existed : sha256(current) !== entry.sha256) {
      const where = entry.existed ? `; its old version stays in ${backupCopy(set.dir, entry.path)}` : '';
      files.push({ path: entry.path, action: 'left', reason: `it changed after deepwork wrote it${where}` });
      continue;
    }
    try {
      if (entry.existed) {
        writeAtomic(ops, target, fs.readFileSync(backupCopy(set.dir, entry.path)), entry.mode);
        files.push({ path: entry.path, action: 'restored' });
      } else {
        if (current !== undefined) ops.unlinkSync(target);
        files.push({ path: entry.path, action: 'removed' });
      }
    } catch (error) {
      files.push({ path: entry.path, action: 'failed', reason: `${messageOf(error)}; the file is as it was` });
    }
  }
  for (const dir of [...set.manifest.createdDirs].reverse()) {
    try {
      fs.rmdirSync(path.join(box.root, ...dir.split('/')));
    } catch {
      // Not empty (the user put something there) or already gone: leave it.
    }
  }
  if (files.every((f) => f.action !== 'failed')) {
    set.manifest.undone = true;
    try {
      saveManifest(ops, set.dir, set.manifest);
    } catch (error) {
      throw new DeepworkError('APPLY_FAILED', `The files are back, but ${set.dir} could not be marked as undone (${messageOf(error)}); a second undo would find the files changed and leave them alone.`, { cause: error });
    }
  }
  return { set, files };
}
