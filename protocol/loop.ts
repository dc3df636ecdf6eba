// The loop: send the transcript, read the reply, answer its requests, send the grown transcript, until the model
// answers without requests, the steps run out, or it asks exactly what it asked the step before.

import type { Executor } from '../reading/execute.ts';
import { parseReply, type FileBlock } from './parse.ts';
import { describeRequest, type Request } from './requests.ts';
import { renderResults } from './results.ts';
import { firstMessage, nextMessage, type Texts } from './transcript.ts';

// Anything that takes a message and returns the model's reply: the Ollama-style client, the demo, a test's fake.
export type Bridge = {
  label: string;
  chat(message: string, options: { signal: AbortSignal; onProgress?: (chars: number) => void }): Promise<string>;
};

export type Stop = 'answered' | 'steps' | 'repeat';

export type LoopEvent =
  | { kind: 'sending'; step: number; steps: number; chars: number }
  | { kind: 'receiving'; step: number; chars: number }
  | { kind: 'replied'; step: number; chars: number; ms: number; requests: string[]; files: string[] }
  | { kind: 'answered-requests'; step: number; requests: number; chars: number };

export type LoopInput = {
  bridge: Bridge;
  executor: Executor;
  texts: Texts;
  question: string;
  files?: readonly string[];
  steps: number;
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
};

export type LoopOutcome = {
  answer: string;
  stop: Stop;
  steps: number;
  // Characters sent at each step.
  sent: number[];
  // Proposed files over all steps; a later block for the same path replaces an earlier one.
  files: FileBlock[];
  // The requests of the last reply that were never answered (steps ran out, or a repeat).
  unanswered: Request[];
};

export async function runLoop(input: LoopInput): Promise<LoopOutcome> {
  const { bridge, executor, texts, steps } = input;
  const signal = input.signal ?? new AbortController().signal;
  const emit = input.onEvent ?? (() => {});
  executor.reset();
  const attached = input.files !== undefined && input.files.length > 0
    ? renderResults(await executor.answer([{ kind: 'need', paths: [...input.files], line: 0 }]))
    : '';
  let message = firstMessage({ texts, tree: executor.tree(), attached, question: input.question, last: steps <= 1 });
  const sent: number[] = [];
  const files = new Map<string, FileBlock>();
  let previousKey: string | undefined;

  for (let step = 1; ; step++) {
    emit({ kind: 'sending', step, steps, chars: message.length });
    sent.push(message.length);
    const started = Date.now();
    const reply = await bridge.chat(message, { signal, onProgress: (chars) => emit({ kind: 'receiving', step, chars }) });
    const parsed = parseReply(reply);
    for (const file of parsed.files) {
      files.delete(file.path);
      files.set(file.path, file);
    }
    emit({
      kind: 'replied', step, chars: reply.length, ms: Date.now() - started,
      requests: parsed.requests.map((r) => describeRequest(r)), files: parsed.files.map((f) => f.path),
    });

    const outcome = (stop: Stop, unanswered: Request[]): LoopOutcome => ({
      answer: stop === 'answered' ? reply : `${reply.trimEnd()}\n\n${cutShortNote(stop, step, unanswered)}`,
      stop, steps: step, sent, files: [...files.values()], unanswered,
    });
    if (parsed.requests.length === 0) return outcome('answered', []);
    const key = requestsKey(parsed.requests);
    if (key === previousKey) return outcome('repeat', parsed.requests);
    if (step >= steps) return outcome('steps', parsed.requests);
    previousKey = key;

    const results = renderResults(await executor.answer(parsed.requests));
    emit({ kind: 'answered-requests', step, requests: parsed.requests.length, chars: results.length });
    message = nextMessage(message, reply, results, texts, step + 1 >= steps);
  }
}

// Two steps ask the same when their requests are the same, in any order.
function requestsKey(requests: readonly Request[]): string {
  return requests.map((r) => describeRequest(r)).sort().join('\n');
}

function cutShortNote(stop: Stop, step: number, unanswered: readonly Request[]): string {
  const asked = unanswered.map((r) => describeRequest(r)).join('; ');
  const why = stop === 'repeat'
    ? `the model repeated its previous requests, so the loop stopped at step ${step}`
    : `the steps ran out after ${step} step${step === 1 ? '' : 's'}`;
  return `[deepwork: this answer was cut short: ${why}. Unanswered requests: ${asked}. Raise --steps, or ask a narrower question.]`;
}
