// Writes proposed files into the project: guarded, backed up, atomic, and reported file by file. The same code
// serves --apply, `deepwork apply` and the pult's Write button.
//
// The backup set and its manifest are complete before the first file is written: the manifest names every file to be
// written with the hash of its old and of its new content, and every folder to be made. So a set cut short (Ctrl-C,
// kill -9, a crash) is undone by what is on disk: a file holding the new content is put back, one still holding the
// old is left as it is.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Proposal } from '../protocol/parse.ts';
import { isInside, type Sandbox } from '../reading/sandbox.ts';
import { errnoOf, messageOf } from '../common/errors.ts';
import { backupCopy, createSet, saveManifest, setName, sha256, type Manifest } from './backup-sets.ts';
import { ChangedSinceRead, guardedRename, tempNameFor, writeAtomic, type FsOps } from './atomic.ts';
import { plansFor, type ApplyReport, type Plan, type PreviewOptions, type Why } from './plan.ts';

export {
  previewFiles,
  type Applied,
  type ApplyReport,
  type ApplyStatus,
  type Hold,
  type PreviewOptions,
  type Why,
} from './plan.ts';

export type ApplyOptions = PreviewOptions & {
  backupDir: string;
  ops?: FsOps;
  now?: Date;
  // Stops between two files: the file being written is finished and recorded, the rest are left as they are.
  signal?: AbortSignal;
  // Per path, the `base` of the preview the user saw; a file that changed since is refused.
  expected?: ReadonlyMap<string, string>;
};

export async function applyFiles(
  box: Sandbox,
  blocks: readonly Proposal[],
  options: ApplyOptions,
): Promise<ApplyReport> {
  const ops = options.ops ?? fs;
  const plans = plansFor(box, blocks, options).map((p) => checkExpected(p, options.expected));
  const toWrite = plans.filter((p): p is Extract<Plan, { kind: 'write' }> => p.kind === 'write');
  const files = () => plans.map((p) => p.applied);
  if (toWrite.length === 0) return { files: files(), backupSet: undefined };

  const setId = crypto.randomBytes(4).toString('hex');
  const manifest: Manifest = {
    version: 2,
    root: box.root,
    created: (options.now ?? new Date()).toISOString(),
    undone: false,
    complete: false,
    files: toWrite.map((p) => ({
      path: p.realRel,
      existed: p.old !== undefined,
      mode: p.mode,
      before: p.old === undefined ? undefined : sha256(p.old),
      after: sha256(p.bytes),
      temp: tempNameFor(path.basename(p.real), setId),
      written: false,
    })),
    createdDirs: foldersToMake(
      box.root,
      toWrite.filter((p) => p.old === undefined).map((p) => p.real),
    ),
  };
  const old = new Map(toWrite.flatMap((p) => (p.old === undefined ? [] : [[p.realRel, p.old] as const])));
  let set: string;
  try {
    set = createSet(
      ops,
      options.backupDir,
      setName(options.backupDir, box.root, options.now ?? new Date()),
      manifest,
      old,
    );
  } catch (error) {
    for (const p of toWrite)
      fail(p, messageOf(error), { kind: 'write-failed', code: errnoOf(error), detail: messageOf(error) });
    return { files: files(), backupSet: undefined };
  }

  // Files found changed right before their rename: left out of the set, so undo never touches them.
  const skipped = new Set<number>();
  for (const [i, p] of toWrite.entries()) {
    const entry = manifest.files[i];
    if (entry === undefined) continue;
    if (options.signal?.aborted === true) {
      p.applied.status = 'stopped';
      p.applied.reason = 'the apply was stopped before this file; it is as it was';
      p.applied.why = { kind: 'stopped' };
      continue;
    }
    try {
      if (p.old === undefined) ops.mkdirSync(path.dirname(p.real), { recursive: true });
      // An editor's save between the plan and the rename is kept, not overwritten (and then lost to undo).
      writeAtomic(
        guardedRename(ops, p.real, () => stillAsRead(p)),
        p.real,
        p.bytes,
        p.mode,
        entry.temp,
      );
      p.applied.written = true;
      entry.written = true;
    } catch (error) {
      if (error instanceof ChangedSinceRead) {
        skipped.add(i);
        fail(
          p,
          'the file changed since deepwork read it (saved meanwhile?), and your version stays; apply again to write the proposal against it',
          { kind: 'changed-since-read' },
        );
      } else {
        fail(p, writeFailure(error), { kind: 'write-failed', code: errnoOf(error), detail: messageOf(error) });
      }
    }
    // Lets a Ctrl-C in between be heard: it stops the loop here, after a whole file.
    if (toWrite.length > 1) await new Promise((resolve) => setImmediate(resolve));
  }

  // A folder made for a file that then failed is empty: it goes again. Deepest first.
  manifest.createdDirs = manifest.createdDirs
    .filter((dir) => dir !== '')
    .reverse()
    .filter((dir) => {
      const abs = path.join(box.root, ...dir.split('/'));
      try {
        if (fs.readdirSync(abs).length === 0) ops.rmdirSync(abs);
      } catch {
        // Never made, or not empty: judged below by whether it is there.
      }
      return fs.existsSync(abs);
    })
    .reverse();

  for (const i of skipped) {
    const rel = manifest.files[i]?.path;
    try {
      if (rel !== undefined && manifest.files[i]?.existed === true) ops.rmSync(backupCopy(set, rel), { force: true });
    } catch {
      // A copy left in the set is never put back: the manifest no longer names it.
    }
  }
  manifest.files = manifest.files.filter((_, i) => !skipped.has(i));
  if (manifest.files.every((f) => !f.written)) {
    try {
      ops.rmSync(set, { recursive: true, force: true });
    } catch {
      // A set whose files were all left as they were: undo finds every file as it was and changes nothing.
    }
    return { files: files(), backupSet: undefined };
  }
  manifest.complete = options.signal?.aborted !== true;
  try {
    saveManifest(ops, set, manifest);
  } catch {
    // The first manifest stays: it names every planned file, and undo judges each by its content.
  }
  return { files: files(), backupSet: set };
}

// Whether the file is as the plan read it: the same bytes, or still absent for a new file.
function stillAsRead(p: Extract<Plan, { kind: 'write' }>): boolean {
  try {
    if (p.old === undefined) {
      fs.lstatSync(p.real);
      return false;
    }
    return fs.readFileSync(p.real).equals(p.old);
  } catch (error) {
    return p.old === undefined && errnoOf(error) === 'ENOENT';
  }
}

function fail(p: Plan, reason: string, why: Why): void {
  p.applied.status = 'failed';
  p.applied.reason = reason;
  p.applied.why = why;
}

function checkExpected(p: Plan, expected: ReadonlyMap<string, string> | undefined): Plan {
  const wanted = expected?.get(p.applied.path);
  if (wanted === undefined || p.kind !== 'write' || p.applied.base === wanted) return p;
  return {
    kind: 'report',
    applied: {
      ...p.applied,
      status: 'refused',
      reason: 'the file changed since its diff was shown; look at the new diff and write again',
      why: { kind: 'changed-since-shown' },
    },
  };
}

// The folders that writing these new files will make, relative to the root, outermost first.
function foldersToMake(root: string, targets: readonly string[]): string[] {
  const missing = new Set<string>();
  for (const target of targets) {
    for (
      let dir = path.dirname(target);
      isInside(root, dir) && dir !== root && !fs.existsSync(dir);
      dir = path.dirname(dir)
    ) {
      missing.add(path.relative(root, dir).split(path.sep).join('/'));
    }
  }
  return [...missing].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
}

function writeFailure(error: unknown): string {
  const code = errnoOf(error);
  const why: Record<string, string> = {
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is used up',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
    ENOTDIR: 'a file is in the way of a folder on its path',
    EEXIST: 'a file is in the way of a folder on its path',
    EISDIR: 'a folder is in the way',
    ENAMETOOLONG: 'the name is too long for this file system',
  };
  const what = code === undefined ? messageOf(error) : `${why[code] ?? messageOf(error)} (${code})`;
  return `${what}; the file on disk is as it was`;
}
