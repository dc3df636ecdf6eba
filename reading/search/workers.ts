// The search workers as the main thread sees them: started, asked, and ended, each without keeping the process alive
// longer than a search needs; a failure of theirs rejects the search, which finder.ts then answers on the main thread.

import type { Worker } from 'node:worker_threads';
import type { Hit } from './job.ts';
import { readReply, type ToWorker } from './messages.ts';

type SearchMessage = Extract<ToWorker, { kind: 'search' }>;

// worker_threads is loaded here, when a big folder first needs a worker: most runs never do. `module`: the worker's
// compiled module (worker.ts's); `cacheBytes`: what each worker keeps between steps.
export async function startWorkers(count: number, module: URL, cacheBytes: number): Promise<Worker[]> {
  const { Worker } = await import('node:worker_threads');
  return Array.from({ length: count }, () => {
    // execArgv empty: it needs none of the parent's flags.
    const worker = new Worker(module, {
      execArgv: [],
      // A small young generation: the worker allocates little besides its arena, and each MB here is RSS.
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
      workerData: { cacheBytes },
    });
    worker.once('online', () => online.add(worker));
    worker.unref();
    return worker;
  });
}

export function post(worker: Worker, message: ToWorker): void {
  worker.postMessage(message);
}

// Ends a worker, keeping the process alive until it has: an unref'd worker's exit does not, and a caller awaiting
// close() with nothing else to wait for would end with that promise pending (exit 13). The worker stays ref'd from here
// on — a late answer to a search nobody waited for must not unref it (holdFor) — and is waited for until it is up
// (Node 20's terminate() never settles for a worker that is not online yet), then terminated.
export async function endWorker(worker: Worker): Promise<void> {
  ending.add(worker);
  worker.ref();
  if (!online.has(worker)) {
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      worker.once('online', done);
      worker.once('exit', done);
      worker.once('error', done);
    });
  }
  await worker.terminate();
}

// The workers that have started, and those being ended: see endWorker.
const online = new WeakSet<Worker>();
const ending = new WeakSet<Worker>();

// Searches out per worker. The worker keeps the process alive while any is: ref() and unref() are a switch, not a
// count, and a search whose answer was not waited for may still be out when the next one is posted.
const searchesOut = new WeakMap<Worker, number>();

function holdFor(worker: Worker, change: 1 | -1): void {
  const out = (searchesOut.get(worker) ?? 0) + change;
  searchesOut.set(worker, out);
  if (out > 0 || ending.has(worker)) worker.ref();
  else worker.unref();
}

// Posts a search and waits for its hits; an error or exit of the worker, or an error or malformed result, rejects.
export function ask(worker: Worker, message: SearchMessage): Promise<Hit[]> {
  return new Promise((resolve, reject) => {
    const onMessage = (raw: unknown) => {
      const reply = readReply(raw, message.id);
      if (reply.kind === 'other') return;
      cleanup();
      if (reply.kind === 'hits') resolve(reply.hits);
      else reject(new Error(`search worker: ${reply.message}`));
    };
    const onError = (error: unknown) => {
      cleanup();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onExit = () => onError(new Error('search worker exited'));
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      holdFor(worker, -1);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    holdFor(worker, 1);
    post(worker, message);
  });
}
