// A search worker: holds the run's file paths (shared with the main thread), reads ahead the chunks it claims while
// the model thinks (ahead.ts), searches the chunks it claims (or read before) for a step's FIND texts, and keeps what it
// read (up to its memory budget) for the next step. Messages come in as unknown and are checked (messages.ts).

import { parentPort, workerData } from 'node:worker_threads';
import { isRecord } from '../../common/unknown.ts';
import { readAhead, type ReadAhead } from './ahead.ts';
import { createKeeper } from './keeper.ts';
import { readToWorker, type FromWorker } from './messages.ts';
import { searchShared, type Share } from './plan.ts';
import { poolFrom, poolPlaces } from './places.ts';

const budget: unknown = isRecord(workerData) ? workerData.cacheBytes : undefined;
const keeper = createKeeper(typeof budget === 'number' ? budget : 0);
let count = 0;
let owner: Int8Array<ArrayBufferLike> = new Int8Array(1);
let ahead: ReadAhead | undefined;

const reply = (message: FromWorker) => parentPort?.postMessage(message);

parentPort?.on('message', (raw: unknown) => {
  const message = readToWorker(raw);
  if (message === undefined) {
    reply({ kind: 'error', message: 'unknown message' });
  } else if (message.kind === 'assign') {
    const pool = poolFrom(message.pool);
    count = pool.files;
    owner = new Int8Array(message.owners);
    ahead?.stop();
    keeper.reset(poolPlaces(pool));
    // The files are given ahead of the first FIND: the memory to keep them in is made ready meanwhile, and then they
    // are read ahead.
    ahead = readAhead(keeper, { count, owner, me: message.me }, new Int32Array(message.hold));
  } else if (message.kind === 'resume') {
    ahead?.resume();
  } else {
    keeper.newSearch();
    const share: Share = { count, plan: { owner, limits: new Int32Array(message.limits) }, me: message.me };
    reply({ kind: 'result', id: message.id, hits: searchShared(message.job, share, keeper) });
  }
});
