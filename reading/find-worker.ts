// A search worker: holds its share of the run's files, searches them for a step's FIND texts, and keeps what it read
// (up to its memory budget) for the next step. Messages come in as unknown and are checked.

import { parentPort, workerData } from 'node:worker_threads';
import { createKeeper, searchFiles, type Assigned } from './search.ts';
import { isRecord } from '../common/unknown.ts';

const budget: unknown = isRecord(workerData) ? workerData.cacheBytes : undefined;
const keeper = createKeeper(typeof budget === 'number' ? budget : 0);
let files: Assigned[] = [];

function isAssigned(value: unknown): value is Assigned[] {
  return Array.isArray(value) && value.every((f) => isRecord(f) && typeof f.index === 'number' && typeof f.abs === 'string');
}

function isFolds(value: unknown): value is boolean[] {
  return Array.isArray(value) && value.every((f) => typeof f === 'boolean');
}

function isTexts(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((t) => typeof t === 'string');
}

parentPort?.on('message', (message: unknown) => {
  if (!isRecord(message)) return;
  if (message.type === 'assign' && isAssigned(message.files) && typeof message.root === 'string') {
    files = message.files;
    keeper.reset(message.root);
  } else if (message.type === 'search' && typeof message.id === 'number' && isTexts(message.texts)
    && typeof message.maxHits === 'number' && typeof message.lineChars === 'number') {
    keeper.newSearch();
    const hits = searchFiles(files, message.texts, message.maxHits, message.lineChars, keeper.bytesOf, keeper.chunk, keeper.counts, isFolds(message.fold) ? message.fold : []);
    parentPort?.postMessage({ type: 'result', id: message.id, hits });
  } else {
    parentPort?.postMessage({ type: 'error', message: 'unknown message' });
  }
});
