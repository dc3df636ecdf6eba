// How often each model's EDIT blocks applied, over the runs, kept in deepwork's state folder: a model that misses its
// SEARCHes often is better asked for whole files, and the person sees which it is. One small file for all folders,
// bounded by the models it keeps.

import fs from 'node:fs';
import path from 'node:path';
import { isRecord } from '../common/unknown.ts';
import { writeAtomic } from '../writing/atomic.ts';

export type Tally = { applied: number; missed: number };
type Kept = Tally & { last: string };

// Models kept at most: the ones used longest ago give way.
const MAX_MODELS = 50;

function tallyFile(stateDir: string): string {
  return path.join(stateDir, 'edit-tally.json');
}

// The tally per model; empty when there is none yet, or the file is not one deepwork wrote (it is replaced at the next
// run's count: it holds nothing but these figures).
export function loadTally(stateDir: string): Map<string, Kept> {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(tallyFile(stateDir), 'utf8'));
  } catch {
    return new Map();
  }
  const models = isRecord(value) && isRecord(value.models) ? value.models : {};
  const tally = new Map<string, Kept>();
  for (const [model, kept] of Object.entries(models)) {
    if (!isRecord(kept)) continue;
    const { applied, missed, last } = kept;
    if (isCount(applied) && isCount(missed) && typeof last === 'string') tally.set(model, { applied, missed, last });
  }
  return tally;
}

// Adds a run's EDITs to its model's tally, and returns the model's tally with them. Nothing is written for a run
// without EDITs.
export function addToTally(stateDir: string, model: string, run: Tally, now = new Date()): Tally {
  const tally = loadTally(stateDir);
  const before = tally.get(model) ?? { applied: 0, missed: 0 };
  const after = { applied: before.applied + run.applied, missed: before.missed + run.missed };
  if (run.applied + run.missed === 0) return { applied: before.applied, missed: before.missed };
  tally.set(model, { ...after, last: now.toISOString() });
  const newest = [...tally].sort((a, b) => b[1].last.localeCompare(a[1].last)).slice(0, MAX_MODELS);
  fs.mkdirSync(stateDir, { recursive: true });
  const json = JSON.stringify({ models: Object.fromEntries(newest) }, null, 1);
  writeAtomic(fs, tallyFile(stateDir), Buffer.from(json), 0o600);
  return after;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
