// A search worker: holds the run's file paths, searches the chunks it claims (or read before) for a step's FIND texts,
// and keeps what it read (up to its memory budget) for the next step. Messages come in as unknown and are checked
// (messages.ts).

import { parentPort, workerData } from 'node:worker_threads';
import { isRecord } from '../../common/unknown.ts';
import { createKeeper } from './keeper.ts';
import { readToWorker, type FromWorker } from './messages.ts';
import { pathsOf, searchShared, type Share } from './plan.ts';

const budget: unknown = isRecord(workerData) ? workerData.cacheBytes : undefined;
const keeper = createKeeper(typeof budget === 'number' ? budget : 0);
let count = 0;
let pathAt: (index: number) => string = () => '';
let owner: Int8Array<ArrayBufferLike> = new Int8Array(1);

const reply = (message: FromWorker) => parentPort?.postMessage(message);

parentPort?.on('message', (raw: unknown) => {
  const message = readToWorker(raw);
  if (message === undefined) {
    reply({ kind: 'error', message: 'unknown message' });
  } else if (message.kind === 'assign') {
    count = message.rels.length;
    pathAt = pathsOf(message.root, { rels: message.rels, targets: new Map(message.targets) });
    owner = new Int8Array(message.owners);
    keeper.reset(message.root, count);
    // The files are given ahead of the first FIND: the memory to keep them in is made ready meanwhile.
    void keeper.prepare();
  } else {
    keeper.newSearch();
    const share: Share = { count, pathAt, plan: { owner, limits: new Int32Array(message.limits) }, me: message.me };
    reply({ kind: 'result', id: message.id, hits: searchShared(message.job, share, keeper) });
  }
});
