// Writes proposed files into the project: guarded, backed up, atomic, and reported file by file. The same code
// serves --apply, `deepwork apply` and the pult's Write button.

import fs from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch, diffLines } from 'diff';
import type { FileBlock } from './parse.ts';
import { resolveTarget, type Sandbox } from './sandbox.ts';
import { elisionOf, keepConventions } from './conventions.ts';
import { countLines } from './text.ts';
import { isBinary } from './search.js';
import { errnoOf, messageOf } from './errors.ts';
import { backupCopy, createSet, saveManifest, setName, sha256, writeAtomic, type FsOps, type Manifest } from './backup.ts';

export type ApplyStatus = 'new' | 'changed' | 'unchanged' | 'incomplete' | 'held back' | 'refused' | 'failed';

export type Applied = {
  path: string;
  status: ApplyStatus;
  added: number;
  removed: number;
  written: boolean;
  reason?: string;
  // A unified diff against the disk, when asked for.
  diff?: string;
};

export type ApplyReport = { files: Applied[]; backupSet: string | undefined };

export type ApplyOptions = {
  backupDir: string;
  // Write files held back for looking elided.
  force?: boolean;
  // Only report what would happen: nothing is written.
  dryRun?: boolean;
  diff?: boolean;
  ops?: FsOps;
  now?: Date;
};

type Plan = Applied & { target?: string; bytes?: Buffer; old?: Buffer; mode?: number | undefined; existed?: boolean };

export function applyFiles(box: Sandbox, blocks: readonly FileBlock[], options: ApplyOptions): ApplyReport {
  const ops = options.ops ?? fs;
  const plans = latestPerPath(blocks).map((block) => plan(box, block, options));
  const toWrite = plans.filter((p) => p.status === 'new' || p.status === 'changed');
  if (options.dryRun === true || toWrite.length === 0) return { files: plans.map(report), backupSet: undefined };

  const manifest: Manifest = {
    version: 1, root: box.root, created: (options.now ?? new Date()).toISOString(), undone: false, createdDirs: [],
    files: toWrite.map((p) => ({ path: p.path, existed: p.existed === true, mode: p.mode, written: false, sha256: undefined })),
  };
  const old = new Map(toWrite.flatMap((p) => (p.old === undefined ? [] : [[p.path, p.old] as const])));
  let set: string;
  try {
    set = createSet(ops, options.backupDir, setName(options.backupDir, box.root, options.now ?? new Date()), manifest, old);
  } catch (error) {
    for (const p of toWrite) Object.assign(p, { status: 'failed', reason: messageOf(error) });
    return { files: plans.map(report), backupSet: undefined };
  }

  for (const [i, p] of toWrite.entries()) {
    const entry = manifest.files[i];
    if (p.target === undefined || p.bytes === undefined || entry === undefined) continue;
    try {
      if (p.existed !== true) manifest.createdDirs.push(...makeParents(ops, box.root, p.target));
      writeAtomic(ops, p.target, p.bytes, p.mode);
      p.written = true;
      entry.written = true;
      entry.sha256 = sha256(p.bytes);
    } catch (error) {
      Object.assign(p, { status: 'failed', reason: writeFailure(error) });
    }
  }

  if (manifest.files.every((f) => !f.written)) {
    try {
      ops.rmSync(set, { recursive: true, force: true });
    } catch {
      // A set whose files were all left as they were; it restores nothing it should not, and undo skips it.
    }
    return { files: plans.map(report), backupSet: undefined };
  }
  manifest.files = manifest.files.filter((f) => f.written);
  try {
    saveManifest(ops, set, manifest);
  } catch {
    // The set's first manifest stays: undo then skips these files, but their old versions are in the set.
  }
  return { files: plans.map(report), backupSet: set };
}

// A later block for the same path replaces an earlier one.
function latestPerPath(blocks: readonly FileBlock[]): FileBlock[] {
  const byPath = new Map<string, FileBlock>();
  for (const block of blocks) {
    byPath.delete(block.path);
    byPath.set(block.path, block);
  }
  return [...byPath.values()];
}

function plan(box: Sandbox, block: FileBlock, options: ApplyOptions): Plan {
  const base: Plan = { path: block.path, status: 'refused', added: 0, removed: 0, written: false };
  if (!block.complete) return { ...base, status: 'incomplete', reason: 'the reply ended before its END marker; it is never written' };
  const target = resolveTarget(box, block.path);
  if (target.kind === 'refused') return { ...base, path: target.rel, reason: target.reason };

  if (target.kind === 'new') {
    const bytes = Buffer.from(block.content, 'utf8');
    const diff = options.diff === true ? unifiedDiff(target.rel, '', block.content) : undefined;
    return { ...base, path: target.rel, status: 'new', added: countLines(block.content), target: target.abs, bytes, existed: false, ...(diff === undefined ? {} : { diff }) };
  }

  let old: Buffer;
  let mode: number;
  try {
    old = fs.readFileSync(target.real);
    mode = fs.statSync(target.real).mode & 0o7777;
  } catch (error) {
    return { ...base, path: target.rel, status: 'failed', reason: `it cannot be read (${errnoOf(error) ?? messageOf(error)})` };
  }
  if ((mode & 0o222) === 0) return { ...base, path: target.rel, reason: 'the file is read-only; make it writable to let deepwork replace it' };
  if (isBinary(old)) return { ...base, path: target.rel, reason: 'the file on disk is binary; deepwork replaces text files only' };

  const oldText = old.toString('utf8');
  const newText = keepConventions(oldText, block.content);
  if (newText === oldText) return { ...base, path: target.rel, status: 'unchanged' };
  const counts = changedLines(oldText, newText);
  const diff = options.diff === true ? unifiedDiff(target.rel, oldText, newText) : undefined;
  const planned: Plan = {
    ...base, path: target.rel, status: 'changed', ...counts, target: target.real, bytes: Buffer.from(newText, 'utf8'),
    old, mode, existed: true, ...(diff === undefined ? {} : { diff }),
  };
  const elided = options.force === true ? undefined : elisionOf(oldText, newText);
  if (elided !== undefined) return { ...planned, status: 'held back', reason: `${elided}; check it, then write it with --force` };
  return planned;
}

// Creates the missing folders above a new file; returns them relative to the root, outermost first.
function makeParents(ops: FsOps, root: string, target: string): string[] {
  const missing: string[] = [];
  for (let dir = path.dirname(target); dir.length > root.length && !fs.existsSync(dir); dir = path.dirname(dir)) missing.unshift(dir);
  if (missing.length > 0) ops.mkdirSync(path.dirname(target), { recursive: true });
  return missing.map((dir) => path.relative(root, dir).split(path.sep).join('/'));
}

function changedLines(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    if (part.added) added += part.count ?? 0;
    if (part.removed) removed += part.count ?? 0;
  }
  return { added, removed };
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
  };
  const what = code === undefined ? messageOf(error) : `${why[code] ?? messageOf(error)} (${code})`;
  return `not written: ${what}; the file on disk is as it was`;
}

function unifiedDiff(rel: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(`a/${rel}`, `b/${rel}`, before, after, undefined, undefined, { context: 3 });
  const lines = patch.split('\n').slice(1);
  const MAX = 200;
  return lines.length > MAX ? `${lines.slice(0, MAX).join('\n')}\n… ${lines.length - MAX} more diff lines` : lines.join('\n');
}

function report(p: Plan): Applied {
  const { target: _t, bytes: _b, old: _o, mode: _m, existed: _e, ...applied } = p;
  return applied;
}
