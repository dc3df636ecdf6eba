// One question, start to end, as the console and the pult both run it: the loop with the instructions, then the run
// kept in deepwork's state folder so `deepwork apply` finds its proposals, whichever of them asked.

import type { Executor } from '../reading/execute.ts';
import { runLoop, type LoopEvent, type LoopOutcome } from '../protocol/loop.ts';
import type { Bridge } from '../protocol/contract.ts';
import { loadTexts } from '../protocol/transcript.ts';
import { boundedConversation, saveRun } from '../state/runs.ts';
import { saveConversation } from '../state/conversations.ts';
import type { Turn } from '../protocol/conversation.ts';
import type { Result } from '../protocol/results.ts';
import { privateKeyLine } from '../reading/private-keys.ts';

export type Question = {
  bridge: Bridge;
  executor: Executor;
  question: string;
  files: readonly string[];
  // The files as already read, when they were (see LoopInput.attached).
  attached?: readonly Result[];
  // What was piped in, sent with the question.
  piped: string | undefined;
  steps: number;
  // The model's window in tokens, when the config names it.
  contextTokens: number | undefined;
  stateDir: string;
  // The earlier questions this one continues (`--continue`, a follow-up in the pult), oldest first; empty for a new
  // conversation.
  earlier: readonly Turn[];
  // The conversation's name among the folder's conversations: the one continued, or a new one.
  conversationId: string;
  signal: AbortSignal;
  onEvent: (event: LoopEvent) => void;
};

// `saveError`: why the run could not be kept, when it could not; the answer stands all the same. `conversation`: the
// conversation with this question added, as kept.
export async function runQuestion(q: Question): Promise<{ outcome: LoopOutcome; saveError: unknown; conversation: Turn[] }> {
  const outcome = await runLoop({
    bridge: q.bridge, executor: q.executor, texts: loadTexts(q.executor.limits), question: q.question, files: q.files, piped: q.piped,
    ...(q.attached === undefined ? {} : { attached: q.attached }),
    steps: q.steps, contextTokens: q.contextTokens, earlier: withoutKeys(q.earlier), signal: q.signal, onEvent: q.onEvent,
  });
  let saveError: unknown;
  const conversation = boundedConversation([...q.earlier, outcome.turn]);
  const root = q.executor.box.root;
  const time = new Date().toISOString();
  try {
    saveRun(q.stateDir, { root, question: q.question, time, files: outcome.proposals, conversation, conversationId: q.conversationId });
    saveConversation(q.stateDir, { root, id: q.conversationId, time, turns: conversation });
  } catch (error) {
    saveError = error;
  }
  return { outcome, saveError, conversation };
}

// The earlier questions as the model is sent them again: a result that holds a private key (kept by a deepwork from
// before every read withheld keys, or a state file edited by hand) stands as its one-line note.
function withoutKeys(turns: readonly Turn[]): Turn[] {
  return turns.map((turn) => ({
    ...turn,
    steps: turn.steps.map((s) => ({ ...s, results: s.results.map((r) => (privateKeyLine(r.text) === undefined ? r : { text: r.note, note: r.note })) })),
  }));
}
