// The loop: send the transcript, read the reply, answer its requests, send the grown transcript, until the model
// answers without requests, the steps run out, or it asks exactly what it asked the step before.

import type { Bridge, Reader } from './contract.ts';
import { parseReply, type Proposal, type Slip, type Unclear } from './parse.ts';
import { renderResult, type Result } from './results.ts';
import { describeRequest, type Request } from './requests.ts';
import type { Texts } from './transcript.ts';
import { createConversation, type Turn, type Window } from './conversation.ts';
import { checkProposals, keptFiles, proposalBook, type Misses } from './proposals.ts';
import { heardStop } from '../common/errors.ts';
import { estimateTokens, warmWhileWaiting } from '../common/tokens.ts';
import { checkCitations, type Miscitation } from './citations.ts';
import { MAP_WAIT_MS, mapBudget, mapInMessage, startMap } from './code-map.ts';
import { lookForQuoted, type QuotedLookup, quotedPart } from './quoted.ts';

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
  | { kind: 'answered-requests'; step: number; requests: number; chars: number }
  // Places the answer cites that do not match the files; `retry`: put to the model, whose next reply answers again.
  | { kind: 'miscited'; step: number; citations: Miscitation[]; retry: boolean };

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
  // How long the first message waits for a map of the code expected soon and for the hits of the texts the question
  // quotes (MAP_WAIT_MS); the tests say.
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
  // The places the answer cites that do not match the files (protocol/citations.ts).
  miscited: Miscitation[];
  // The run's EDIT blocks written whole: how many applied, how many did not (a per-model tally, saved/edit-tally.ts).
  edits: { applied: number; missed: number };
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
  // The map of the code beside the tree (on a big folder, in a third of the tree's room), within its own small share,
  // starting from where the texts the question quotes were found, once that search is done (within the wait).
  let quoted: QuotedLookup | undefined;
  const job = startMap(executor, input.question, input.files ?? [], () => quoted?.found() ?? Promise.resolve([]));
  const treeChars = treeBudget(window, executor.limits.treeChars) * (job?.big === true ? 2 / 3 : 1);
  const tree = executor.tree(Math.round(treeChars));
  // The texts the question quotes, looked for beside the map, within the same wait.
  const wait = input.mapWait ?? MAP_WAIT_MS;
  const waitUntil = Date.now() + wait;
  quoted = lookForQuoted(executor, input.question);
  const quotedResults = await quoted?.within(wait);
  const quotedText = quotedPart(quotedResults);
  // The lines of each file the model was shown, where a SEARCH found in several places was copied from; and the texts
  // FIND looked for, which an answer may cite as they were found (`deprecat` at a line of `deprecated`).
  const read = new Map<string, Array<[number, number]>>();
  const searched = new Set<string>();
  const noteRead = (results: readonly Result[]) => {
    const add = (path: string, first: number, last: number) => {
      const ranges = read.get(path) ?? [];
      ranges.push([first, last]);
      read.set(path, ranges);
    };
    for (const r of results) {
      if (r.kind === 'file') add(r.path, r.first, r.last);
      else if (r.kind === 'find') {
        searched.add(r.text);
        for (const h of r.hits.slice(0, r.shown ?? r.hits.length)) {
          add(h.path, h.line, h.line);
          if (h.around !== undefined) add(h.path, h.around.first, h.around.first + h.around.lines.length - 1);
        }
      }
    }
  };
  noteRead([...attached, ...(quotedResults ?? [])]);
  const fixed = [
    texts.instructions,
    tree,
    input.question,
    input.piped ?? '',
    quotedText ?? '',
    ...attached.map(renderResult),
  ];
  const mapChars = mapBudget(window, estimateTokens(fixed.join('\n\n')), attached.length > 0, treeChars - tree.length);
  const map = await mapInMessage(job, mapChars, Math.max(0, waitUntil - Date.now()));
  const conversation = createConversation({
    texts,
    tree,
    map: map.head,
    mapAfter: map.after,
    attached,
    question: input.question,
    piped: input.piped,
    quoted: quotedText,
    window,
    earlier: input.earlier ?? [],
  });
  const sent: number[] = [];
  const tokens: number[] = [];
  const proposals = proposalBook();
  // Per path, the text the proposals so far make of it: what a later EDIT is checked against.
  const proposed = new Map<string, string>();
  let previousKey: string | undefined;
  // Wrong citations are put to the model once a run.
  let citationsPut = false;
  const misses: Misses = new Map();
  const edits = { applied: 0, missed: 0 };

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
    executor.waiting?.();
    const warming = warmWhileWaiting();
    const answer = await bridge
      .chat(message, {
        signal,
        onProgress,
        onText,
        tokens: estimate,
        window: windowTokens,
        ...(sameChat ? { standalone: { message: standalone.message, tokens: standalone.tokens } } : {}),
      })
      .finally(warming);
    const { text: reply, truncated, cut } = answer;
    if (truncated !== undefined) emit({ kind: 'warning', step, message: truncated });
    if (cut !== undefined) emit({ kind: 'warning', step, message: cut });
    // A Stop while the reply was on its way, or while it is worked through below, ends the run there.
    await heardStop(signal);
    const parsed = parseReply(reply);
    const { checked, leftOut } = await checkProposals(
      parsed.proposals,
      proposed,
      executor,
      cut !== undefined,
      signal,
      misses,
      read,
    );
    for (const { edit } of checked) if (edit !== undefined) edits[edit]++;
    for (const { block, kept } of checked) proposals.add(block, kept);
    const files = keptFiles(checked);
    const told = [
      ...checked.flatMap((c) => (c.result === undefined ? [] : [c.result])),
      ...(files === undefined ? [] : [files]),
      ...(leftOut === undefined ? [] : [leftOut]),
    ];
    // An EDIT kept with some of its pairs counts as not kept for the pairs that were not: the model is told.
    const failed = [
      ...checked
        .filter((c) => (!c.kept || c.partial === true) && c.result !== undefined)
        .map((c) => `${c.result?.request ?? ''}${c.partial === true ? ' (some pairs)' : ''}`),
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

    const outcome = (stop: Stop, miscited: Miscitation[] = []): LoopOutcome => {
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
        miscited,
        edits,
        turn: conversation.turn(answerOf({ reply, note })),
      };
    };
    // A line that meant a request counts as one, and so does an EDIT that did not apply: the model is told, and the
    // loop goes on.
    if (asked.length === 0) {
      // A file the run proposes to change may be cited as it is or as it will be: it is not judged.
      const changing = new Set(proposals.list().map((p) => p.path));
      const miscited = checkCitations(
        reply,
        (path) => (changing.has(path) ? { kind: 'refused', reason: 'proposed' } : executor.text(path)),
        searched,
      );
      if (miscited.length === 0) return outcome('answered');
      // An answer that proposes changes is not asked again: its blocks would come back and be applied twice.
      const retry = !citationsPut && step < steps && parsed.proposals.length === 0;
      emit({ kind: 'miscited', step, citations: miscited, retry });
      if (!retry) return outcome('answered', miscited);
      citationsPut = true;
      const chars = conversation.add(step, reply, [{ kind: 'citations', request: 'citations', wrong: miscited }]);
      emit({ kind: 'answered-requests', step, requests: 1, chars });
      continue;
    }
    // A block not kept counts as asked again only when it is the same block: an EDIT with another SEARCH is a new try.
    const tried = checked
      .filter((c) => (!c.kept || c.partial === true) && c.result !== undefined)
      .map((c) => JSON.stringify(c.block));
    const key = [...asked, ...tried].sort().join('\n');
    if (key === previousKey) return outcome('repeat');
    if (step >= steps) return outcome('steps');
    previousKey = key;

    // What became of the lines not written as requests, in the order they stand: each before the results.
    const lines = [...parsed.unclear.map(unclearResult), ...parsed.slips.map(readAsResult)];
    // The quoted texts' hits not ready for the first message come with the first results (the search ends first).
    const lateQuoted = (await quoted?.late(parsed.requests.map((r) => describeRequest(r)))) ?? [];
    const answered = await executor.answer(parsed.requests, conversation.stillSent());
    noteRead([...lateQuoted, ...answered]);
    // A map not ready for the first message comes with the first results after it is.
    const late = map.later();
    const results = [
      ...lines.sort((a, b) => a.line - b.line),
      ...told,
      ...lateQuoted,
      ...answered,
      ...(late === undefined ? [] : [late]),
    ];
    const chars = conversation.add(step, reply, results);
    emit({ kind: 'answered-requests', step, requests: asked.length, chars });
  }
}

function describeUnclear(u: Unclear): string {
  return `not understood: line ${u.line}`;
}

function unclearResult(u: Unclear): Extract<Result, { kind: 'unclear' }> {
  return { kind: 'unclear', request: `line ${u.line}`, line: u.line, text: u.text, problem: u.problem, fix: u.fix };
}

// A slip's requests are in the reply's requests: asked, logged and answered as any other; this is only the note.
function readAsResult(s: Slip): Extract<Result, { kind: 'read-as' }> {
  return { kind: 'read-as', request: `line ${s.line}`, line: s.line, read: s.read, problem: s.problem };
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
