// FIND over the run's files: all of a step's texts in one pass, one hit per line as grep counts them, the first hits
// in walk order. On a big folder the main thread and a worker thread share the files chunk by chunk, whoever gets
// there first; each keeps what it read for the next step, within a memory budget.

import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { createKeeper, newLimits, newOwners, searchFiles, searchShared, type Hit, type Plan } from './search.ts';
import type { FindHit } from '../protocol/results.ts';
import { isRecord } from '../common/unknown.ts';

// Below this many files, a worker costs more than it saves.
export const PARALLEL_MIN_FILES = 2_000;
// What each searcher keeps between steps.
const KEEP_BYTES = 24 << 20;

// A file of the run, as the walk gave it: read at `target` when it is a symlink the walk accepted, else at root + rel.
export type SearchFile = { rel: string; target?: string | undefined };
// `folded`: found ignoring the case of ASCII letters.
export type FindOutcome = { text: string; hits: FindHit[]; cut: boolean; folded?: boolean };
// `fold[i]`: text i in either case of ASCII letters. `only`: search these of the files (by index) alone, on this thread.
export type FindOptions = { maxHits: number; lineChars: number; fold?: readonly boolean[]; only?: readonly number[] };

export type Finder = {
  find(files: readonly SearchFile[], texts: readonly string[], options: FindOptions): Promise<FindOutcome[]>;
  // Starts the worker ahead of the first FIND of a big folder and gives it the run's files, so that it is up and
  // ready by then: the model takes seconds to answer the first message.
  warm(files: readonly SearchFile[]): void;
  // Drops what was kept: the next FIND reads the files again.
  reset(): void;
  close(): Promise<void>;
};

// `root` is the project's real path: a file is read only while every folder on its way there is a real folder.
// The main thread searches too, from the first moment: a worker still starting joins when it is up, claiming the
// chunks nobody has reached yet (search.ts, searchShared).
export function createFinder(root: string, workerCount = Math.min(2, os.availableParallelism()) - 1): Finder {
  let workers: Promise<Worker[]> | undefined;
  let assigned: readonly SearchFile[] | undefined;
  // How many workers were given the assigned files.
  let told = 0;
  let pathAt: (index: number) => string = () => '';
  let owner: Int8Array<ArrayBufferLike> = new Int8Array(1);
  let nextId = 1;
  const keeper = createKeeper(KEEP_BYTES);

  const start = () => (workers ??= startWorkers(workerCount));

  // The run's files, once per run: their paths to every searcher, and who reads which chunk, shared.
  const assign = (files: readonly SearchFile[], helpers: Worker[]) => {
    pathAt = pathsOf(root, files);
    const owners = newOwners(files.length);
    owner = new Int8Array(owners);
    if (helpers.length > 0) {
      const rels = files.map((f) => f.rel);
      const targets = files.flatMap((f, i): Array<[number, string]> => (f.target === undefined ? [] : [[i, f.target]]));
      helpers.forEach((w) => w.postMessage({ type: 'assign', root, rels, targets, owners }));
    }
    told = helpers.length;
    keeper.reset(root, files.length);
    assigned = files;
  };

  const search = async (files: readonly SearchFile[], texts: string[], options: FindOptions): Promise<Hit[]> => {
    const helpers = files.length >= PARALLEL_MIN_FILES && workerCount > 0 ? await start() : [];
    if (assigned !== files || told < helpers.length) assign(files, helpers);
    const id = nextId++;
    const fold = options.fold ?? [];
    const limitsBuffer = newLimits(texts.length);
    const plan: Plan = { owner, limits: new Int32Array(limitsBuffer) };
    const pending = helpers.map((w, i) => ask(w, { type: 'search', id, me: i + 1, texts, maxHits: options.maxHits, lineChars: options.lineChars, fold, limits: limitsBuffer }, id));
    keeper.newSearch();
    const here = searchShared(files.length, pathAt, plan, 0, texts, options.maxHits, options.lineChars, keeper, fold);
    // A worker that has claimed no chunk by now holds nothing this search needs: every chunk up to the last one wanted
    // was searched here, so whatever it claims later is past what is wanted. Its answer is not waited for: a worker
    // still starting would otherwise hold up a search that is done (a common text's first hits, from the first files).
    const theirs = pending.map((answer, i) => {
      if (claimedAny(plan.owner, i + 1)) return answer;
      answer.catch(() => undefined);
      return [];
    });
    return [...here, ...(await Promise.all(theirs)).flat()];
  };

  const stop = async () => {
    const running = workers === undefined ? [] : await workers.catch(() => []);
    workers = undefined;
    assigned = undefined;
    keeper.drop();
    await Promise.all(running.map(endWorker));
  };

  return {
    async find(files, texts, options) {
      const list = [...texts];
      let found: Hit[];
      if (options.only !== undefined) {
        // A FIND limited to a folder or mask: its files in order, here.
        if (assigned !== files) assign(files, []);
        keeper.newSearch();
        const some = options.only.map((index) => ({ index, abs: pathAt(index) }));
        found = searchFiles(some, list, options.maxHits, options.lineChars, keeper, options.fold);
        return outcomes(files, list, found, options.maxHits);
      }
      try {
        found = await search(files, list, options);
      } catch {
        // A worker that failed to start or died: search here alone, afresh.
        await stop();
        workerCount = 0;
        assign(files, []);
        keeper.newSearch();
        found = searchShared(files.length, pathAt, { owner, limits: new Int32Array(newLimits(list.length)) }, 0, list, options.maxHits, options.lineChars, keeper, options.fold);
      }
      return outcomes(files, list, found, options.maxHits);
    },
    warm(files) {
      void keeper.prepare();
      if (workerCount <= 0) return;
      void start().then((helpers) => {
        if (assigned !== files || told < helpers.length) assign(files, helpers);
      }, () => undefined);
    },
    reset() {
      assigned = undefined;
    },
    close: stop,
  };
}

// Whether searcher `me` has claimed a chunk of the run.
function claimedAny(owner: Int8Array<ArrayBufferLike>, me: number): boolean {
  for (let c = 0; c < owner.length; c++) if (Atomics.load(owner, c) === me) return true;
  return false;
}

// Where file i of the run is read: its symlink's target, or the root joined with its relative path (made on demand).
export function pathsOf(root: string, files: readonly SearchFile[] | { rels: readonly string[]; targets: ReadonlyMap<number, string> }): (index: number) => string {
  const prefix = root + path.sep;
  const join = (rel: string) => prefix + (path.sep === '/' ? rel : rel.replaceAll('/', path.sep));
  if ('rels' in files) return (i) => files.targets.get(i) ?? join(files.rels[i] ?? '');
  return (i) => {
    const file = files[i];
    return file === undefined ? '' : (file.target ?? join(file.rel));
  };
}

// Per text, the first hits in walk order (file index, then line); one past the cap marks the cut.
function outcomes(files: readonly SearchFile[], texts: string[], found: Hit[], maxHits: number): FindOutcome[] {
  return texts.map((text, t) => {
    const mine = found.filter((h) => h[0] === t).sort((a, b) => a[1] - b[1] || a[2] - b[2]);
    const hits = mine.slice(0, maxHits).map((h): FindHit => ({ path: files[h[1]]?.rel ?? '?', line: h[2], text: h[3] }));
    return { text, hits, cut: mine.length > maxHits };
  });
}

// worker_threads is loaded here, when a big folder first needs a worker: most runs never do.
async function startWorkers(count: number): Promise<Worker[]> {
  const { Worker } = await import('node:worker_threads');
  return Array.from({ length: count }, () => {
    // The compiled worker beside this compiled file; execArgv empty: it needs none of the parent's flags.
    const worker = new Worker(new URL('./find-worker.js', import.meta.url), {
      execArgv: [],
      // A small young generation: the worker allocates little besides its arena, and each MB here is RSS.
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
      workerData: { cacheBytes: KEEP_BYTES },
    });
    worker.once('online', () => online.add(worker));
    worker.unref();
    return worker;
  });
}

// Ends a worker, keeping the process alive until it has: an unref'd worker's exit does not, and a caller awaiting
// close() with nothing else to wait for would end with that promise pending (exit 13). The worker stays ref'd from here
// on — a late answer to a search nobody waited for must not unref it (holdFor) — and is waited for until it is up
// (Node 20's terminate() never settles for a worker that is not online yet), then terminated.
async function endWorker(worker: Worker): Promise<void> {
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

// Posts a search and waits for its result; an error or exit of the worker rejects.
function ask(worker: Worker, message: unknown, id: number): Promise<Hit[]> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: unknown) => {
      if (!isRecord(reply)) return;
      if (reply.type === 'result' && reply.id === id) {
        cleanup();
        if (Array.isArray(reply.hits) && reply.hits.every(isHit)) resolve(reply.hits);
        else reject(new Error('search worker: a malformed result'));
      } else if (reply.type === 'error') {
        cleanup();
        reject(new Error(`search worker: ${String(reply.message)}`));
      }
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
    worker.postMessage(message);
  });
}


function isHit(value: unknown): value is Hit {
  return Array.isArray(value) && value.length === 4 && typeof value[0] === 'number' && typeof value[1] === 'number'
    && typeof value[2] === 'number' && typeof value[3] === 'string';
}
