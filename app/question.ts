// One question, start to end, as the console and the pult both run it: the loop with the instructions, then the run
// kept in deepwork's state folder so `deepwork apply` finds its proposals, whichever of them asked.

import type { Executor } from '../reading/executor.ts';
import { runLoop, type LoopInput, type LoopOutcome } from '../protocol/loop.ts';
import { loadTexts } from '../protocol/transcript.ts';
import { boundedConversation, saveRun } from '../saved/runs.ts';
import { saveConversation } from '../saved/conversations.ts';
import type { Turn } from '../protocol/conversation.ts';
import { privateKeyLine } from '../reading/private-keys.ts';
import { withFates } from '../writing/fates.ts';
import { addToTally, type Tally } from '../saved/edit-tally.ts';

// The loop's input (protocol/loop.ts), less the instructions, which are loaded here, plus where the run is kept.
export type Question = Omit<LoopInput, 'texts' | 'executor' | 'earlier'> & {
  executor: Executor;
  stateDir: string;
  // Where the backup sets are: what became of the earlier answers' proposals is read there.
  backupDir: string;
  // The earlier questions this one continues (`--continue`, a follow-up in the pult), oldest first; empty for a new
  // conversation.
  earlier: readonly Turn[];
  // The conversation's name among the folder's conversations: the one continued, or a new one.
  conversationId: string;
};

// How the run's EDITs went, and its model's over all runs (saved/edit-tally.ts).
export type EditTally = { model: string; run: Tally; all: Tally };

// `saveError`: why the run could not be kept, when it could not; the answer stands all the same. `conversation`: the
// conversation with this question added, as kept. `edits`: when the run had EDIT blocks and the bridge names its model.
export async function runQuestion(
  q: Question,
): Promise<{ outcome: LoopOutcome; saveError: unknown; conversation: Turn[]; edits: EditTally | undefined }> {
  const { stateDir: _stateDir, backupDir: _backupDir, conversationId: _id, ...loop } = q;
  const earlier = withFates(withoutKeys(q.earlier), q.backupDir, q.executor.box.root);
  const outcome = await runLoop({ ...loop, texts: loadTexts(q.executor.limits), earlier });
  let saveError: unknown;
  const conversation = boundedConversation([...q.earlier, outcome.turn]);
  const root = q.executor.box.root;
  const time = new Date().toISOString();
  try {
    saveRun(q.stateDir, {
      root,
      question: q.question,
      time,
      files: outcome.proposals,
      conversation,
      conversationId: q.conversationId,
    });
    saveConversation(q.stateDir, { root, id: q.conversationId, time, turns: conversation });
  } catch (error) {
    saveError = error;
  }
  let edits: EditTally | undefined;
  const model = q.bridge.model;
  if (model !== undefined && outcome.edits.applied + outcome.edits.missed > 0) {
    try {
      edits = { model, run: outcome.edits, all: addToTally(q.stateDir, model, outcome.edits) };
    } catch {
      // The tally is a figure for the person, not worth failing the run's answer for: this run is shown alone.
      edits = { model, run: outcome.edits, all: outcome.edits };
    }
  }
  return { outcome, saveError, conversation, edits };
}

// The earlier questions as the model is sent them again: a result that holds a private key (kept by a deepwork from
// before every read withheld keys, or a state file edited by hand) stands as its one-line note.
function withoutKeys(turns: readonly Turn[]): Turn[] {
  return turns.map((turn) => ({
    ...turn,
    steps: turn.steps.map((s) => ({
      ...s,
      results: s.results.map((r) => (privateKeyLine(r.text) === undefined ? r : { text: r.note, note: r.note })),
    })),
  }));
}
