// The loop: send the transcript, read the reply, answer its requests, send the grown transcript, until the model
// answers without requests, the steps run out, or it asks exactly what it asked the step before.

import type { Executor } from '../reading/execute.ts';
import { parseReply, type Proposal, type Unclear } from './parse.ts';
import { applyEdit } from './edit.ts';
import type { Result } from './results.ts';
import { describeRequest, type Request } from './requests.ts';
import type { Texts } from './transcript.ts';
import { createConversation, type Turn, type Window } from './conversation.ts';

// Anything that takes a message and returns the model's reply: the Ollama-style client, the demo, a test's fake.
export type Bridge = {
  label: string;
  // `tokens` is the message's estimated size and `window` the whole window the run budgets for: a bridge that sets
  // the model's context size (Ollama's num_ctx) sizes it from them.
  chat(message: string, options: ChatOptions): Promise<string | ChatReply>;
  // The model's window in tokens, when the bridge can tell (Ollama's /api/show).
  window?(signal: AbortSignal): Promise<number | undefined>;
};

// `onProgress`: the characters of the answer so far, and of the model's reasoning, which is not part of it;
// `onText`: each piece of the answer as it arrives, for a console that shows it streaming.
export type ChatOptions = { signal: AbortSignal; onProgress?: (chars: number, thinking: number) => void; onText?: (text: string) => void; tokens?: number; window?: number };

// `promptTokens`: what the server says it read of the prompt; `truncated`: the server's word that it cut the prompt;
// `cut`: the server's word that it cut the reply at its output limit.
export type ChatReply = { text: string; promptTokens?: number; truncated?: string; cut?: string };

export type Stop = 'answered' | 'steps' | 'repeat';

export type LoopEvent =
  // `tokens` is the message's estimate, `budget` what the window leaves for a message, `dropped` the earlier results
  // given way to fit.
  | { kind: 'sending'; step: number; steps: number; chars: number; tokens: number; budget: number; dropped: number }
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
  executor: Executor;
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
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
};

export type LoopOutcome = {
  // The last reply, with the note that says why it was cut short when it was.
  answer: string;
  // That note alone, when there is one.
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
  // The requests of the last reply that were never answered (steps ran out, or a repeat).
  unanswered: Request[];
  // This question as a turn of the conversation, for a later question to continue.
  turn: Turn;
};

// The window assumed when neither the config nor the bridge tells: the DeepSeek web chat takes far more, and a local
// model set up for less says so through /api/show.
export const DEFAULT_WINDOW = 64_000;

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
  const attached = input.attached ?? (input.files !== undefined && input.files.length > 0
    ? await executor.answer([{ kind: 'need', paths: [...input.files], line: 0 }])
    : []);
  const conversation = createConversation({ texts, tree: executor.tree(), attached, question: input.question, piped: input.piped, window, earlier: input.earlier ?? [] });
  const sent: number[] = [];
  const tokens: number[] = [];
  const proposals: Proposal[] = [];
  // Per path, the text the proposals so far make of it: what a later EDIT is checked against.
  const proposed = new Map<string, string>();
  const notKept = new Set<Proposal>();
  let previousKey: string | undefined;

  for (let step = 1; ; step++) {
    const { message, tokens: estimate, dropped } = conversation.render(step, steps);
    emit({ kind: 'sending', step, steps, chars: message.length, tokens: estimate, budget: window.promptTokens, dropped });
    sent.push(message.length);
    tokens.push(estimate);
    const started = Date.now();
    const onProgress = (chars: number, thinking: number) => emit({ kind: 'receiving', step, chars, thinking });
    const onText = (text: string) => emit({ kind: 'text', step, text });
    const answer = await bridge.chat(message, { signal, onProgress, onText, tokens: estimate, window: windowTokens });
    const { text: reply, truncated, cut } = typeof answer === 'string' ? { text: answer, truncated: undefined, cut: undefined } : answer;
    if (truncated !== undefined) emit({ kind: 'warning', step, message: truncated });
    if (cut !== undefined) emit({ kind: 'warning', step, message: cut });
    const parsed = parseReply(reply);
    const checked = checkProposals(parsed.proposals, proposed, executor, cut !== undefined);
    for (const { block, kept } of checked) {
      // What the model was told was not kept stays only as long as nothing for its path is kept after it: then the
      // report says why that path is not written. A kept FILE drops all before it, a kept EDIT what was not kept.
      if (kept) {
        const stays = (q: Proposal) => q.path !== block.path || (block.kind === 'edit' && !notKept.has(q));
        proposals.splice(0, proposals.length, ...proposals.filter(stays));
      } else {
        notKept.add(block);
      }
      proposals.push(block);
    }
    const told = checked.flatMap((c) => (c.result === undefined ? [] : [c.result]));
    const failed = checked.filter((c) => !c.kept && c.result !== undefined).map((c) => c.result?.request ?? '');
    const asked = [...parsed.requests.map((r) => describeRequest(r)), ...parsed.unclear.map(describeUnclear), ...failed.map((r) => `${r} not kept`)];
    emit({ kind: 'replied', step, chars: reply.length, ms: Date.now() - started, requests: asked, files: parsed.proposals.map((f) => f.path) });

    const outcome = (stop: Stop): LoopOutcome => {
      const note = stop === 'answered' ? undefined : cutShortNote(stop, step, asked);
      const answer = note === undefined ? reply : `${reply.trimEnd()}\n\n${note}`;
      return { answer, note, stop, steps: step, sent, tokens, proposals, unanswered: stop === 'answered' ? [] : parsed.requests, turn: conversation.turn(answer) };
    };
    // A line that meant a request counts as one, and so does an EDIT that did not apply: the model is told, and the
    // loop goes on.
    if (asked.length === 0) return outcome('answered');
    const key = [...asked].sort().join('\n');
    if (key === previousKey) return outcome('repeat');
    if (step >= steps) return outcome('steps');
    previousKey = key;

    const results = [...parsed.unclear.map(unclearResult), ...told, ...(await executor.answer(parsed.requests, conversation.stillSent()))];
    const chars = conversation.add(step, reply, results);
    emit({ kind: 'answered-requests', step, requests: asked.length, chars });
  }
}

// Checks a reply's proposals in order against the files as the run's proposals leave them: whether each is kept, and
// what the model is told of it (an EDIT's outcome; a block cut off before its END). `proposed` is brought up to date.
type Checked = { block: Proposal; kept: boolean; result: Result | undefined };

// `cut`: the server cut the reply at its output limit, so a block without END was cut by it.
function checkProposals(blocks: readonly Proposal[], proposed: Map<string, string>, executor: Executor, cut: boolean): Checked[] {
  return blocks.map((block): Checked => {
    const request = `${block.kind === 'file' ? 'FILE' : 'EDIT'} ${block.path}`;
    const failed = (problem: string, fix: string, lines = ''): Checked => ({ block, kept: false, result: { kind: 'edit', request, path: block.path, ok: false, problem, lines, fix } });
    if (!block.complete) {
      const ended = cut ? "the server cut the reply at its output limit before the block's END line" : 'the reply ended before its END line';
      const fix = block.kind === 'file'
        ? 'For a big file, send EDIT blocks instead of the whole file.'
        : `Send it again, whole, closed by its END line${cut ? '; send fewer pairs per reply, so the reply stays short' : ''}.`;
      return failed(`${ended}, so it is never written`, fix);
    }
    if (block.kind === 'file') {
      proposed.set(block.path, block.content);
      return { block, kept: true, result: undefined };
    }
    if (block.problem !== undefined) return failed(`its body could not be read: ${block.problem}`, 'Send it again in the form the instructions show.');
    let base = proposed.get(block.path);
    if (base === undefined) {
      const now = executor.text(block.path);
      if (now.kind === 'refused') return failed(`${block.path} cannot be edited: ${now.reason}`, 'Leave this file as it is.');
      if (now.kind === 'missing' && block.pairs.some((p) => p.search.trim() !== '')) {
        return failed(`there is no file ${block.path}; a FILE block creates a new file (or an EDIT whose SEARCH is empty)`, 'Check the path with LIST, or create the file with a FILE block.');
      }
      base = now.kind === 'text' ? now.text : '';
    }
    const outcome = applyEdit(base, block.pairs);
    if (!outcome.ok) return failed(`pair ${outcome.pair} of ${block.pairs.length}: ${outcome.problem}`, 'Send it again with the SEARCH fixed (copy the lines as they are, without their numbers).', outcome.lines);
    proposed.set(block.path, outcome.text);
    return { block, kept: true, result: { kind: 'edit', request, path: block.path, ok: true, pairs: outcome.pairs } };
  });
}

function describeUnclear(u: Unclear): string {
  return `not understood: line ${u.line}`;
}

function unclearResult(u: Unclear): Result {
  return { kind: 'unclear', request: `line ${u.line}`, line: u.line, text: u.text, problem: u.problem, fix: u.fix };
}

function cutShortNote(stop: Stop, step: number, asked: readonly string[]): string {
  const why = stop === 'repeat'
    ? `the model repeated its previous requests, so the loop stopped at step ${step}`
    : `the steps ran out after ${step} step${step === 1 ? '' : 's'}`;
  const fix = stop === 'repeat' ? 'More steps would not help: ask a narrower question, or name the files it needs with --files' : 'Raise --steps, or ask a narrower question';
  return `[deepwork: this answer was cut short: ${why}. Unanswered requests: ${asked.join('; ')}. ${fix}.]`;
}
