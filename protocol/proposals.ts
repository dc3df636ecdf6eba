// A reply's FILE and EDIT blocks checked, in order, against the files as the run's proposals leave them: which are
// kept, and what the model is told of each (an EDIT's outcome, a block cut before its END, blocks past what one reply
// may propose); and the run's book of proposals over all steps.

import type { Reader } from './contract.ts';
import { elisionOf } from './elision.ts';
import type { Proposal } from './parse.ts';
import { applyEachPair } from './edit.ts';
import type { Result } from './results.ts';
import {
  editWork,
  MAX_EDIT_CHARS_PER_REPLY,
  MAX_PAIRS_PER_EDIT,
  MAX_PROPOSALS_PER_REPLY,
  tooManyPairs,
} from './caps.ts';
import { heardStop } from '../common/errors.ts';
import { counted, formatCount, listed } from '../common/text.ts';
import { numberLines } from './line-numbers.ts';

// The run's proposals over all steps, in order. What the model was told was not kept stays only as long as nothing
// for its path is kept after it: then the report says why that path is not written. A kept FILE drops all before it
// for its path, a kept EDIT what was not kept (it was checked against the rest). Indexed by path, so that each block
// is dropped at most once: filtering all proposals for each block took minutes for a reply of 100,000 (issue 23).
export function proposalBook(): { add: (block: Proposal, kept: boolean) => void; list: () => Proposal[] } {
  const all: Proposal[] = [];
  const dropped = new Set<Proposal>();
  // EDITs kept with some pairs left out that a later proposal for their path followed: the model sent what it left.
  const followed = new Set<Proposal>();
  const byPath = new Map<string, { kept: Proposal[]; notKept: Proposal[] }>();
  return {
    add(block, kept) {
      const same = byPath.get(block.path) ?? { kept: [], notKept: [] };
      byPath.set(block.path, same);
      if (kept) {
        for (const q of same.kept) if (q.kind === 'edit' && q.left !== undefined) followed.add(q);
        for (const q of block.kind === 'file' ? [...same.kept, ...same.notKept] : same.notKept) dropped.add(q);
        if (block.kind === 'file') same.kept = [];
        same.notKept = [];
        same.kept.push(block);
      } else {
        same.notKept.push(block);
      }
      all.push(block);
    },
    list: () =>
      all
        .filter((p) => !dropped.has(p))
        .map((p) => {
          if (p.kind !== 'edit' || !followed.has(p)) return p;
          const { left: _left, ...rest } = p;
          return rest;
        }),
  };
}

// What the model is told of the FILE and EDIT blocks of a reply left out from `from` on: never looked at, never kept.
// The first few are named, so a real reply that proposed too much at once knows what to send again.
function leftOutResult(
  blocks: readonly Proposal[],
  from: number,
  why: Extract<Result, { kind: 'left-out' }>['why'],
): Result {
  const named = blocks
    .slice(from, from + LEFT_OUT_NAMED)
    .map((b) => `${b.kind === 'file' ? 'FILE' : 'EDIT'} ${b.path}`);
  const first = formatCount(from + 1);
  const request =
    blocks.length === from + 1 ? `FILE/EDIT block ${first}` : `FILE/EDIT blocks ${first}-${formatCount(blocks.length)}`;
  return { kind: 'left-out', request, blocks: named, more: blocks.length - from - named.length, why };
}

// Blocks left out that the result names.
const LEFT_OUT_NAMED = 20;

// Checks a reply's proposals in order against the files as the run's proposals leave them: whether each is kept, and
// what the model is told of it (an EDIT's outcome; a block cut off before its END). `proposed` is brought up to date.
// `edit`: for an EDIT the model wrote whole, whether its pairs applied (what the per-model tally counts; a block cut
// short or refused for its path is not the model's matching).
// `partial`: an EDIT kept with only the pairs that applied (`block` holds those), the others told to the model.
// `file`: a FILE kept, its lines and whether it makes a new file (keptFiles says so).
type Checked = {
  block: Proposal;
  kept: boolean;
  result: Result | undefined;
  edit?: 'applied' | 'missed';
  partial?: boolean;
  file?: { lines: number; new: boolean };
};

// The FILE blocks a reply with requests had kept, said in one result as EDITs are said kept: a player unsure its new
// file had been taken could only trust the rules (issue 30). Undefined when it kept none.
export function keptFiles(checked: readonly Checked[]): Result | undefined {
  const files = checked.flatMap((c) =>
    c.file === undefined || !c.kept ? [] : [{ path: c.block.path, lines: c.file.lines, new: c.file.new }],
  );
  if (files.length === 0) return undefined;
  const named = files.slice(0, KEPT_FILES_NAMED).map((f) => f.path);
  const more = files.length - named.length;
  return {
    kind: 'files-kept',
    request: `FILE ${named.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}`,
    kept: files,
  };
}

// Paths a kept-files result names, at most; the rest are counted.
const KEPT_FILES_NAMED = 5;

// The run's EDITs that did not apply, per path: from the second on, the model is shown more of the file and, for a
// short file, told to send it whole.
export type Misses = Map<string, number>;

// A file this short is sent whole as a FILE more surely than patched by a third EDIT.
const WHOLE_LINES = 250;
const WHOLE_CHARS = 10_000;
// Lines shown either side of the closest match from the second miss on, and at most in all.
const WIDER_MARGIN = 10;
const WIDER_MAX = 60;

// `cut`: the server cut the reply at its output limit, so a block without END was cut by it. The blocks past what
// one reply may propose are left out, and the model is told with `leftOut`. A Stop is heard after each block.
// `read`: the lines of each file the model was shown (NEED, FIND's hits, the attached files), as 1-based ranges.
export type ReadLines = ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>;

export async function checkProposals(
  blocks: readonly Proposal[],
  proposed: Map<string, string>,
  executor: Reader,
  cut: boolean,
  signal: AbortSignal,
  misses: Misses = new Map(),
  read: ReadLines = new Map(),
): Promise<{ checked: Checked[]; leftOut: Result | undefined }> {
  const checked: Checked[] = [];
  let work = MAX_EDIT_CHARS_PER_REPLY;
  for (const [i, block] of blocks.entries()) {
    if (i === MAX_PROPOSALS_PER_REPLY)
      return { checked, leftOut: leftOutResult(blocks, i, { kind: 'blocks', limit: MAX_PROPOSALS_PER_REPLY }) };
    const verdict = checkProposal(block, proposed, executor, cut, work, misses, read);
    if (verdict.kind === 'too much')
      return {
        checked,
        leftOut: leftOutResult(blocks, i, {
          kind: 'work',
          limit: MAX_EDIT_CHARS_PER_REPLY,
          chars: verdict.chars,
          pairs: verdict.pairs,
        }),
      };
    work -= verdict.spent;
    checked.push(verdict.checked);
    await heardStop(signal);
  }
  return { checked, leftOut: undefined };
}

// `work`: what is left of MAX_EDIT_CHARS_PER_REPLY (protocol/caps.ts); an EDIT that would take more is 'too much', and
// is not applied. `spent`: what the block took of it.
type Verdict =
  | { kind: 'checked'; checked: Checked; spent: number }
  | { kind: 'too much'; chars: number; pairs: number };

function checkProposal(
  block: Proposal,
  proposed: Map<string, string>,
  executor: Reader,
  cut: boolean,
  work: number,
  misses: Misses,
  read: ReadLines,
): Verdict {
  const request = `${block.kind === 'file' ? 'FILE' : 'EDIT'} ${block.path}`;
  const done = (kept: boolean, result: Result | undefined, spent = 0, edit?: Checked['edit']): Verdict => ({
    kind: 'checked',
    checked: { block, kept, result, ...(edit === undefined ? {} : { edit }) },
    spent,
  });
  const failed = (problem: string, fix: string, lines = '', spent = 0, edit?: Checked['edit']): Verdict =>
    done(false, { kind: 'edit', request, path: block.path, ok: false, problem, lines, fix }, spent, edit);
  if (!block.complete) {
    const ended = cut
      ? "the server cut the reply at its output limit before the block's END line"
      : 'the reply ended before its END line';
    const fix =
      block.kind === 'file'
        ? 'For a big file, send EDIT blocks instead of the whole file.'
        : `Send it again, whole, closed by its END line${cut ? '; send fewer pairs per reply, so the reply stays short' : ''}.`;
    return failed(`${ended}, so it is never written`, fix);
  }
  if (block.kind === 'file') {
    const now = proposed.has(block.path) ? undefined : executor.text(block.path);
    const before = proposed.get(block.path) ?? (now?.kind === 'text' ? now.text : undefined);
    const elided = before === undefined ? undefined : elisionOf(before, block.content);
    if (elided !== undefined) {
      return failed(
        `${elided}, so it would delete the code the placeholder stands for; it is not written as it is`,
        'Send EDIT blocks for the parts that change, or the whole file with nothing left out.',
      );
    }
    proposed.set(block.path, block.content);
    const lines = block.content === '' ? 0 : block.content.replace(/\n$/, '').split('\n').length;
    return {
      kind: 'checked',
      checked: { block, kept: true, result: undefined, file: { lines, new: now?.kind === 'missing' } },
      spent: 0,
    };
  }
  if (block.problem !== undefined) {
    misses.set(block.path, (misses.get(block.path) ?? 0) + 1);
    return failed(
      `its body could not be read: ${block.problem}`,
      'Send it again in the form the instructions show.',
      '',
      0,
      'missed',
    );
  }
  if (block.pairs.length > MAX_PAIRS_PER_EDIT) {
    return failed(
      tooManyPairs(block.pairs.length),
      `Send the change as EDIT blocks of at most ${formatCount(MAX_PAIRS_PER_EDIT)} pairs each, or the whole file as a FILE block.`,
    );
  }
  let base = proposed.get(block.path);
  // The lines the model read are the file's on disk: they say where a SEARCH was copied from only while no earlier
  // proposal of the run has changed the file.
  const seen = base === undefined ? (read.get(block.path) ?? []) : [];
  if (base === undefined) {
    const now = executor.text(block.path);
    if (now.kind === 'refused')
      return failed(`${block.path} cannot be edited: ${now.reason}`, 'Leave this file as it is.');
    if (now.kind === 'missing' && block.pairs.some((p) => p.search.trim() !== '')) {
      return failed(
        `there is no file ${block.path}; a FILE block creates a new file (or an EDIT whose SEARCH is empty)`,
        'Check the path with LIST, or create the file with a FILE block.',
      );
    }
    base = now.kind === 'text' ? now.text : '';
  }
  const spent = editWork(base.length, block.pairs.length);
  if (spent > work) return { kind: 'too much', chars: base.length, pairs: block.pairs.length };
  // The pairs that apply are kept even when others do not: the model sends again only those that did not.
  const outcome = applyEachPair(base, block.pairs, seen);
  const [first, ...more] = outcome.missed;
  if (first === undefined) {
    proposed.set(block.path, outcome.text);
    // Kept as applied: a SEARCH taken in the lines the model read is kept with the lines that make it found once.
    return {
      kind: 'checked',
      checked: {
        block: { ...block, pairs: outcome.kept },
        kept: true,
        result: { kind: 'edit', request, path: block.path, ok: true, pairs: block.pairs.length },
        edit: 'applied',
      },
      spent,
    };
  }
  const missed = (misses.get(block.path) ?? 0) + 1;
  misses.set(block.path, missed);
  const again = missed > 1 ? missedAgain(block.path, base, first.lines, missed) : undefined;
  const numbers = outcome.missed.map((m) => m.pair);
  const keptPairs = outcome.kept;
  const problem = `pair ${first.pair} of ${block.pairs.length}: ${first.problem}`;
  const lines = again?.lines ?? first.lines;
  if (keptPairs.length === 0) {
    const fix =
      again?.fix ?? 'Send it again with the SEARCH fixed (copy the lines as they are, without their numbers).';
    return done(
      false,
      {
        kind: 'edit',
        request,
        path: block.path,
        ok: false,
        problem,
        lines,
        fix,
        ...(more.length > 0 ? { more } : {}),
        ...(first.places === true && again === undefined ? { places: true as const } : {}),
      },
      spent,
      'missed',
    );
  }
  proposed.set(block.path, outcome.text);
  const which = `${numbers.length === 1 ? 'pair' : 'pairs'} ${listed(numbers)}`;
  const fix =
    again?.fix ??
    `Send ${which} again, fixed, in an EDIT of ${block.path} (copy each SEARCH as the lines are, without their numbers).`;
  const kept = {
    pairs: block.pairs.length,
    numbers: block.pairs.flatMap((_, i) => (numbers.includes(i + 1) ? [] : [i + 1])),
  };
  return {
    kind: 'checked',
    checked: {
      block: { ...block, pairs: keptPairs, left: { pairs: block.pairs.length, numbers } },
      kept: true,
      partial: true,
      result: {
        kind: 'edit',
        request,
        path: block.path,
        ok: false,
        problem,
        lines,
        fix,
        kept,
        ...(more.length > 0 ? { more } : {}),
        ...(first.places === true && again === undefined ? { places: true as const } : {}),
      },
      edit: 'missed',
    },
    spent,
  };
}

// From a path's second EDIT that did not apply in a run: the lines around the closest match, more of them, numbered
// as the file is; and for a short file, to send it whole as a FILE, which a model that keeps missing gets right.
function missedAgain(path: string, text: string, closest: string, missed: number): { fix: string; lines: string } {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const numbers = [...closest.matchAll(/^(\d+) \|/gm)].map((m) => Number(m[1]));
  let shown = closest;
  let range = '';
  const first = numbers[0];
  const last = numbers.at(-1);
  if (first !== undefined && last !== undefined) {
    const from = Math.max(1, first - WIDER_MARGIN);
    const to = Math.min(lines.length, last + WIDER_MARGIN, from + WIDER_MAX - 1);
    shown = numberLines(lines.slice(from - 1, to).join('\n'), from).trimEnd();
    range = `:${from}-${to}`;
  }
  const times = missed === 2 ? 'twice' : `${missed} times`;
  const short = lines.length <= WHOLE_LINES && text.length <= WHOLE_CHARS;
  const fix = short
    ? `EDITs of ${path} did not apply ${times} in this run. It is short (${counted(lines.length, 'line')}): send it whole as a FILE block instead, every line as it is now with your change made, without line numbers.`
    : `EDITs of ${path} did not apply ${times} in this run. Copy each SEARCH from the numbered lines above, without their numbers, one pair at a time; or NEED ${path}${range} again first.`;
  return { fix, lines: shown };
}
