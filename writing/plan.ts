// What each proposal would do to the disk as it is now, worked out without writing anything: the preview the console
// lists and the pult shows as cards, and the plan the apply writes from (writing/apply.ts). For each path the
// proposals apply in order; the file is read through the one reader of text (reading/text.ts), kept in its encoding
// and conventions, diffed, and held back or refused with the reason when it must not be written blind.

import crypto from 'node:crypto';
import fs from 'node:fs';
import type { EditBlock, Proposal } from '../protocol/parse.ts';
import { applyEdit } from '../protocol/edit.ts';
import {
  foldRel,
  gitDirsMadeBy,
  madeGitDir,
  normalizeRequest,
  resolveTarget,
  type Sandbox,
  type Target,
} from '../reading/sandbox.ts';
import { elisionOf, keepConventions } from './conventions.ts';
import { countLines, listed } from '../common/text.ts';
import { encode, encodingName } from '../reading/encoding.ts';
import { forChange, readText, unfitReason, type Unfit } from '../reading/text.ts';
import { errnoOf, messageOf } from '../common/errors.ts';
import { diffTexts } from './diff.ts';
import { runsCode } from './run-code.ts';

// `stopped`: not reached, because the apply was stopped (Ctrl-C) before it.
export type ApplyStatus =
  | 'new'
  | 'changed'
  | 'unchanged'
  | 'incomplete'
  | 'held back'
  | 'refused'
  | 'failed'
  | 'stopped';

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
  // `reason` as a tag, for the pult, which words it in the reader's language (the console prints `reason`).
  why?: Why;
};

// Why a file is not written, or what to know before it is, as data. The texts in it (`problem`, `detail`) are the
// English of the layers below, which only the console's words had so far.
export type Why =
  | { kind: 'incomplete'; block: 'file' | 'edit' }
  | { kind: 'edit-unreadable'; problem: string }
  // `edit` of `edits`: which EDIT of the path's did not apply; `pair`: its SEARCH/REPLACE pair, 1-based.
  | { kind: 'edit-failed'; edit: number; edits: number; pair: number; problem: string }
  // Held back: an EDIT's pairs that did not apply (`missed`, 1-based, of `pairs`) are left out, and the model, told,
  // sent nothing for the path after.
  | { kind: 'edit-partial'; pairs: number; missed: number[] }
  | { kind: 'no-file-to-edit' }
  | { kind: 'path-refused'; detail: string }
  | { kind: 'link'; to: string }
  | { kind: 'unfit'; unfit: Unfit }
  | { kind: 'unreadable'; code: string }
  | { kind: 'read-only' }
  | { kind: 'elided'; detail: string }
  | { kind: 'runs-code'; detail: string }
  | { kind: 'unencodable'; char: string; line: number; encoding: string }
  | { kind: 'written-later'; path: string }
  | { kind: 'git-dir'; detail: string }
  // From the apply (writing/apply.ts): stopped before this file; changed between the plan and the rename; changed
  // since the preview the user saw; the disk refused.
  | { kind: 'stopped' }
  | { kind: 'changed-since-read' }
  | { kind: 'changed-since-shown' }
  | { kind: 'write-failed'; code: string | undefined; detail: string };

// `elided`: it looks like a whole file with parts left out ("rest unchanged"); `runs-code`: tools run it by themselves
// (writing/run-code.ts). `why` completes the sentence.
export type Hold = { kind: 'elided' | 'runs-code' | 'partial'; why: string };

export type ApplyReport = { files: Applied[]; backupSet: string | undefined };

export type PreviewOptions = {
  // Write files held back for looking elided.
  force?: boolean;
  // Paths the user named to write although they make tools run code (--trust, the pult's Write on one card).
  trust?: readonly string[];
  diff?: boolean;
};

// What to do with one proposal: report it as it is, or write it.
export type Plan =
  | { kind: 'report'; applied: Applied }
  | {
      kind: 'write';
      applied: Applied;
      realRel: string;
      real: string;
      bytes: Buffer;
      old: Buffer | undefined;
      mode: number | undefined;
    };

// The proposals as they stand against the disk now; nothing is written.
export function previewFiles(box: Sandbox, blocks: readonly Proposal[], options: PreviewOptions = {}): Applied[] {
  return plansFor(box, blocks, options).map((p) => p.applied);
}

// The proposals for each path, in order: a FILE drops what came before it, an EDIT changes what came before it. A
// later path to the same file (a symlink and its target) replaces an earlier one. Each path's list grows in place:
// copying it for every block made many EDITs of one path cost their number squared.
export function plansFor(box: Sandbox, blocks: readonly Proposal[], options: PreviewOptions): Plan[] {
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
    if (last.get(p.realRel) !== p)
      return {
        kind: 'report',
        applied: {
          ...p.applied,
          status: 'refused',
          reason: `a later proposal writes the same file (${p.realRel})`,
          why: { kind: 'written-later', path: p.realRel },
        },
      };
    const gitDir = inGitDir(p.realRel);
    return gitDir === undefined
      ? p
      : {
          kind: 'report',
          applied: {
            ...p.applied,
            status: 'refused',
            reason: madeGitDir(gitDir),
            why: { kind: 'git-dir', detail: madeGitDir(gitDir) },
          },
        };
  });
}

function plan(box: Sandbox, wanted: string, ops: readonly Proposal[], options: PreviewOptions): Plan {
  const base: Applied = { path: wanted, status: 'refused', added: 0, removed: 0, written: false };
  const report = (applied: Partial<Applied>): Plan => ({ kind: 'report', applied: { ...base, ...applied } });
  const cut = ops.find((op) => !op.complete);
  if (cut !== undefined)
    return report({
      status: 'incomplete',
      reason: `the reply ended before ${cut.kind === 'file' ? 'its' : "an EDIT block's"} END marker; it is never written`,
      why: { kind: 'incomplete', block: cut.kind },
    });
  const unread = ops.find((op): op is EditBlock => op.kind === 'edit' && op.problem !== undefined);
  if (unread?.problem !== undefined)
    return report({
      status: 'failed',
      reason: `an EDIT block could not be read: ${unread.problem}`,
      why: { kind: 'edit-unreadable', problem: unread.problem },
    });
  const whole = ops[0]?.kind === 'file' ? ops[0] : undefined;
  const edits = ops.filter((op): op is EditBlock => op.kind === 'edit');
  const target = resolveTarget(box, wanted);
  if (target.kind === 'refused')
    return report({ path: target.rel, reason: target.reason, why: { kind: 'path-refused', detail: target.reason } });
  const where: Partial<Applied> =
    target.realRel === target.rel
      ? {}
      : { reason: `a link to ${target.realRel}; written there`, why: { kind: 'link', to: target.realRel } };
  // An EDIT kept with pairs that did not apply left out, which the model did not send again: only part of the change.
  const partial = edits.find((e) => e.left !== undefined)?.left;
  const heldIfPartial = (applied: Applied): Plan | undefined => {
    if (partial === undefined || options.force === true) return undefined;
    const why = `${partial.numbers.length === 1 ? 'pair' : 'pairs'} ${listed(partial.numbers)} of an EDIT's ${partial.pairs} did not apply and ${partial.numbers.length === 1 ? 'is' : 'are'} left out (the model was told, and sent nothing more for this file), so this is part of the change`;
    return report({
      ...applied,
      status: 'held back',
      reason: `${why}; check it, then write it with --force`,
      hold: { kind: 'partial', why },
      why: { kind: 'edit-partial', pairs: partial.pairs, missed: partial.numbers },
    });
  };

  if (target.kind === 'new') {
    const made = edited(whole?.content ?? '', edits);
    if (typeof made !== 'string') {
      const nothing = whole === undefined && edits.some((e) => e.pairs.some((p) => p.search.trim() !== ''));
      return report({
        path: target.rel,
        status: 'failed',
        reason: nothing ? 'there is no such file to edit; a FILE block creates a new file' : made.reason,
        why: nothing ? { kind: 'no-file-to-edit' } : made.why,
      });
    }
    const applied: Applied = {
      ...base,
      ...where,
      path: target.rel,
      status: 'new',
      added: countLines(made),
      base: baseOf(target.realRel, undefined),
      ...(options.diff === true ? { diff: diffTexts(target.rel, '', made).diff } : {}),
    };
    const runs = trusted(options, target) ? undefined : runsCode(target.realRel, undefined, made, undefined);
    if (runs !== undefined) return report(heldForCode(applied, runs));
    const held = heldIfPartial(applied);
    if (held !== undefined) return held;
    return {
      kind: 'write',
      applied,
      realRel: target.realRel,
      real: target.real,
      bytes: Buffer.from(made, 'utf8'),
      old: undefined,
      mode: undefined,
    };
  }

  // The file as the one reader gives it (reading/text.ts): a file NEED would withhold or call binary, one too large to
  // read whole, or one whose bytes do not read back in its encoding is never replaced.
  const read = forChange(readText(target.real));
  if (read.kind === 'unfit') {
    const { why } = read;
    const reason =
      why.kind === 'key'
        ? `${unfitReason(why)}; deepwork does not write such files`
        : why.kind === 'too-large'
          ? `too large to replace: ${unfitReason(why)}`
          : why.kind === 'binary'
            ? `${unfitReason(why)}; deepwork replaces text files only`
            : why.kind === 'inexact'
              ? `${unfitReason(why)}; deepwork leaves it as it is`
              : unfitReason(why);
    return report({
      path: target.rel,
      status: why.kind === 'unreadable' ? 'failed' : 'refused',
      reason,
      why: { kind: 'unfit', unfit: why },
    });
  }
  let mode: number;
  try {
    mode = fs.statSync(target.real).mode & 0o7777;
  } catch (error) {
    const code = errnoOf(error) ?? messageOf(error);
    return report({
      path: target.rel,
      status: 'failed',
      reason: `it cannot be read (${code})`,
      why: { kind: 'unreadable', code },
    });
  }
  const { bytes: old, text: oldText, encoding } = read;
  const identity = { path: target.rel, base: baseOf(target.realRel, old) };
  if ((mode & 0o222) === 0)
    return report({
      ...identity,
      reason: 'the file is read-only; make it writable to let deepwork replace it',
      why: { kind: 'read-only' },
    });
  const made = edited(whole?.content ?? oldText, edits);
  if (typeof made !== 'string') return report({ ...identity, status: 'failed', reason: made.reason, why: made.why });
  const newText = keepConventions(oldText, made);
  if (newText === oldText) return report({ ...identity, status: 'unchanged' });
  const change = diffTexts(target.rel, oldText, newText);
  const applied: Applied = {
    ...base,
    ...where,
    ...identity,
    status: 'changed',
    added: change.added,
    removed: change.removed,
    ...(options.diff === true ? { diff: change.diff } : {}),
  };
  const runs = trusted(options, target) ? undefined : runsCode(target.realRel, oldText, newText, mode);
  if (runs !== undefined) return report(heldForCode(applied, runs));
  // Only a whole file can leave code out by a placeholder; an EDIT's pairs say what they replace.
  const elided = options.force === true || whole === undefined ? undefined : elisionOf(oldText, newText);
  if (elided !== undefined)
    return report({
      ...applied,
      status: 'held back',
      reason: `${elided}; check it, then write it with --force`,
      hold: { kind: 'elided', why: elided },
      why: { kind: 'elided', detail: elided },
    });
  const held = heldIfPartial(applied);
  if (held !== undefined) return held;
  const bytes = encode(newText, encoding);
  if (!Buffer.isBuffer(bytes)) {
    return report({
      ...applied,
      status: 'refused',
      reason: `the new text has "${bytes.char}" (line ${bytes.line}), which ${encodingName(encoding)} cannot hold; the file stays in its encoding`,
      why: { kind: 'unencodable', char: bytes.char, line: bytes.line, encoding: encodingName(encoding) },
    });
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
  return {
    ...applied,
    status: 'held back',
    reason: `${why}; check it, then write it with --trust ${shellWord(applied.path)}`,
    hold: { kind: 'runs-code', why },
    why: { kind: 'runs-code', detail: runs },
  };
}

// A path as one word for a shell: quoted when it holds anything but the plain characters of a path.
function shellWord(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replaceAll("'", "'\\''")}'`;
}

// A text with EDIT blocks applied in order, or why one did not apply (then nothing of the file is written).
function edited(text: string, edits: readonly EditBlock[]): string | { reason: string; why: Why } {
  let current = text;
  for (const [i, edit] of edits.entries()) {
    const outcome = applyEdit(current, edit.pairs);
    if (!outcome.ok) {
      const which = edits.length === 1 ? 'the EDIT' : `EDIT ${i + 1} of ${edits.length}`;
      return {
        reason: `${which}, pair ${outcome.pair}: ${outcome.problem}`,
        why: { kind: 'edit-failed', edit: i + 1, edits: edits.length, pair: outcome.pair, problem: outcome.problem },
      };
    }
    current = outcome.text;
  }
  return current;
}

// The identity of what a preview was made against.
function baseOf(realRel: string, bytes: Buffer | undefined): string {
  const hash = crypto.createHash('sha256').update(realRel).update('\0');
  return (bytes === undefined ? hash.update('absent') : hash.update('present\0').update(bytes))
    .digest('hex')
    .slice(0, 32);
}
