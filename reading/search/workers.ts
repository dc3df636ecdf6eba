// The search workers as the main thread sees them: started, asked, and ended, each without keeping the process alive
// longer than a search needs, and each failure of theirs (a module that does not load, a thread that dies, a reply
// that cannot be read) turned into a rejected search that finder.ts answers on the main thread instead.

import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import type { Hit } from './job.ts';
import { readReply, type ToWorker } from './messages.ts';
import { holdFor, holdUntilEnded } from '../threads.ts';

type SearchMessage = Extract<ToWorker, { kind: 'search' }>;

// worker_threads is loaded here, when a big folder first needs a worker: most runs never do. `module`: the worker's
// compiled module (worker.ts's); `cacheBytes`: what each worker keeps between steps. Synchronous, so that a search can
// start its worker and go on at once: the thread comes up beside it.
export function startWorkers(count: number, module: URL, cacheBytes: number): Worker[] {
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  return Array.from({ length: count }, () => {
    // execArgv empty: it needs none of the parent's flags.
    const worker = new Worker(module, {
      execArgv: [],
      // A small young generation: the worker allocates little besides its arena, and each MB here is RSS (2 MB against
      // 8: 5 MB less at the peak of a FIND run, its time the same within the noise, issue 30).
      resourceLimits: { maxYoungGenerationSizeMb: 2 },
      workerData: { cacheBytes },
    });
    worker.once('online', () => online.add(worker));
    // Heard for as long as the worker lives: an 'error' with no search out to hear it (a worker that fails while being
    // warmed) would otherwise end the whole process, and a search asked of a worker already gone would wait for ever.
    worker.on('error', () => gone.add(worker));
    worker.once('exit', () => gone.add(worker));
    worker.unref();
    return worker;
  });
}

// Every message to a worker goes through here: the compiler checks it against the contract in messages.ts.
export function post(worker: Worker, message: ToWorker): void {
  worker.postMessage(message);
}

// Ends a worker, keeping the process alive until it has (reading/threads.ts): an unref'd worker's exit does not, and a
// caller awaiting close() with nothing else to wait for would end with that promise pending (exit 13). It is waited
// for until it is up (Node 20's terminate() never settles for a worker that is not online yet), then terminated. A
// worker already gone is not waited for: the events it would be waited for have passed.
export async function endWorker(worker: Worker): Promise<void> {
  if (gone.has(worker)) return;
  holdUntilEnded(worker);
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

// The workers that have started, and those that have failed or exited.
const online = new WeakSet<Worker>();
const gone = new WeakSet<Worker>();

// Posts a search and waits for its hits; an error or exit of the worker, or a reply that is not a result, rejects.
export function ask(worker: Worker, message: SearchMessage): Promise<Hit[]> {
  if (gone.has(worker)) return Promise.reject(new Error('search worker exited'));
  return new Promise((resolve, reject) => {
    const onMessage = (raw: unknown) => {
      const reply = readReply(raw, message.id);
      if (reply.kind === 'earlier') return;
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
