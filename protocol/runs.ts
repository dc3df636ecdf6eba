// The last run's proposals per project, kept in deepwork's own state folder (never in the user's project), so
// `deepwork apply` can write them later without asking the model again.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DeepworkError } from './errors.ts';
import type { FileBlock } from './parse.ts';

export type SavedRun = { root: string; question: string; time: string; files: FileBlock[] };

function runFile(stateDir: string, root: string): string {
  const key = crypto.createHash('sha256').update(root).digest('hex').slice(0, 16);
  return path.join(stateDir, 'runs', `${key}.json`);
}

export function saveRun(stateDir: string, run: SavedRun): void {
  const file = runFile(stateDir, run.root);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(run));
  fs.renameSync(temp, file);
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
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.root === 'string' && typeof r.question === 'string' && typeof r.time === 'string'
    && Array.isArray(r.files) && r.files.every((f: unknown) => {
      if (typeof f !== 'object' || f === null) return false;
      const b = f as Record<string, unknown>;
      return b.kind === 'file' && typeof b.path === 'string' && typeof b.content === 'string' && typeof b.complete === 'boolean' && typeof b.line === 'number';
    });
}
