// The last run's proposals per project, kept in deepwork's own state folder (never in the user's project), so
// `deepwork apply` can write them later without asking the model again.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DeepworkError } from '../common/errors.ts';
import type { FileBlock } from '../protocol/parse.ts';
import { isRecord } from '../common/unknown.ts';
import { writeAtomic } from './atomic.ts';

export type SavedRun = { root: string; question: string; time: string; files: FileBlock[] };

function runFile(stateDir: string, root: string): string {
  const key = crypto.createHash('sha256').update(root).digest('hex').slice(0, 16);
  return path.join(stateDir, 'runs', `${key}.json`);
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
    if (error instanceof SyntaxError) throw new DeepworkError('STATE_INVALID', `The saved run ${file} is damaged. Delete it and ask again.`, { cause: error });
    return undefined;
  }
  if (!isRun(value) || value.root !== root) throw new DeepworkError('STATE_INVALID', `The saved run ${file} is not a run of deepwork's. Delete it and ask again.`);
  return value;
}

function isRun(value: unknown): value is SavedRun {
  return isRecord(value) && typeof value.root === 'string' && typeof value.question === 'string' && typeof value.time === 'string'
    && Array.isArray(value.files) && value.files.every(isFileBlock);
}

function isFileBlock(value: unknown): value is FileBlock {
  return isRecord(value) && value.kind === 'file' && typeof value.path === 'string' && typeof value.content === 'string'
    && typeof value.complete === 'boolean' && typeof value.line === 'number';
}
