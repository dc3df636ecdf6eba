// FIND over the run's files: all of a step's texts in one pass, one hit per line as grep counts them, the first hits
// in walk order. On a big folder the main thread and a worker thread share the files chunk by chunk, whoever gets
// there first; each keeps what it read for the next step, within a memory budget.

import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { FindHit } from '../../protocol/results.ts';
import { searchFiles, type Hit, type SearchJob } from './job.ts';
import { createKeeper } from './keeper.ts';
import { claimedAny, newLimits, newOwners, pathsOf, searchShared, type Plan, type SearchFile } from './plan.ts';
import { ask, endWorker, post, startWorkers } from './workers.ts';

// The run's files as the caller hands them in (execute.ts, from the walk).
export type { SearchFile } from './plan.ts';

// Below this many files, a worker costs more than it saves.
export const PARALLEL_MIN_FILES = 2_000;
// What each searcher keeps between steps.
const KEEP_BYTES = 24 << 20;

// `folded`: found ignoring the case of ASCII letters.
export type FindOutcome = { text: string; hits: FindHit[]; cut: boolean; folded?: boolean };
// `fold[i]`: text i in either case of ASCII letters. `only`: search these of the files (by index) alone, on this thread.
export type FindOptions = { maxHits: number; lineChars: number; fold?: readonly boolean[]; only?: readonly number[] };
// `workers`: how many worker threads help on a big folder (default: one when the machine has two cores or more; 0
// searches on the main thread alone). `workerModule`: the worker's compiled module (default: worker.js beside this
// file); the tests name another to make a worker fail.
export type FinderOptions = { workers?: number; workerModule?: URL };

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
// chunks nobody has reached yet (plan.ts, searchShared).
export function createFinder(root: string, options: FinderOptions = {}): Finder {
  let workerCount = options.workers ?? Math.min(2, os.availableParallelism()) - 1;
  const workerModule = options.workerModule ?? new URL('./worker.js', import.meta.url);
  let workers: Promise<Worker[]> | undefined;
  let assigned: readonly SearchFile[] | undefined;
  // How many workers were given the assigned files.
  let told = 0;
  let pathAt: (index: number) => string = () => '';
  let owner: Int8Array<ArrayBufferLike> = new Int8Array(1);
  let nextId = 1;
  const keeper = createKeeper(KEEP_BYTES);

  const start = () => (workers ??= startWorkers(workerCount, workerModule, KEEP_BYTES));

  // The run's files, once per run: their paths to every searcher, and who reads which chunk, shared.
  const assign = (files: readonly SearchFile[], helpers: Worker[]) => {
    pathAt = pathsOf(root, files);
    const owners = newOwners(files.length);
    owner = new Int8Array(owners);
    if (helpers.length > 0) {
      const rels = files.map((f) => f.rel);
      const targets = files.flatMap((f, i): Array<[number, string]> => (f.target === undefined ? [] : [[i, f.target]]));
      for (const w of helpers) post(w, { kind: 'assign', root, rels, targets, owners });
    }
    told = helpers.length;
    keeper.reset(root, files.length);
    assigned = files;
  };

  // The main thread alone: the search when there is no worker, and the answer when a worker failed.
  const searchHere = (files: readonly SearchFile[], job: SearchJob): Hit[] => {
    keeper.newSearch();
    return searchShared(
      job,
      { count: files.length, pathAt, plan: { owner, limits: new Int32Array(newLimits(job.texts.length)) }, me: 0 },
      keeper,
    );
  };

  const search = async (files: readonly SearchFile[], job: SearchJob): Promise<Hit[]> => {
    const helpers = files.length >= PARALLEL_MIN_FILES && workerCount > 0 ? await start() : [];
    if (assigned !== files || told < helpers.length) assign(files, helpers);
    if (helpers.length === 0) return searchHere(files, job);
    const id = nextId++;
    const limits = newLimits(job.texts.length);
    const plan: Plan = { owner, limits: new Int32Array(limits) };
    const pending = helpers.map((w, i) => ask(w, { kind: 'search', id, me: i + 1, job, limits }));
    keeper.newSearch();
    const here = searchShared(job, { count: files.length, pathAt, plan, me: 0 }, keeper);
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
      const job: SearchJob = {
        texts: [...texts],
        maxHits: options.maxHits,
        lineChars: options.lineChars,
        fold: options.fold ?? [],
      };
      let found: Hit[];
      if (options.only !== undefined) {
        // A FIND limited to a folder or mask: its files in order, here.
        if (assigned !== files) assign(files, []);
        keeper.newSearch();
        const some = options.only.map((index) => ({ index, abs: pathAt(index) }));
        found = searchFiles(some, job, keeper);
        return outcomes(files, job, found);
      }
      try {
        found = await search(files, job);
      } catch {
        // A worker that failed to start or died: search here alone, afresh.
        await stop();
        workerCount = 0;
        assign(files, []);
        found = searchHere(files, job);
      }
      return outcomes(files, job, found);
    },
    warm(files) {
      void keeper.prepare();
      if (workerCount <= 0) return;
      void start().then(
        (helpers) => {
          if (assigned !== files || told < helpers.length) assign(files, helpers);
        },
        () => undefined,
      );
    },
    reset() {
      assigned = undefined;
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
