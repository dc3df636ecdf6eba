// A search worker: holds the run's file paths, searches the chunks it claims (or read before) for a step's FIND texts,
// and keeps what it read (up to its memory budget) for the next step. Messages come in as unknown and are checked.

import { parentPort, workerData } from 'node:worker_threads';
import { createKeeper, searchShared } from './search.ts';
import { isRecord } from '../common/unknown.ts';

const budget: unknown = isRecord(workerData) ? workerData.cacheBytes : undefined;
const keeper = createKeeper(typeof budget === 'number' ? budget : 0);
let files: string[] = [];
let owner: Int8Array<ArrayBufferLike> = new Int8Array(1);

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((t) => typeof t === 'string');
}

function isFolds(value: unknown): value is boolean[] {
  return Array.isArray(value) && value.every((f) => typeof f === 'boolean');
}

parentPort?.on('message', (message: unknown) => {
  if (!isRecord(message)) return;
  if (message.type === 'assign' && isStrings(message.files) && typeof message.root === 'string' && message.owners instanceof SharedArrayBuffer) {
    files = message.files;
    owner = new Int8Array(message.owners);
    keeper.reset(message.root);
  } else if (message.type === 'search' && typeof message.id === 'number' && typeof message.me === 'number' && isStrings(message.texts)
    && typeof message.maxHits === 'number' && typeof message.lineChars === 'number' && message.limits instanceof SharedArrayBuffer) {
    keeper.newSearch();
    const plan = { owner, limits: new Int32Array(message.limits) };
    const hits = searchShared(files, plan, message.me, message.texts, message.maxHits, message.lineChars, keeper, isFolds(message.fold) ? message.fold : []);
    parentPort?.postMessage({ type: 'result', id: message.id, hits });
  } else {
    parentPort?.postMessage({ type: 'error', message: 'unknown message' });
  }
});
