// The last run's proposals per project, kept in deepwork's own state folder (never in the user's project), so
// `deepwork apply` can write them later without asking the model again.

import fs from 'node:fs';
import path from 'node:path';
import { DeepworkError } from '../common/errors.ts';
import type { EditBlock, FileBlock, Proposal } from '../protocol/parse.ts';
import type { Turn } from '../protocol/conversation.ts';
import { isRecord } from '../common/unknown.ts';
import { writeAtomic } from '../writing/atomic.ts';
import { folderKey } from './folder-key.ts';

// `files`: the run's proposals, FILE and EDIT blocks in order. `conversation`: the questions so far, oldest first,
// the last being this run's (absent in runs saved before deepwork kept them); `conversationId`: its name in the
// folder's conversations (writing/conversations.ts).
export type SavedRun = {
  root: string;
  question: string;
  time: string;
  files: Proposal[];
  conversation?: Turn[];
  conversationId?: string;
};

// What a saved conversation keeps at most: older questions go first. The latest question stays whatever its size.
const CONVERSATION_CHARS = 4_000_000;
const CONVERSATION_TURNS = 20;

// The conversation to keep: the newest turns within the bounds above.
export function boundedConversation(turns: readonly Turn[]): Turn[] {
  const kept: Turn[] = [];
  let chars = 0;
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i];
    if (turn === undefined) continue;
    chars += sizeOf(turn);
    if (kept.length > 0 && (chars > CONVERSATION_CHARS || kept.length >= CONVERSATION_TURNS)) break;
    kept.unshift(turn);
  }
  return kept;
}

function sizeOf(turn: Turn): number {
  return (
    turn.question.length +
    turn.answer.length +
    turn.steps.reduce(
      (sum, s) => sum + s.answer.length + s.results.reduce((a, r) => a + r.text.length + r.note.length, 0),
      0,
    )
  );
}

function runFile(stateDir: string, root: string): string {
  return path.join(stateDir, 'runs', `${folderKey(root)}.json`);
}

export function saveRun(stateDir: string, run: SavedRun): void {
  const file = runFile(stateDir, run.root);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeAtomic(fs, file, Buffer.from(JSON.stringify(run)), 0o600);
}

// The last run of this project, or undefined when there was none.
export function loadRun(stateDir: string, root: string): SavedRun | undefined {
  const file = runFile(stateDir, root);
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    if (error instanceof SyntaxError)
      throw new DeepworkError('STATE_INVALID', `The saved run ${file} is damaged. Delete it and ask again.`, {
        cause: error,
      });
    return undefined;
  }
  if (!isRun(value) || value.root !== root)
    throw new DeepworkError(
      'STATE_INVALID',
      `The saved run ${file} is not a run of deepwork's. Delete it and ask again.`,
    );
  return value;
}

function isRun(value: unknown): value is SavedRun {
  return (
    isRecord(value) &&
    typeof value.root === 'string' &&
    typeof value.question === 'string' &&
    typeof value.time === 'string' &&
    Array.isArray(value.files) &&
    value.files.every((f) => isFileBlock(f) || isEditBlock(f)) &&
    (value.conversation === undefined || (Array.isArray(value.conversation) && value.conversation.every(isTurn))) &&
    (value.conversationId === undefined || typeof value.conversationId === 'string')
  );
}

export function isTurn(value: unknown): value is Turn {
  return (
    isRecord(value) &&
    typeof value.question === 'string' &&
    typeof value.answer === 'string' &&
    Array.isArray(value.steps) &&
    value.steps.every(
      (s) =>
        isRecord(s) &&
        typeof s.step === 'number' &&
        typeof s.answer === 'string' &&
        Array.isArray(s.results) &&
        s.results.every((r) => isRecord(r) && typeof r.text === 'string' && typeof r.note === 'string'),
    ) &&
    (value.time === undefined || typeof value.time === 'string') &&
    (value.fates === undefined || typeof value.fates === 'string')
  );
}

function isEditBlock(value: unknown): value is EditBlock {
  return (
    isRecord(value) &&
    value.kind === 'edit' &&
    typeof value.path === 'string' &&
    typeof value.complete === 'boolean' &&
    typeof value.line === 'number' &&
    (value.problem === undefined || typeof value.problem === 'string') &&
    Array.isArray(value.pairs) &&
    value.pairs.every((p) => isRecord(p) && typeof p.search === 'string' && typeof p.replace === 'string')
  );
}

function isFileBlock(value: unknown): value is FileBlock {
  return (
    isRecord(value) &&
    value.kind === 'file' &&
    typeof value.path === 'string' &&
    typeof value.content === 'string' &&
    typeof value.complete === 'boolean' &&
    typeof value.line === 'number'
  );
}
