// FIND over the run's files: all of a step's texts in one pass, one hit per line as grep counts them, the first hits
// in walk order. On a big folder the main thread and a worker thread share the files chunk by chunk, whoever gets
// there first; each keeps what it read for the next step, within a memory budget, and reads ahead while the model
// thinks (ahead.ts).

import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { FindHit } from '../../protocol/results.ts';
import { readAhead, type Hold, type ReadAhead } from './ahead.ts';
import { searchFiles, warmUp, type Hit, type SearchJob } from './job.ts';
import { createKeeper } from './keeper.ts';
import {
  claimFirst,
  closeOwners,
  holdsWanted,
  newLimits,
  newOwners,
  searchShared,
  type Plan,
  type SearchFile,
} from './plan.ts';
import { placesOf, poolOf } from './places.ts';
import { ask, endWorker, post, startWorkers } from './workers.ts';

// The run's files as the caller hands them in (execute.ts, from the walk).
export type { SearchFile } from './plan.ts';

// Below this many files, a worker costs more than it saves.
export const PARALLEL_MIN_FILES = 2_000;
// What each searcher keeps between steps.
const KEEP_BYTES = 24 << 20;

// `folded`: found ignoring the case of ASCII letters.
export type FindOutcome = { text: string; hits: FindHit[]; cut: boolean; folded?: boolean };
// `fold[i]`: text i in either case of ASCII letters; a text asked both as it is and folded has the folded search
// stopped once the exact one has a hit (the folded hits are for a text found nowhere as it is). `only`: search these of
// the files (by index) alone, on this thread.
export type FindOptions = { maxHits: number; lineChars: number; fold?: readonly boolean[]; only?: readonly number[] };
// `workers`: how many worker threads help on a big folder (default: one when the machine has two cores or more; 0
// searches on the main thread alone). `workerModule`: the worker's compiled module (default: worker.js beside this
// file); the tests name another to make a worker fail.
export type FinderOptions = { workers?: number; workerModule?: URL };

export type Finder = {
  find(files: readonly SearchFile[], texts: readonly string[], options: FindOptions): Promise<FindOutcome[]>;
  // Starts the worker ahead of the first FIND of a big folder and gives it the run's files, so that it is up and
  // ready by then: the model takes seconds to answer the first message. Both threads then read ahead (ahead.ts).
  warm(files: readonly SearchFile[]): void;
  // A step is being answered, or the first message waits for the map of the code (hold), or that is done (release):
  // reading ahead pauses meanwhile, on every thread, and a warm-up not begun waits, so that they take no core from
  // it. Holds nest: reading ahead goes on once each hold is released.
  hold(): void;
  release(): void;
  // Drops what was kept: the next FIND reads the files again.
  reset(): void;
  close(): Promise<void>;
};

// `root` is the project's real path: a file is read only while every folder on its way there is a real folder.
// The main thread searches from the first moment; a worker not yet given the run's files is started and given them
// once the main thread's first chunk has not been enough (a common text's first hits need no worker), and claims the
// chunks nobody has reached yet (plan.ts, searchShared).
export function createFinder(root: string, options: FinderOptions = {}): Finder {
  let workerCount = options.workers ?? Math.min(2, os.availableParallelism()) - 1;
  const workerModule = options.workerModule ?? new URL('./worker.js', import.meta.url);
  let workers: Worker[] | undefined;
  // The files the main thread searches, and those the workers were given (both by identity: a run's list).
  let assigned: readonly SearchFile[] | undefined;
  let told: readonly SearchFile[] | undefined;
  let owners: SharedArrayBuffer = newOwners(0);
  let nextId = 1;
  const keeper = createKeeper(KEEP_BYTES);
  // This thread's read ahead of the run's files, and the count of steps under way, shared with the workers.
  let ahead: ReadAhead | undefined;
  const holds = new SharedArrayBuffer(4);
  const held: Hold = new Int32Array(holds);
  // The worker's start and its files' paths, and this thread's read ahead, put off while held (warm()).
  let afterHold: (() => void) | undefined;

  // The run's files, once per run, on this thread: who reads which chunk, shared with the workers when they join.
  const own = (files: readonly SearchFile[]) => {
    if (assigned === files) return;
    ahead?.stop();
    ahead = undefined;
    owners = newOwners(files.length);
    keeper.reset(placesOf(root, files));
    assigned = files;
    told = undefined;
  };

  // The workers for a big folder, started when first needed and given the run's files once: their paths in shared
  // memory (places.ts), and the chunks' owners.
  const helpers = (files: readonly SearchFile[]): Worker[] => {
    if (workerCount <= 0 || files.length < PARALLEL_MIN_FILES) return [];
    workers ??= startWorkers(workerCount, workerModule, KEEP_BYTES);
    if (told !== files) {
      const pool = poolOf(root, files);
      workers.forEach((w, i) => {
        post(w, { kind: 'assign', pool: pool.shared, owners, me: i + 1, hold: holds });
      });
      told = files;
    }
    return workers;
  };

  const search = async (files: readonly SearchFile[], job: SearchJob): Promise<Hit[]> => {
    own(files);
    const id = nextId++;
    const limits = newLimits(job.texts.length);
    const plan: Plan = { owner: new Int8Array(owners), limits: new Int32Array(limits) };
    const pending: Array<Promise<Hit[]>> = [];
    const join = () => {
      if (pending.length > 0) return;
      helpers(files).forEach((w, i) => {
        pending.push(ask(w, { kind: 'search', id, me: i + 1, job, limits }));
      });
    };
    // The first chunk is this thread's: the first hits of a common text are then its own, and it need not wait for a
    // worker that starts late or runs slowly on a busy machine. Workers already given the run's files (while the model
    // read the last message) search beside it from the start.
    claimFirst(plan, 0);
    if (told === files) join();
    keeper.newSearch();
    const here = searchShared(job, { count: files.length, plan, me: 0 }, keeper, join);
    // A worker that holds no chunk up to the last one a text wants holds nothing this search needs: every such chunk
    // was searched here, so whatever it claims later is past what is wanted. Its answer is not waited for: a worker
    // still starting, or slow on a busy machine, would otherwise hold up a search that is done (a common text's first
    // hits, from the first files).
    const theirs = pending.map((answer, i) => {
      if (holdsWanted(plan, i + 1)) return answer;
      answer.catch(() => undefined);
      return [];
    });
    return [...here, ...(await Promise.all(theirs)).flat()];
  };

  const stop = async () => {
    const running = workers ?? [];
    workers = undefined;
    told = undefined;
    afterHold = undefined;
    ahead?.stop();
    ahead = undefined;
    keeper.drop();
    await Promise.all(running.map(endWorker));
  };

  return {
    async find(files, texts, options) {
      const job: SearchJob = {
        texts: [...texts],
        maxHits: options.maxHits,
        lineChars: options.lineChars,
        fold: options.fold ?? [],
      };
      if (options.only !== undefined) {
        // A FIND limited to a folder or mask: its files in order, here.
        own(files);
        keeper.newSearch();
        return outcomes(files, job, searchFiles(options.only, job, keeper));
      }
      let found: Hit[];
      try {
        found = await search(files, job);
      } catch {
        // A worker that failed to start or died: search here alone, afresh.
        await stop();
        workerCount = 0;
        assigned = undefined;
        found = await search(files, job);
      }
      return outcomes(files, job, found);
    },
    warm(files) {
      own(files);
      void keeper.prepare();
      // Its own task: the worker's start and its files' paths (tens of milliseconds on a big folder, hundreds on
      // 200,000 files) come after whatever is waiting, and wait while held: a first message waiting for the map of
      // the code (mapper.ts) waited for them too.
      const start = () => {
        if (assigned !== files) return;
        if (Atomics.load(held, 0) > 0) {
          afterHold = start;
          return;
        }
        warmUp(keeper);
        // From the first chunk on (the one claimFirst gives this thread: a common text's first hits), read while the
        // model reads the message; the worker, once up, claims the chunks after the ones this thread has reached.
        ahead ??= readAhead(keeper, { count: files.length, owner: new Int8Array(owners), me: 0 }, held);
        setImmediate(() => {
          if (assigned === files) helpers(files);
        });
      };
      setImmediate(start);
    },
    hold() {
      Atomics.add(held, 0, 1);
    },
    release() {
      if (Atomics.load(held, 0) <= 0 || Atomics.sub(held, 0, 1) !== 1) return;
      ahead?.resume();
      for (const w of workers ?? []) post(w, { kind: 'resume' });
      const then = afterHold;
      afterHold = undefined;
      if (then !== undefined) setImmediate(then);
    },
    reset() {
      ahead?.stop();
      ahead = undefined;
      afterHold = undefined;
      // The workers' read ahead of this run's files claims nothing more.
      closeOwners(owners);
      assigned = undefined;
      told = undefined;
    },
    close: stop,
  };
}

// Per text, the first hits in walk order (file index, then line); one past the cap marks the cut.
function outcomes(files: readonly SearchFile[], job: SearchJob, found: Hit[]): FindOutcome[] {
  return job.texts.map((text, t) => {
    const mine = found.filter((h) => h[0] === t).sort((a, b) => a[1] - b[1] || a[2] - b[2]);
    const hits = mine
      .slice(0, job.maxHits)
      .map((h): FindHit => ({ path: files[h[1]]?.rel ?? '?', line: h[2], text: h[3] }));
    return { text, hits, cut: mine.length > job.maxHits };
  });
}
