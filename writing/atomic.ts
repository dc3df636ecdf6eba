// Writing a file so that it is either old or new, never half: a temp file beside it, fsync, rename. The one way
// deepwork writes: project files, backup copies, manifests, saved runs.

import crypto from 'node:crypto';
import type fs from 'node:fs';
import path from 'node:path';

// The file operations used to write, passed in so tests can make any of them fail.
export type FsOps = Pick<
  typeof fs,
  | 'openSync'
  | 'writeSync'
  | 'fsyncSync'
  | 'closeSync'
  | 'renameSync'
  | 'mkdirSync'
  | 'chmodSync'
  | 'unlinkSync'
  | 'rmSync'
  | 'rmdirSync'
  | 'readFileSync'
>;

// The temp file's name for writing `name`: beside it and named after it, or short when that would pass the 255-byte
// limit most file systems put on a name.
export function tempNameFor(name: string, id: string): string {
  const long = `.${name}.deepwork-${id}.tmp`;
  return Buffer.byteLength(long) <= 255 ? long : `.deepwork-${id}.tmp`;
}

// A temp name as a manifest may hold it: one plain name of deepwork's, nothing that could point elsewhere.
export function isTempName(name: string): boolean {
  return /^\.(?:[^/\\]*\.)?deepwork-[0-9a-f]{8}\.tmp$/.test(name) && !name.includes('/') && !name.includes('\\');
}

// Writes through a temp file in the same folder and a rename, so the target is either old or new, never half.
// On failure the temp file is removed and the target is untouched.
export function writeAtomic(
  ops: FsOps,
  target: string,
  bytes: Buffer,
  mode: number | undefined,
  tempName?: string,
): void {
  const temp = path.join(
    path.dirname(target),
    tempName ?? tempNameFor(path.basename(target), crypto.randomBytes(4).toString('hex')),
  );
  let fd: number | undefined;
  try {
    fd = ops.openSync(temp, 'wx', mode ?? 0o666);
    for (let at = 0; at < bytes.length; ) at += ops.writeSync(fd, bytes, at, bytes.length - at);
    ops.fsyncSync(fd);
    ops.closeSync(fd);
    fd = undefined;
    if (mode !== undefined) ops.chmodSync(temp, mode);
    ops.renameSync(temp, target);
  } catch (error) {
    if (fd !== undefined) {
      try {
        ops.closeSync(fd);
      } catch {
        // Already failing; the unlink below is what matters.
      }
    }
    try {
      ops.unlinkSync(temp);
    } catch {
      // The temp file was never made.
    }
    throw error;
  }
}

// Thrown by a `guardedRename` rename whose target is no longer what the caller read; writeAtomic removes its temp file
// and passes it on.
export class ChangedSinceRead extends Error {}

// The file operations with one more look right before the rename onto `target`: is it still what the caller read
// (`still`)? A save made meanwhile (an editor, the user) is kept rather than overwritten. What is left is the instant
// between this look and the rename.
export function guardedRename(ops: FsOps, target: string, still: () => boolean): FsOps {
  return {
    ...ops,
    renameSync: (from, to) => {
      if (to === target && !still()) throw new ChangedSinceRead(`${target} changed since it was read`);
      ops.renameSync(from, to);
    },
  };
}
