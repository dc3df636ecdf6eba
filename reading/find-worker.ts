// A search worker: holds the run's file paths, searches the chunks it claims (or read before) for a step's FIND texts,
// and keeps what it read (up to its memory budget) for the next step. Messages come in as unknown and are checked.

import { parentPort, workerData } from 'node:worker_threads';
import { createKeeper, searchShared } from './search.ts';
import { pathsOf } from './find.ts';
import { isRecord } from '../common/unknown.ts';

const budget: unknown = isRecord(workerData) ? workerData.cacheBytes : undefined;
const keeper = createKeeper(typeof budget === 'number' ? budget : 0);
let count = 0;
let pathAt: (index: number) => string = () => '';
let owner: Int8Array<ArrayBufferLike> = new Int8Array(1);

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((t) => typeof t === 'string');
}

function isTargets(value: unknown): value is Array<[number, string]> {
  return Array.isArray(value) && value.every((t) => Array.isArray(t) && t.length === 2 && typeof t[0] === 'number' && typeof t[1] === 'string');
}

function isFolds(value: unknown): value is boolean[] {
  return Array.isArray(value) && value.every((f) => typeof f === 'boolean');
}

parentPort?.on('message', (message: unknown) => {
  if (!isRecord(message)) return;
  if (message.type === 'assign' && isStrings(message.rels) && isTargets(message.targets) && typeof message.root === 'string' && message.owners instanceof SharedArrayBuffer) {
    count = message.rels.length;
    pathAt = pathsOf(message.root, { rels: message.rels, targets: new Map(message.targets) });
    owner = new Int8Array(message.owners);
    keeper.reset(message.root, count);
    // The files are given ahead of the first FIND: the memory to keep them in is made ready meanwhile.
    void keeper.prepare();
  } else if (message.type === 'search' && typeof message.id === 'number' && typeof message.me === 'number' && isStrings(message.texts)
    && typeof message.maxHits === 'number' && typeof message.lineChars === 'number' && message.limits instanceof SharedArrayBuffer) {
    keeper.newSearch();
    const plan = { owner, limits: new Int32Array(message.limits) };
    const hits = searchShared(count, pathAt, plan, message.me, message.texts, message.maxHits, message.lineChars, keeper, isFolds(message.fold) ? message.fold : []);
    parentPort?.postMessage({ type: 'result', id: message.id, hits });
  } else {
    parentPort?.postMessage({ type: 'error', message: 'unknown message' });
  }
});
