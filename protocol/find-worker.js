// @ts-check
// A search worker: holds its share of the run's files, searches them for a step's FIND texts, and keeps what it read
// (up to its memory budget) for the next step. Messages come in as unknown and are checked.

import { parentPort, workerData } from 'node:worker_threads';
import { createKeeper, searchFiles } from './search.js';

/** @typedef {{ index: number, abs: string }} Assigned */

const keeper = createKeeper(typeof workerData?.cacheBytes === 'number' ? workerData.cacheBytes : 0);
/** @type {Assigned[]} */
let files = [];

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isRecord(value) {
  return typeof value === 'object' && value !== null;
}

/**
 * @param {unknown} value
 * @returns {value is Assigned[]}
 */
function isAssigned(value) {
  return Array.isArray(value) && value.every((f) => isRecord(f) && typeof f.index === 'number' && typeof f.abs === 'string');
}

/**
 * @param {unknown} value
 * @returns {value is string[]}
 */
function isTexts(value) {
  return Array.isArray(value) && value.every((t) => typeof t === 'string');
}

parentPort?.on('message', (/** @type {unknown} */ message) => {
  if (!isRecord(message)) return;
  if (message.type === 'assign' && isAssigned(message.files) && typeof message.root === 'string') {
    files = message.files;
    keeper.reset(message.root);
  } else if (message.type === 'search' && typeof message.id === 'number' && isTexts(message.texts)
    && typeof message.maxHits === 'number' && typeof message.lineChars === 'number') {
    keeper.newSearch();
    const hits = searchFiles(files, message.texts, message.maxHits, message.lineChars, keeper.bytesOf, keeper.chunk, keeper.counts);
    parentPort?.postMessage({ type: 'result', id: message.id, hits });
  } else {
    parentPort?.postMessage({ type: 'error', message: 'unknown message' });
  }
});
