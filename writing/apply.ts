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
import type { EditBlock, Proposal } from '../protocol/parse.ts';
import { applyEdit } from '../protocol/edit.ts';
import { foldRel, gitDirsMadeBy, isInside, madeGitDir, normalizeRequest, resolveTarget, type Sandbox, type Target } from '../reading/sandbox.ts';
import { elisionOf, keepConventions } from './conventions.ts';
import { countLines } from '../common/text.ts';
import { encode, encodingName } from '../reading/encoding.ts';
import { forChange, readText, unfitReason } from '../reading/text.ts';
import { errnoOf, messageOf } from '../common/errors.ts';
import { backupCopy, createSet, saveManifest, setName, sha256, type Manifest } from './backup-sets.ts';
import { ChangedSinceRead, guardedRename, tempNameFor, writeAtomic, type FsOps } from './atomic.ts';
import { diffTexts } from './diff.ts';
import { runsCode } from './run-code.ts';

// `stopped`: not reached, because the apply was stopped (Ctrl-C) before it.
export type ApplyStatus = 'new' | 'changed' | 'unchanged' | 'incomplete' | 'held back' | 'refused' | 'failed' | 'stopped';

export type Applied = {
  path: string;
  status: ApplyStatus;
  added: number;
  removed: number;
  written: boolean;
  reason?: string;
  // A unified diff against the disk, when asked for.
  diff?: string;
  // What the diff was made against: the file's real place and its bytes (or their absence), hashed. The pult's Write
  // sends it back, and a file that is no longer that is not overwritten.
  base?: string;
  // Why a 'held back' file is held back, without the console's words for writing it anyway: the pult says its own.
  hold?: Hold;
};

// `elided`: it looks like a whole file with parts left out ("rest unchanged"); `runs-code`: tools run it by themselves
// (writing/run-code.ts). `why` completes the sentence.
export type Hold = { kind: 'elided' | 'runs-code'; why: string };

export type ApplyReport = { files: Applied[]; backupSet: string | undefined };

export type PreviewOptions = {
  // Write files held back for looking elided.
  force?: boolean;
  // Paths the user named to write although they make tools run code (--trust, the pult's Write on one card).
  trust?: readonly string[];
  diff?: boolean;
};

export type ApplyOptions = PreviewOptions & {
  backupDir: string;
  ops?: FsOps;
  now?: Date;
  // Stops between two files: the file being written is finished and recorded, the rest are left as they are.
  signal?: AbortSignal;
  // Per path, the `base` of the preview the user saw; a file that changed since is refused.
  expected?: ReadonlyMap<string, string>;
};

// What to do with one proposal: report it as it is, or write it.
type Plan =
  | { kind: 'report'; applied: Applied }
  | { kind: 'write'; applied: Applied; realRel: string; real: string; bytes: Buffer; old: Buffer | undefined; mode: number | undefined };

// The proposals as they stand against the disk now; nothing is written.
export function previewFiles(box: Sandbox, blocks: readonly Proposal[], options: PreviewOptions = {}): Applied[] {
  return plansFor(box, blocks, options).map((p) => p.applied);
}

export async function applyFiles(box: Sandbox, blocks: readonly Proposal[], options: ApplyOptions): Promise<ApplyReport> {
  const ops = options.ops ?? fs;
  const plans = plansFor(box, blocks, options).map((p) => checkExpected(p, options.expected));
  const toWrite = plans.filter((p): p is Extract<Plan, { kind: 'write' }> => p.kind === 'write');
  const files = () => plans.map((p) => p.applied);
  if (toWrite.length === 0) return { files: files(), backupSet: undefined };

  const setId = crypto.randomBytes(4).toString('hex');
  const manifest: Manifest = {
    version: 2, root: box.root, created: (options.now ?? new Date()).toISOString(), undone: false, complete: false,
    files: toWrite.map((p) => ({
      path: p.realRel, existed: p.old !== undefined, mode: p.mode, before: p.old === undefined ? undefined : sha256(p.old),
      after: sha256(p.bytes), temp: tempNameFor(path.basename(p.real), setId), written: false,
    })),
    createdDirs: foldersToMake(box.root, toWrite.filter((p) => p.old === undefined).map((p) => p.real)),
  };
  const old = new Map(toWrite.flatMap((p) => (p.old === undefined ? [] : [[p.realRel, p.old] as const])));
  let set: string;
  try {
    set = createSet(ops, options.backupDir, setName(options.backupDir, box.root, options.now ?? new Date()), manifest, old);
  } catch (error) {
    for (const p of toWrite) fail(p, messageOf(error));
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
      continue;
    }
    try {
      if (p.old === undefined) ops.mkdirSync(path.dirname(p.real), { recursive: true });
      // An editor's save between the plan and the rename is kept, not overwritten (and then lost to undo).
      writeAtomic(guardedRename(ops, p.real, () => stillAsRead(p)), p.real, p.bytes, p.mode, entry.temp);
      p.applied.written = true;
      entry.written = true;
    } catch (error) {
      if (error instanceof ChangedSinceRead) {
        skipped.add(i);
        fail(p, 'the file changed since deepwork read it (saved meanwhile?), and your version stays; apply again to write the proposal against it');
      } else {
        fail(p, writeFailure(error));
      }
    }
    // Lets a Ctrl-C in between be heard: it stops the loop here, after a whole file.
    if (toWrite.length > 1) await new Promise((resolve) => setImmediate(resolve));
  }

  // A folder made for a file that then failed is empty: it goes again. Deepest first.
  manifest.createdDirs = manifest.createdDirs.filter((dir) => dir !== '').reverse().filter((dir) => {
    const abs = path.join(box.root, ...dir.split('/'));
    try {
      if (fs.readdirSync(abs).length === 0) ops.rmdirSync(abs);
    } catch {
      // Never made, or not empty: judged below by whether it is there.
    }
    return fs.existsSync(abs);
  }).reverse();

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

function fail(p: Plan, reason: string): void {
  p.applied.status = 'failed';
  p.applied.reason = reason;
}

function checkExpected(p: Plan, expected: ReadonlyMap<string, string> | undefined): Plan {
  const wanted = expected?.get(p.applied.path);
  if (wanted === undefined || p.kind !== 'write' || p.applied.base === wanted) return p;
  return { kind: 'report', applied: { ...p.applied, status: 'refused', reason: 'the file changed since its diff was shown; look at the new diff and write again' } };
}

// The proposals for each path, in order: a FILE drops what came before it, an EDIT changes what came before it. A
// later path to the same file (a symlink and its target) replaces an earlier one. Each path's list grows in place:
// copying it for every block made many EDITs of one path cost their number squared.
function plansFor(box: Sandbox, blocks: readonly Proposal[], options: PreviewOptions): Plan[] {
  const byPath = new Map<string, Proposal[]>();
  for (const block of blocks) {
    const ops = block.kind === 'file' ? [] : (byPath.get(block.path) ?? []);
    ops.push(block);
    byPath.delete(block.path);
    byPath.set(block.path, ops);
  }
  const plans = [...byPath.entries()].map(([wanted, ops]) => plan(box, wanted, ops, options));
  const last = new Map<string, Plan>();
  for (const p of plans) if (p.kind === 'write') last.set(p.realRel, p);
  // Files that together make a folder a git directory (HEAD, objects/…, refs/…, config): each alone passed the path rule.
  const gitDirs = gitDirsMadeBy(box.root, [...last.keys()]);
  const inGitDir = (rel: string) => gitDirs.find((dir) => dir === '.' || foldRel(rel).startsWith(`${foldRel(dir)}/`));
  return plans.map((p): Plan => {
    if (p.kind !== 'write') return p;
    if (last.get(p.realRel) !== p) return { kind: 'report', applied: { ...p.applied, status: 'refused', reason: `a later proposal writes the same file (${p.realRel})` } };
    const gitDir = inGitDir(p.realRel);
    return gitDir === undefined ? p : { kind: 'report', applied: { ...p.applied, status: 'refused', reason: madeGitDir(gitDir) } };
  });
}

function plan(box: Sandbox, wanted: string, ops: readonly Proposal[], options: PreviewOptions): Plan {
  const base: Applied = { path: wanted, status: 'refused', added: 0, removed: 0, written: false };
  const report = (applied: Partial<Applied>): Plan => ({ kind: 'report', applied: { ...base, ...applied } });
  const cut = ops.find((op) => !op.complete);
  if (cut !== undefined) return report({ status: 'incomplete', reason: `the reply ended before ${cut.kind === 'file' ? 'its' : 'an EDIT block\'s'} END marker; it is never written` });
  const unread = ops.find((op): op is EditBlock => op.kind === 'edit' && op.problem !== undefined);
  if (unread?.problem !== undefined) return report({ status: 'failed', reason: `an EDIT block could not be read: ${unread.problem}` });
  const whole = ops[0]?.kind === 'file' ? ops[0] : undefined;
  const edits = ops.filter((op): op is EditBlock => op.kind === 'edit');
  const target = resolveTarget(box, wanted);
  if (target.kind === 'refused') return report({ path: target.rel, reason: target.reason });
  const where = target.realRel === target.rel ? {} : { reason: `a link to ${target.realRel}; written there` };

  if (target.kind === 'new') {
    const made = edited(whole?.content ?? '', edits);
    if (typeof made !== 'string') return report({ path: target.rel, status: 'failed', reason: whole === undefined && edits.some((e) => e.pairs.some((p) => p.search.trim() !== '')) ? 'there is no such file to edit; a FILE block creates a new file' : made.reason });
    const applied: Applied = {
      ...base, ...where, path: target.rel, status: 'new', added: countLines(made), base: baseOf(target.realRel, undefined),
      ...(options.diff === true ? { diff: diffTexts(target.rel, '', made).diff } : {}),
    };
    const runs = trusted(options, target) ? undefined : runsCode(target.realRel, undefined, made, undefined);
    if (runs !== undefined) return report(heldForCode(applied, runs));
    return { kind: 'write', applied, realRel: target.realRel, real: target.real, bytes: Buffer.from(made, 'utf8'), old: undefined, mode: undefined };
  }

  // The file as the one reader gives it (reading/text.ts): a file NEED would withhold or call binary, one too large to
  // read whole, or one whose bytes do not read back in its encoding is never replaced.
  const read = forChange(readText(target.real));
  if (read.kind === 'unfit') {
    const { why } = read;
    const reason = why.kind === 'key' ? `${unfitReason(why)}; deepwork does not write such files`
      : why.kind === 'too-large' ? `too large to replace: ${unfitReason(why)}`
      : why.kind === 'binary' ? `${unfitReason(why)}; deepwork replaces text files only`
      : why.kind === 'inexact' ? `${unfitReason(why)}; deepwork leaves it as it is`
      : unfitReason(why);
    return report({ path: target.rel, status: why.kind === 'unreadable' ? 'failed' : 'refused', reason });
  }
  let mode: number;
  try {
    mode = fs.statSync(target.real).mode & 0o7777;
  } catch (error) {
    return report({ path: target.rel, status: 'failed', reason: `it cannot be read (${errnoOf(error) ?? messageOf(error)})` });
  }
  const { bytes: old, text: oldText, encoding } = read;
  const identity = { path: target.rel, base: baseOf(target.realRel, old) };
  if ((mode & 0o222) === 0) return report({ ...identity, reason: 'the file is read-only; make it writable to let deepwork replace it' });
  const made = edited(whole?.content ?? oldText, edits);
  if (typeof made !== 'string') return report({ ...identity, status: 'failed', reason: made.reason });
  const newText = keepConventions(oldText, made);
  if (newText === oldText) return report({ ...identity, status: 'unchanged' });
  const change = diffTexts(target.rel, oldText, newText);
  const applied: Applied = {
    ...base, ...where, ...identity, status: 'changed', added: change.added, removed: change.removed,
    ...(options.diff === true ? { diff: change.diff } : {}),
  };
  const runs = trusted(options, target) ? undefined : runsCode(target.realRel, oldText, newText, mode);
  if (runs !== undefined) return report(heldForCode(applied, runs));
  // Only a whole file can leave code out by a placeholder; an EDIT's pairs say what they replace.
  const elided = options.force === true || whole === undefined ? undefined : elisionOf(oldText, newText);
  if (elided !== undefined) return report({ ...applied, status: 'held back', reason: `${elided}; check it, then write it with --force`, hold: { kind: 'elided', why: elided } });
  const bytes = encode(newText, encoding);
  if (!Buffer.isBuffer(bytes)) {
    return report({ ...applied, status: 'refused', reason: `the new text has "${bytes.char}" (line ${bytes.line}), which ${encodingName(encoding)} cannot hold; the file stays in its encoding` });
  }
  return { kind: 'write', applied, realRel: target.realRel, real: target.real, bytes, old, mode };
}

// Whether the user named this file to be written although it makes tools run code: by the path they saw, or by the
// real path a link leads to.
function trusted(options: PreviewOptions, target: Extract<Target, { kind: 'existing' | 'new' }>): boolean {
  const mine = [foldRel(target.rel), foldRel(target.realRel)];
  return (options.trust ?? []).some((named) => {
    const normal = normalizeRequest(named);
    return 'rel' in normal && mine.includes(foldRel(normal.rel));
  });
}

function heldForCode(applied: Applied, runs: string): Applied {
  const why = `it makes tools run code: ${runs}`;
  return { ...applied, status: 'held back', reason: `${why}; check it, then write it with --trust ${shellWord(applied.path)}`, hold: { kind: 'runs-code', why } };
}

// A path as one word for a shell: quoted when it holds anything but the plain characters of a path.
function shellWord(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replaceAll("'", "'\\''")}'`;
}

// A text with EDIT blocks applied in order, or why one did not apply (then nothing of the file is written).
function edited(text: string, edits: readonly EditBlock[]): string | { reason: string } {
  let current = text;
  for (const [i, edit] of edits.entries()) {
    const outcome = applyEdit(current, edit.pairs);
    if (!outcome.ok) {
      const which = edits.length === 1 ? 'the EDIT' : `EDIT ${i + 1} of ${edits.length}`;
      return { reason: `${which}, pair ${outcome.pair}: ${outcome.problem}` };
    }
    current = outcome.text;
  }
  return current;
}

// The identity of what a preview was made against.
function baseOf(realRel: string, bytes: Buffer | undefined): string {
  const hash = crypto.createHash('sha256').update(realRel).update('\0');
  return (bytes === undefined ? hash.update('absent') : hash.update('present\0').update(bytes)).digest('hex').slice(0, 32);
}

// The folders that writing these new files will make, relative to the root, outermost first.
function foldersToMake(root: string, targets: readonly string[]): string[] {
  const missing = new Set<string>();
  for (const target of targets) {
    for (let dir = path.dirname(target); isInside(root, dir) && dir !== root && !fs.existsSync(dir); dir = path.dirname(dir)) {
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
