// What the main thread and a search worker say to each other, and the checks that read it: each side takes the
// other's messages as unknown.

import { isRecord } from '../../common/unknown.ts';
import type { Hit, SearchJob } from './job.ts';
import type { SharedPool } from './places.ts';

// To a worker. `assign`: the run's files, once per run (their paths, in memory shared with the main thread: pool.ts),
// who reads which chunk (plan.ts), which searcher the worker is, and the count of steps under way, which pauses its
// read ahead (ahead.ts). `search`: one search, as searcher `me`, with its own shared limits. `resume`: no step is under
// way any more: the read ahead goes on.
export type ToWorker =
  | { kind: 'assign'; pool: SharedPool; owners: SharedArrayBuffer; me: number; hold: SharedArrayBuffer }
  | { kind: 'search'; id: number; me: number; job: SearchJob; limits: SharedArrayBuffer }
  | { kind: 'resume' };

// From a worker: a search's hits, or why it could not read a message.
export type FromWorker = { kind: 'result'; id: number; hits: Hit[] } | { kind: 'error'; message: string };

// What a worker's reply means to the search `id` waiting for it: its hits; a failure (the worker's own, or a reply
// that cannot be read, which is refused rather than trusted); or nothing, when it is the late answer to an earlier
// search that was not waited for.
export type Reply = { kind: 'hits'; hits: Hit[] } | { kind: 'failed'; message: string } | { kind: 'earlier' };

export function readReply(reply: unknown, id: number): Reply {
  if (!isRecord(reply)) return { kind: 'failed', message: 'a malformed reply' };
  if (reply.kind === 'error') return { kind: 'failed', message: String(reply.message) };
  if (reply.kind !== 'result' || typeof reply.id !== 'number') return { kind: 'failed', message: 'a malformed reply' };
  if (reply.id !== id) return { kind: 'earlier' };
  return Array.isArray(reply.hits) && reply.hits.every(isHit)
    ? { kind: 'hits', hits: reply.hits }
    : { kind: 'failed', message: 'a malformed result' };
}

// A message to a worker, or undefined when it is not one.
export function readToWorker(message: unknown): ToWorker | undefined {
  if (!isRecord(message)) return undefined;
  if (message.kind === 'assign') {
    const { pool, owners, me, hold } = message;
    if (!isPool(pool) || !(owners instanceof SharedArrayBuffer) || typeof me !== 'number') return undefined;
    if (!(hold instanceof SharedArrayBuffer) || hold.byteLength !== 4) return undefined;
    return { kind: 'assign', pool, owners, me, hold };
  }
  if (message.kind === 'resume') return { kind: 'resume' };
  if (message.kind === 'search') {
    const { id, me, job, limits } = message;
    if (typeof id !== 'number' || typeof me !== 'number' || !(limits instanceof SharedArrayBuffer) || !isRecord(job))
      return undefined;
    const { texts, maxHits, lineChars, fold } = job;
    if (!isStrings(texts) || typeof maxHits !== 'number' || typeof lineChars !== 'number' || !isFolds(fold))
      return undefined;
    return { kind: 'search', id, me, job: { texts, maxHits, lineChars, fold }, limits };
  }
  return undefined;
}

function isHit(value: unknown): value is Hit {
  return (
    Array.isArray(value) &&
    value.length === 4 &&
    typeof value[0] === 'number' &&
    typeof value[1] === 'number' &&
    typeof value[2] === 'number' &&
    typeof value[3] === 'string'
  );
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((t) => typeof t === 'string');
}

function isPool(value: unknown): value is SharedPool {
  if (!isRecord(value)) return false;
  const { root, files, folders, bytes, index } = value;
  return (
    typeof root === 'string' &&
    Number.isInteger(files) &&
    Number.isInteger(folders) &&
    bytes instanceof SharedArrayBuffer &&
    index instanceof SharedArrayBuffer &&
    index.byteLength === 4 * (2 * Number(files) + 2 * Number(folders) + 1)
  );
}

function isFolds(value: unknown): value is boolean[] {
  return Array.isArray(value) && value.every((f) => typeof f === 'boolean');
}
