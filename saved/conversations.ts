// The folder's conversations, kept in deepwork's state folder beside the last run: each conversation one file, its
// questions and answers as sent, so the pult can list them and reopen one, and a follow-up carries it to the model.
// Only the newest ones per folder are kept.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Turn } from '../protocol/conversation.ts';
import { isRecord } from '../common/unknown.ts';
import { isTurn } from './runs.ts';
import { folderKey } from './folder-key.ts';
import { writeAtomic } from '../writing/atomic.ts';
import { keepLatest } from './keep-latest.ts';

export type SavedConversation = { root: string; id: string; time: string; turns: Turn[] };
// What a list shows of one: its first question, when it last changed, how many questions it holds.
export type ConversationInfo = { id: string; title: string; time: string; questions: number };

const KEPT = 30;
const TITLE_CHARS = 120;

export function newConversationId(now = new Date()): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(3).toString('hex')}`;
}

function folderOf(stateDir: string, root: string): string {
  return path.join(stateDir, 'conversations', folderKey(root));
}

// An id names a file inside the folder's conversations, and nothing else: letters, digits and dashes only.
function fileOf(stateDir: string, root: string, id: string): string | undefined {
  return /^[A-Za-z0-9-]{1,80}$/.test(id) ? path.join(folderOf(stateDir, root), `${id}.json`) : undefined;
}

// Writes the conversation and drops the oldest past the ones kept.
export function saveConversation(stateDir: string, conversation: SavedConversation): void {
  const file = fileOf(stateDir, conversation.root, conversation.id);
  if (file === undefined) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeAtomic(fs, file, Buffer.from(JSON.stringify(conversation)), 0o600);
  keepLatest(path.dirname(file), '.json', KEPT);
}

export function loadConversation(stateDir: string, root: string, id: string): SavedConversation | undefined {
  const file = fileOf(stateDir, root, id);
  if (file === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return isConversation(value) && value.root === root && value.id === id ? value : undefined;
  } catch {
    return undefined;
  }
}

// The folder's conversations, newest first. A damaged file is left out, not an error: the list is a convenience.
export function listConversations(stateDir: string, root: string, limit = KEPT): ConversationInfo[] {
  const folder = folderOf(stateDir, root);
  let names: string[];
  try {
    names = fs.readdirSync(folder).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const found: ConversationInfo[] = [];
  for (const name of names) {
    const saved = loadConversation(stateDir, root, name.slice(0, -'.json'.length));
    const first = saved?.turns[0];
    if (saved === undefined || first === undefined) continue;
    const title = first.question.length > TITLE_CHARS ? `${first.question.slice(0, TITLE_CHARS)}…` : first.question;
    found.push({ id: saved.id, title, time: saved.time, questions: saved.turns.length });
  }
  return found.sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0)).slice(0, limit);
}

function isConversation(value: unknown): value is SavedConversation {
  return (
    isRecord(value) &&
    typeof value.root === 'string' &&
    typeof value.id === 'string' &&
    typeof value.time === 'string' &&
    Array.isArray(value.turns) &&
    value.turns.every(isTurn)
  );
}
