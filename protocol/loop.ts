// The loop: send the transcript, read the reply, answer its requests, send the grown transcript, until the model
// answers without requests, the steps run out, or it asks exactly what it asked the step before.

import type { Bridge, Reader } from './contract.ts';
import { elisionOf } from './elision.ts';
import { parseReply, type Proposal, type Unclear } from './parse.ts';
import { applyEdit } from './edit.ts';
import { renderResult, type Result } from './results.ts';
import { describeRequest, type Request } from './requests.ts';
import type { Texts } from './transcript.ts';
import { createConversation, type Turn, type Window } from './conversation.ts';
import {
  editWork,
  MAX_EDIT_CHARS_PER_REPLY,
  MAX_PAIRS_PER_EDIT,
  MAX_PROPOSALS_PER_REPLY,
  tooManyPairs,
} from './caps.ts';
import { MAP_WAIT_MS, mapBudget, mapInMessage, startMap } from './code-map.ts';
import { stopped } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';

export type Stop = 'answered' | 'steps' | 'repeat';

export type LoopEvent =
  // `tokens` is the message's estimate, `budget` what the window leaves for a message, `dropped` the earlier results
  // given way to fit.
  | {
      kind: 'sending';
      step: number;
      steps: number;
      chars: number;
      tokens: number;
      budget: number;
      // The whole window the budget is part of (the rest is kept for the reply).
      window: number;
      dropped: number;
      // In a chat that holds what came before: what this message carries that is new.
      carries?: string[];
    }
  // `thinking`: characters of reasoning so far (DeepSeek's reasoning_content, Ollama's thinking).
  | { kind: 'receiving'; step: number; chars: number; thinking: number }
  // A piece of the reply as it streams in.
  | { kind: 'text'; step: number; text: string }
  // `files`: the paths the reply proposes changes to (FILE or EDIT).
  | { kind: 'replied'; step: number; chars: number; ms: number; requests: string[]; files: string[] }
  // Something the user should know of a reply: the prompt or the reply was cut.
  | { kind: 'warning'; step: number; message: string }
  | { kind: 'answered-requests'; step: number; requests: number; chars: number };

export type LoopInput = {
  bridge: Bridge;
  executor: Reader;
  texts: Texts;
  question: string;
  files?: readonly string[];
  // Those files as already read, when the caller read them first (the console does, to refuse a missing one before
  // anything is sent): they are not read again.
  attached?: readonly Result[];
  // Text given with the question (what was piped in), sent beside the attached files.
  piped?: string | undefined;
  steps: number;
  // The model's whole window in tokens; undefined: asked of the bridge, else DEFAULT_WINDOW.
  contextTokens?: number | undefined;
  // The earlier questions of the conversation this question continues, oldest first.
  earlier?: readonly Turn[];
  // With a bridge that keeps the chat: the chat already holds the earlier questions (a follow-up asked in the same
  // web chat), so even the first message carries only what is new.
  chatContinues?: boolean;
  // Stops the run (the pult's Stop, Ctrl-C): heard while a reply is awaited, and between the blocks of a reply.
  signal?: AbortSignal;
  // How long the first message waits for a map of the code expected soon (MAP_WAIT_MS); the tests say.
  mapWait?: number;
  onEvent?: (event: LoopEvent) => void;
};

export type LoopOutcome = {
  // The last reply, as the model wrote it.
  reply: string;
  // deepwork's note that says why the answer was cut short, when it was: never part of the reply.
  note: string | undefined;
  stop: Stop;
  steps: number;
  // Characters sent at each step.
  sent: number[];
  // Tokens sent at each step (estimated).
  tokens: number[];
  // What the replies proposed, over all steps, in order: for each path, a FILE drops what came before it and an EDIT
  // changes what came before it (the file on disk, or an earlier FILE).
  proposals: Proposal[];
  // Where the last reply's FILE and EDIT blocks were left out, past what one reply may propose (protocol/caps.ts): the
  // index of the first left out among them; undefined when none were.
  leftOutFrom: number | undefined;
  // The requests of the last reply that were never answered (steps ran out, or a repeat).
  unanswered: Request[];
  // This question as a turn of the conversation, for a later question to continue.
  turn: Turn;
};

// The window assumed when neither the config nor the bridge tells: the DeepSeek web chat takes far more, and a local
// model set up for less says so through /api/show.
export const DEFAULT_WINDOW = 64_000;

// The tree's share of a small window: a twelfth of what a message may take, in characters (about 3.4 a token), never
// less than what shows the top folders, never more than the limits' treeChars. At 8,000 tokens a tree of 4,000
// characters took a third of the message.
function treeBudget(window: Window, most: number): number {
  return Math.max(1_200, Math.min(most, Math.round((window.promptTokens / 12) * 3.4)));
}

// Room kept for the model's reply: a quarter of the window, at most 8,192 tokens.
export function windowOf(windowTokens: number): Window {
  return { windowTokens, promptTokens: windowTokens - Math.min(8_192, Math.floor(windowTokens / 4)) };
}

export async function runLoop(input: LoopInput): Promise<LoopOutcome> {
  const { bridge, executor, texts, steps } = input;
  const signal = input.signal ?? new AbortController().signal;
  const emit = input.onEvent ?? (() => {});
  executor.reset();
  const windowTokens = input.contextTokens ?? (await bridge.window?.(signal).catch(() => undefined)) ?? DEFAULT_WINDOW;
  const window = windowOf(windowTokens);
  const attached =
    input.attached ??
    (input.files !== undefined && input.files.length > 0
      ? await executor.answer([{ kind: 'need', paths: [...input.files], line: 0 }])
      : []);
  // The map of the code beside the tree (on a big folder, in a third of the tree's room), within its own small share.
  const job = startMap(executor, input.question, input.files ?? []);
  const treeChars = treeBudget(window, executor.limits.treeChars) * (job?.big === true ? 2 / 3 : 1);
  const tree = executor.tree(Math.round(treeChars));
  const fixed = [texts.instructions, tree, input.question, input.piped ?? '', ...attached.map(renderResult)];
  const mapChars = mapBudget(window, fixed.join('').length, attached.length > 0, treeChars - tree.length);
  const map = await mapInMessage(job, mapChars, input.mapWait ?? MAP_WAIT_MS);
  const conversation = createConversation({
    texts,
    tree,
    map: map.head,
    attached,
    question: input.question,
    piped: input.piped,
    window,
    earlier: input.earlier ?? [],
  });
  const sent: number[] = [];
  const tokens: number[] = [];
  const proposals = proposalBook();
  // Per path, the text the proposals so far make of it: what a later EDIT is checked against.
  const proposed = new Map<string, string>();
  let previousKey: string | undefined;

  for (let step = 1; ; step++) {
    const standalone = conversation.render(step, steps);
    // A chat that holds what came before is sent only what is new, with the message that stands on its own beside it.
    const sameChat = bridge.keepsChat === true && (step > 1 || input.chatContinues === true);
    const offered = sameChat ? conversation.renderNew(step, steps) : { ...standalone, carries: undefined };
    const { message, tokens: estimate } = offered;
    emit({
      kind: 'sending',
      step,
      steps,
      chars: message.length,
      tokens: estimate,
      budget: window.promptTokens,
      window: window.windowTokens,
      dropped: standalone.dropped,
      ...(offered.carries === undefined ? {} : { carries: offered.carries }),
    });
    sent.push(message.length);
    tokens.push(estimate);
    const started = Date.now();
    const onProgress = (chars: number, thinking: number) => emit({ kind: 'receiving', step, chars, thinking });
    const onText = (text: string) => emit({ kind: 'text', step, text });
    const answer = await bridge.chat(message, {
      signal,
      onProgress,
      onText,
      tokens: estimate,
      window: windowTokens,
      ...(sameChat ? { standalone: { message: standalone.message, tokens: standalone.tokens } } : {}),
    });
    const { text: reply, truncated, cut } = answer;
    if (truncated !== undefined) emit({ kind: 'warning', step, message: truncated });
    if (cut !== undefined) emit({ kind: 'warning', step, message: cut });
    // A Stop while the reply was on its way, or while it is worked through below, ends the run there.
    await heardStop(signal);
    const parsed = parseReply(reply);
    const { checked, leftOut } = await checkProposals(parsed.proposals, proposed, executor, cut !== undefined, signal);
    for (const { block, kept } of checked) proposals.add(block, kept);
    const told = [
      ...checked.flatMap((c) => (c.result === undefined ? [] : [c.result])),
      ...(leftOut === undefined ? [] : [leftOut]),
    ];
    const failed = [
      ...checked.filter((c) => !c.kept && c.result !== undefined).map((c) => c.result?.request ?? ''),
      ...(leftOut === undefined ? [] : [leftOut.request]),
    ];
    const asked = [
      ...parsed.requests.map((r) => describeRequest(r)),
      ...parsed.unclear.map(describeUnclear),
      ...failed.map((r) => `${r} not kept`),
    ];
    emit({
      kind: 'replied',
      step,
      chars: reply.length,
      ms: Date.now() - started,
      requests: asked,
      files: checked.map((c) => c.block.path),
    });

    const outcome = (stop: Stop): LoopOutcome => {
      const note = stop === 'answered' ? undefined : cutShortNote(stop, step, asked);
      const leftOutFrom = leftOut === undefined ? undefined : checked.length;
      return {
        reply,
        note,
        stop,
        steps: step,
        sent,
        tokens,
        proposals: proposals.list(),
        leftOutFrom,
        unanswered: stop === 'answered' ? [] : parsed.requests,
        turn: conversation.turn(answerOf({ reply, note })),
      };
    };
    // A line that meant a request counts as one, and so does an EDIT that did not apply: the model is told, and the
    // loop goes on.
    if (asked.length === 0) return outcome('answered');
    const key = [...asked].sort().join('\n');
    if (key === previousKey) return outcome('repeat');
    if (step >= steps) return outcome('steps');
    previousKey = key;

    const answered = await executor.answer(parsed.requests, conversation.stillSent());
    // A map not ready for the first message comes with the first results after it is.
    const late = map.later();
    const results = [...parsed.unclear.map(unclearResult), ...told, ...answered, ...(late === undefined ? [] : [late])];
    const chars = conversation.add(step, reply, results);
    emit({ kind: 'answered-requests', step, requests: asked.length, chars });
  }
}

// The run's proposals over all steps, in order. What the model was told was not kept stays only as long as nothing
// for its path is kept after it: then the report says why that path is not written. A kept FILE drops all before it
// for its path, a kept EDIT what was not kept (it was checked against the rest). Indexed by path, so that each block
// is dropped at most once: filtering all proposals for each block took minutes for a reply of 100,000 (issue 23).
function proposalBook(): { add: (block: Proposal, kept: boolean) => void; list: () => Proposal[] } {
  const all: Proposal[] = [];
  const dropped = new Set<Proposal>();
  const byPath = new Map<string, { kept: Proposal[]; notKept: Proposal[] }>();
  return {
    add(block, kept) {
      const same = byPath.get(block.path) ?? { kept: [], notKept: [] };
      byPath.set(block.path, same);
      if (kept) {
        for (const q of block.kind === 'file' ? [...same.kept, ...same.notKept] : same.notKept) dropped.add(q);
        if (block.kind === 'file') same.kept = [];
        same.notKept = [];
        same.kept.push(block);
      } else {
        same.notKept.push(block);
      }
      all.push(block);
    },
    list: () => all.filter((p) => !dropped.has(p)),
  };
}

// Lets a Stop be heard (the pult's button, Ctrl-C): the event loop runs, and an abort ends the run with the error
// the bridges give. Called between the pieces of work a reply makes, so that none of them runs long.
async function heardStop(signal: AbortSignal): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (signal.aborted) throw stopped();
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
type Checked = { block: Proposal; kept: boolean; result: Result | undefined };

// `cut`: the server cut the reply at its output limit, so a block without END was cut by it. The blocks past what
// one reply may propose are left out, and the model is told with `leftOut`. A Stop is heard after each block.
// A file's text now, when it is one the EDIT check may read; undefined for a new file or one that cannot be read.
function textNow(executor: Reader, path: string): string | undefined {
  const now = executor.text(path);
  return now.kind === 'text' ? now.text : undefined;
}

async function checkProposals(
  blocks: readonly Proposal[],
  proposed: Map<string, string>,
  executor: Reader,
  cut: boolean,
  signal: AbortSignal,
): Promise<{ checked: Checked[]; leftOut: Result | undefined }> {
  const checked: Checked[] = [];
  let work = MAX_EDIT_CHARS_PER_REPLY;
  for (const [i, block] of blocks.entries()) {
    if (i === MAX_PROPOSALS_PER_REPLY)
      return { checked, leftOut: leftOutResult(blocks, i, { kind: 'blocks', limit: MAX_PROPOSALS_PER_REPLY }) };
    const verdict = checkProposal(block, proposed, executor, cut, work);
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
): Verdict {
  const request = `${block.kind === 'file' ? 'FILE' : 'EDIT'} ${block.path}`;
  const done = (kept: boolean, result: Result | undefined, spent = 0): Verdict => ({
    kind: 'checked',
    checked: { block, kept, result },
    spent,
  });
  const failed = (problem: string, fix: string, lines = '', spent = 0): Verdict =>
    done(false, { kind: 'edit', request, path: block.path, ok: false, problem, lines, fix }, spent);
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
    const before = proposed.get(block.path) ?? textNow(executor, block.path);
    const elided = before === undefined ? undefined : elisionOf(before, block.content);
    if (elided !== undefined) {
      return failed(
        `${elided}, so it would delete the code the placeholder stands for; it is not written as it is`,
        'Send EDIT blocks for the parts that change, or the whole file with nothing left out.',
      );
    }
    proposed.set(block.path, block.content);
    return done(true, undefined);
  }
  if (block.problem !== undefined)
    return failed(`its body could not be read: ${block.problem}`, 'Send it again in the form the instructions show.');
  if (block.pairs.length > MAX_PAIRS_PER_EDIT) {
    return failed(
      tooManyPairs(block.pairs.length),
      `Send the change as EDIT blocks of at most ${formatCount(MAX_PAIRS_PER_EDIT)} pairs each, or the whole file as a FILE block.`,
    );
  }
  let base = proposed.get(block.path);
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
  const outcome = applyEdit(base, block.pairs);
  if (!outcome.ok)
    return failed(
      `pair ${outcome.pair} of ${block.pairs.length}: ${outcome.problem}`,
      'Send it again with the SEARCH fixed (copy the lines as they are, without their numbers).',
      outcome.lines,
      spent,
    );
  proposed.set(block.path, outcome.text);
  return done(true, { kind: 'edit', request, path: block.path, ok: true, pairs: outcome.pairs }, spent);
}

function describeUnclear(u: Unclear): string {
  return `not understood: line ${u.line}`;
}

function unclearResult(u: Unclear): Result {
  return { kind: 'unclear', request: `line ${u.line}`, line: u.line, text: u.text, problem: u.problem, fix: u.fix };
}

// The answer as a reader sees it: the reply, then deepwork's note when the answer was cut short. A continued
// conversation carries it so, and the pult shows it so.
export function answerOf(outcome: Pick<LoopOutcome, 'reply' | 'note'>): string {
  return outcome.note === undefined ? outcome.reply : `${outcome.reply.trimEnd()}\n\n${outcome.note}`;
}

function cutShortNote(stop: Stop, step: number, asked: readonly string[]): string {
  const why =
    stop === 'repeat'
      ? `the model repeated its previous requests, so the loop stopped at step ${step}`
      : `the steps ran out after ${step} step${step === 1 ? '' : 's'}`;
  const fix =
    stop === 'repeat'
      ? 'More steps would not help: ask a narrower question, or name the files it needs with --files'
      : 'Raise --steps, or ask a narrower question';
  return `[deepwork: this answer was cut short: ${why}. Unanswered requests: ${asked.join('; ')}. ${fix}.]`;
}
