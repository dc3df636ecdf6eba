// One question, start to end, as the console and the pult both run it: the loop with the instructions, then the run
// kept in deepwork's state folder so `deepwork apply` finds its proposals, whichever of them asked.

import type { Executor } from '../reading/execute.ts';
import { runLoop, type Bridge, type LoopEvent, type LoopOutcome } from '../protocol/loop.ts';
import { loadTexts } from '../protocol/transcript.ts';
import { boundedConversation, saveRun } from '../writing/runs.ts';
import type { Turn } from '../protocol/conversation.ts';

export type Question = {
  bridge: Bridge;
  executor: Executor;
  question: string;
  files: readonly string[];
  // What was piped in, sent with the question.
  piped: string | undefined;
  steps: number;
  // The model's window in tokens, when the config names it.
  contextTokens: number | undefined;
  stateDir: string;
  // The earlier questions this one continues (`--continue`), oldest first; empty for a new conversation.
  earlier: readonly Turn[];
  signal: AbortSignal;
  onEvent: (event: LoopEvent) => void;
};

// `saveError`: why the run could not be kept, when it could not; the answer stands all the same.
export async function runQuestion(q: Question): Promise<{ outcome: LoopOutcome; saveError: unknown }> {
  const outcome = await runLoop({
    bridge: q.bridge, executor: q.executor, texts: loadTexts(q.executor.limits), question: q.question, files: q.files, piped: q.piped,
    steps: q.steps, contextTokens: q.contextTokens, earlier: q.earlier, signal: q.signal, onEvent: q.onEvent,
  });
  let saveError: unknown;
  try {
    const conversation = boundedConversation([...q.earlier, outcome.turn]);
    saveRun(q.stateDir, { root: q.executor.box.root, question: q.question, time: new Date().toISOString(), files: outcome.proposals, conversation });
  } catch (error) {
    saveError = error;
  }
  return { outcome, saveError };
}
