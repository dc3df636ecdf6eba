// The project folder as the loop reads it (protocol/contract.ts's Reader): answers one step's requests inside the
// folder, read-only and within the limits, one answerer per request kind (reading/answer/); the tree for the first
// message; a file's text for an EDIT's check. The folder is walked once per run, and FIND keeps what it read between
// steps.

import path from 'node:path';
import { isRequestKind, type Request, type RequestKind, type RequestOf } from '../protocol/requests.ts';
import type { Result } from '../protocol/results.ts';
import { defaultLimits, type FileText, type Limits, type Reader } from '../protocol/contract.ts';
import { createSandbox, resolvePath, type Sandbox, type SandboxOptions } from './sandbox.ts';
import { startWalk, type Walk, type WalkEntry, type Walker } from './walk.ts';
import { createFinder, PARALLEL_MIN_FILES, type SearchFile } from './search/finder.ts';
import { forChange, readText, unfitReason } from './text.ts';
import { buildTree } from './tree.ts';
import { createPathIndex, type PathIndex } from './similar.ts';
import type { Answerer, Folder, Step } from './answer/step.ts';
import { answerNeeds } from './answer/need.ts';
import { answerLists } from './answer/list.ts';
import { answerFinds, orSections, placeHits, unplaced, wholeDefinitions } from './answer/find.ts';
import { answerOutlines } from './answer/outline.ts';
import { createParsers, type Parsers, type ParsersOptions } from './outline/parsers.ts';
import { createMapper } from './map/mapper.ts';
import type { MapStore } from './map/cache.ts';
import type { WalkStore } from './walk-cache.ts';
import { isBuiltFolder } from './built.ts';
import { TEST_FOLDER, TEST_NAME } from '../common/kinds-of-files.ts';

// The project folder as the loop reads it (protocol/contract.ts's Reader), with the sandbox it reads through.
export type Executor = Reader & {
  box: Sandbox;
  // The walk of the folder as the current run sees it (made now if it is not yet), and which run's it is: a number that
  // changes at each reset(), so that what is built on a walk (the pult's file tree) knows when to build again.
  walked(): Walk;
  generation(): number;
  // The walk when it is done, undefined while it goes on in the background (started now when there is none); then
  // `then` is called once it is done, unless the executor closes first.
  walkedSoFar(then?: () => void): Walk | undefined;
  close(): Promise<void>;
};

// `onLargeFolder`: told once when the walk passes `largeFolder` entries (LARGE_FOLDER unless a test says), so a wrong
// folder is noticed early.
export type ExecutorOptions = SandboxOptions & {
  limits?: Partial<Limits>;
  onLargeFolder?: (entries: number) => void;
  largeFolder?: number;
  // The parser's worker and its times (reading/outline/parsers.ts); the tests name a worker that fails.
  parsers?: ParsersOptions;
  // Where the map of the code keeps what it read between runs, for the folder's real path (state/map-cache.ts); none:
  // every run reads its files again.
  mapStore?: (root: string) => MapStore;
  // Where the walk keeps what the next run's walk of the folder starts from (saved/walk-cache.ts); none: every run
  // reads the whole folder.
  walkStore?: (root: string) => WalkStore;
};

export function createExecutor(root: string, options: ExecutorOptions = {}): Executor {
  const box = createSandbox(root, options);
  const limits = { ...defaultLimits, ...options.limits };
  const finder = createFinder(box.root);
  let walker: Walker | undefined;
  let walked: Walk | undefined;
  let files: WalkEntry[] | undefined;
  let searchable: SearchFile[] | undefined;
  let ranking: Ranking | undefined;
  let index: PathIndex | undefined;
  let parsers: Parsers | undefined;
  let closed = false;
  // Told once the walk going on is done (walkedSoFar's `then`).
  let told: Array<() => void> = [];
  let answering = false;
  // Each run's walk has its number: a slice or a warm-up of an earlier run stops when it sees a later one.
  let run = 0;
  const walkStore = options.walkStore?.(box.root);
  // What a kept walk must have been made under, besides what the walk adds (the rules' case, the code): the folder,
  // deepwork's own places and the secret names, which decide what the walk leaves out.
  const walkKey = JSON.stringify([box.root, box.guarded.map((g) => g.real), options.secretNames ?? []]);
  const start = () =>
    (walker ??= startWalk(box, {
      onLarge: options.onLargeFolder,
      large: options.largeFolder,
      kept: walkStore === undefined ? undefined : { bytes: loaded(walkStore), key: walkKey },
    }));
  // The finished walk not yet kept: it is written while the model reads the first message (waiting()), or a while
  // after the walk when no message goes out (the pult's tree), or as the executor closes.
  let unkept: Walker | undefined;
  let keepTimer: NodeJS.Timeout | undefined;
  const keep = () => {
    clearTimeout(keepTimer);
    keepTimer = undefined;
    const done = unkept;
    unkept = undefined;
    const bytes = done?.keep();
    if (bytes === undefined || walkStore === undefined) return;
    try {
      walkStore.save(bytes);
    } catch {
      // The kept walk is a help: a state folder that cannot be written costs the next run a whole walk, not this run.
    }
  };
  // The stats it needs a slice at a time, as the walk went, then the rest at once; never while a step is answered.
  // The slices are not unref'd: an unref'd immediate waits for other I/O to wake the loop (a pult, idle, never ran
  // the next); close() ends them.
  const keepLater = () => {
    if (closed || unkept === undefined) return;
    if (answering) {
      keepTimer = setTimeout(keepLater, KEEP_AFTER_MS);
      keepTimer.unref();
    } else if (!unkept.prepare(WALK_SLICE_MS)) setImmediate(keepLater);
    else keep();
  };
  const finish = (): Walk => {
    if (walked === undefined) {
      const done = start();
      walked = done.finish();
      if (walkStore !== undefined) {
        unkept = done;
        clearTimeout(keepTimer);
        keepTimer = setTimeout(keepLater, KEEP_AFTER_MS);
        keepTimer.unref();
      }
      whenWalked(run);
      const waiting = told;
      told = [];
      for (const then of waiting) then();
    }
    return walked;
  };
  // The walk goes on a slice at a time while this thread has nothing else to do: beside the question to the bridge
  // for the model's window, which the run asks first.
  const slice = (of: number) => {
    if (closed || of !== run || walked !== undefined) return;
    if (!start().step(WALK_SLICE_MS)) setImmediate(() => slice(of));
    else finish();
  };
  // A folder big enough for a search worker gets it ready, a step at a time (each a task of its own, so that the
  // first message goes out and the model's answer is taken in between): the files in FIND's order, their paths in
  // shared memory, the worker started and given them. A FIND that comes first does what is left itself.
  const whenWalked = (of: number) => {
    let count = 0;
    for (const e of walked?.entries ?? []) if (e.kind === 'file' && ++count >= PARALLEL_MIN_FILES) break;
    if (count < PARALLEL_MIN_FILES) return;
    // The files in FIND's order a slice at a time: all at once took 55-75 ms on 200,000 files, which a LIST asked at
    // once after the first message waited for (issue 30); a FIND that comes first ranks what is left itself.
    const rank = () => {
      if (closed || of !== run) return;
      if (searchable === undefined && !rankingOf().step(ORDER_SLICE_MS)) {
        setImmediate(rank);
        return;
      }
      const ready = folder.searchable();
      setImmediate(() => {
        if (!closed && of === run && searchable === ready) finder.warm(ready);
      });
    };
    setImmediate(rank);
  };
  const rankingOf = () => (ranking ??= sourceFirst(box.root, folder.entries()));
  const folder: Folder = {
    entries: () => finish().entries,
    files: () => (files ??= folder.entries().filter((e) => e.kind === 'file')),
    searchable: () => (searchable ??= rankingOf().finish()),
    searchableHead: (count) => (searchable === undefined ? rankingOf().head(count) : undefined),
    paths: () => (index ??= createPathIndex(folder.files().map((e) => e.rel))),
    finder,
    parsers: () => (parsers ??= createParsers(options.parsers)),
  };
  const mapper = createMapper(box, folder, options.mapStore?.(box.root));
  return {
    box,
    limits,
    answer: async (requests, earlier) => {
      // The map's work in the background (its parses, its ranking), FIND's read ahead and the keeping of the walk wait
      // while a step is answered: they take nothing from it.
      mapper.stepStarted();
      finder.hold();
      answering = true;
      let placed: Result[] = [];
      try {
        const answered = await answer(box, limits, folder, requests, earlier ?? new Map());
        placed = wholeDefinitions(box, placeHits(answered, orSections(box, mapper.definitions)), limits.findLineChars);
        return placed;
      } finally {
        answering = false;
        finder.release();
        mapper.stepEnded();
        // What the map could not place is parsed while the model reads, for the steps after.
        mapper.learn(unplaced(placed)).catch(() => {});
      }
    },
    text: (wanted) => textOf(box, wanted),
    tree: (maxChars) =>
      buildTree(
        folder.entries(),
        path.basename(box.root),
        {
          maxChars: Math.min(maxChars ?? limits.treeChars, limits.treeChars),
          maxEntriesPerFolder: limits.folderEntries,
          root: box.root,
        },
        finish().notes,
      ),
    walked: finish,
    generation: () => run,
    walkedSoFar: (then) => {
      if (walked === undefined && walker === undefined) {
        const of = run;
        start();
        setImmediate(() => slice(of));
      }
      if (walked === undefined && then !== undefined && !closed) told.push(then);
      return walked;
    },
    reset: () => {
      run++;
      walker = undefined;
      walked = undefined;
      files = undefined;
      searchable = undefined;
      ranking = undefined;
      index = undefined;
      finder.reset();
      const of = run;
      setImmediate(() => slice(of));
    },
    waiting: () => {
      if (unkept === undefined || closed) return;
      clearTimeout(keepTimer);
      keepTimer = undefined;
      setImmediate(keepLater);
    },
    map: (focus) => {
      try {
        return mapper.map(focus);
      } catch {
        return undefined;
      }
    },
    close: async () => {
      closed = true;
      told = [];
      mapper.close();
      await Promise.all([finder.close(), parsers?.close()]);
      mapper.flush();
      keep();
    },
  };
}

// How long one slice of a walk going on in the background takes, in ms: long enough that slicing costs nothing
// measurable, short enough that an answer from the bridge waits at most that long.
const WALK_SLICE_MS = 4;

// The same for putting the files in FIND's order after the first message has gone out, shorter: a model that answers
// at once finds a slice under way, and its step waits for it. With 1 ms slices instead of 4, a step after an instant
// reply took 0.81-0.89 of the time on the corpus, the Linux source and 200,000 files (FIND and LIST, issue 30).
const ORDER_SLICE_MS = 1;

// How long after the walk it is kept for the next run when no message goes out meanwhile, and how long a keep waits
// for a step being answered. Kept while the first message is still being made, it held it back: on the Linux source,
// the first message of a run with no kept walk came 1.89x as late (the map's choice and ranking there take 300-700 ms
// after the walk, and keeping a walk's 83,000 entries about 100 ms at once).
const KEEP_AFTER_MS = 2_000;

// The kept walk's bytes; a store that cannot be read is as good as none.
function loaded(store: WalkStore): Uint8Array | undefined {
  try {
    return store.load();
  } catch {
    return undefined;
  }
}

// The files in the order FIND searches them, which is the order of its hits: code first, then tests (common/
// kinds-of-files.ts), then what hidden folders hold (`.github/` workflows, editor and tool settings), then prose
// (READMEs, changelogs, docs), then what is generated (lock files, minified and map files, whatever a folder of built
// output holds: reading/built.ts), each in walk order. A FIND of a common word shows where the code uses it before
// what its tests, its CI, a changelog or its built copy say: `__tests__/`, `.github/` and `dist/` sort before `src/`,
// and a hundred hits in them hid the source's (on flask, a FIND of `path` showed ten lines of workflows).
// Ranked in slices (`step`, true once done) or at once (`finish`); `head(n)`: the first n files of that order, ranking
// only as far as they are known (n code files), or undefined when they are not (fewer code files) or it is done.
type Ranking = { step(ms: number): boolean; finish(): WalkEntry[]; head(count: number): WalkEntry[] | undefined };

// Given the walk's entries, it passes the folders over: a list of the files made first took 50-60 ms of 200,000 files in
// one task, right as a reply came (issue 30). A file is ranked by its name and whether a folder above it is docs, which
// is told once per folder (a folder comes before what it holds): the expressions run over whole paths took a fresh
// process 15-20 ms of the npm corpus's 29,000, which a FIND asked at once waited for.
function sourceFirst(root: string, entries: readonly WalkEntry[]): Ranking {
  const code: WalkEntry[] = [];
  const tests: WalkEntry[] = [];
  const hidden: WalkEntry[] = [];
  const prose: WalkEntry[] = [];
  const generated: WalkEntry[] = [];
  const ranked = [code, tests, hidden, prose, generated];
  // Per folder: IN_DOCS when it is named doc or docs or lies inside one, IN_BUILT the same for one of built output,
  // IN_TESTS for one of tests, IN_HIDDEN for a hidden one (its name starts with a dot).
  const inside = new Uint8Array(entries.length);
  let next = 0;
  const rank = (until: number, codeFiles = Number.POSITIVE_INFINITY): boolean => {
    while (next < entries.length && code.length < codeFiles) {
      const at = next++;
      const entry = entries[at];
      if (entry !== undefined) {
        const above = entry.parent >= 0 && entry.parent < at ? (inside[entry.parent] ?? 0) : 0;
        if (entry.kind === 'folder')
          inside[at] =
            above |
            (DOCS.test(entry.name) ? IN_DOCS : 0) |
            (TEST_FOLDER.test(entry.name) ? IN_TESTS : 0) |
            (entry.name.charCodeAt(0) === 46 /* . */ ? IN_HIDDEN : 0) |
            (isBuiltFolder(root, entry) ? IN_BUILT : 0);
        else ranked[rankOf(entry.name, above)]?.push(entry);
      }
      if (next % 256 === 0 && performance.now() >= until) break;
    }
    return next >= entries.length;
  };
  let done: WalkEntry[] | undefined;
  return {
    step: (ms) => rank(performance.now() + ms),
    head: (count) => {
      if (done !== undefined) return undefined;
      rank(Number.POSITIVE_INFINITY, count);
      return code.length >= count ? code.slice(0, count) : undefined;
    },
    finish: () => {
      if (done === undefined) {
        rank(Number.POSITIVE_INFINITY);
        // Spread, not flat(): flat() took 35-60 ms of 200,000 files here, in a task that a LIST answered at once waited
        // for (issue 30); spread copies them in about 4.
        done = [...code, ...tests, ...hidden, ...prose, ...generated];
      }
      return done;
    },
  };
}

// Prose: READMEs, changelogs, licences and the like by their names, and whatever lies in a folder of docs. A README
// without an extension too: click's six `examples/*/README` came before its source in a FIND of `--help`.
const PROSE =
  /\.(md|markdown|mdx|rst|txt|adoc|textile|org)$|^(readme|history|changelog|changes|news|authors|contributors|license|licence|copying|notice)/i;
const DOCS = /^docs?$/i;
const IN_DOCS = 1;
const IN_BUILT = 2;
const IN_TESTS = 4;
const IN_HIDDEN = 8;
const GENERATED =
  /^(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|cargo\.lock|poetry\.lock|composer\.lock|gemfile\.lock|go\.sum)$|\.(min\.js|min\.css|map|snap)$/i;

// A file's place by its name and the folders it lies in (IN_DOCS, IN_BUILT, IN_TESTS, IN_HIDDEN): code 0, tests 1,
// hidden folders' 2, prose 3, generated 4. Most files are code, whose names match none of the three expressions: one
// expression joining them tells those with one call (rankOf runs for every file of the walk, some of them before a
// FIND answered at once).
function rankOf(name: string, inside: number): number {
  if ((inside & IN_BUILT) !== 0) return 4;
  const special = NOT_CODE.test(name);
  if (special && GENERATED.test(name)) return 4;
  if ((inside & IN_DOCS) !== 0 || (special && PROSE.test(name))) return 3;
  if ((inside & IN_TESTS) !== 0 || (special && TEST_NAME.test(name))) return 1;
  return (inside & IN_HIDDEN) !== 0 ? 2 : 0;
}
const NOT_CODE = new RegExp([GENERATED, PROSE, TEST_NAME].map((e) => e.source).join('|'), 'i');

// A file's text for checking an EDIT against it: through the one reader, judged as a change judges it (readText and
// forChange), so the check quotes nothing NEED would withhold and accepts nothing apply would refuse.
function textOf(box: Sandbox, wanted: string): FileText {
  const place = resolvePath(box, wanted);
  if (place.kind === 'missing') return { kind: 'missing' };
  if (place.kind === 'folder') return { kind: 'refused', reason: 'it is a folder' };
  if (place.kind !== 'file') return { kind: 'refused', reason: place.reason };
  const read = forChange(readText(place.real));
  return read.kind === 'text' ? { kind: 'text', text: read.text } : { kind: 'refused', reason: unfitReason(read.why) };
}

// One answerer per request kind (the text side of each kind is in protocol/requests.ts).
const answerers: { [K in RequestKind]: Answerer<K> } = {
  need: answerNeeds,
  list: answerLists,
  find: answerFinds,
  outline: answerOutlines,
};

async function answer(
  box: Sandbox,
  limits: Limits,
  folder: Folder,
  requests: readonly Request[],
  earlier: ReadonlyMap<string, number>,
): Promise<Result[]> {
  const results: Result[][] = requests.map(() => []);
  const step: Step = { box, limits, folder, earlier };
  for (const kind of Object.keys(answerers).filter(isRequestKind)) await answerKind(kind, requests, step, results);
  return results.flat();
}

async function answerKind<K extends RequestKind>(
  kind: K,
  requests: readonly Request[],
  step: Step,
  results: Result[][],
): Promise<void> {
  const at: number[] = [];
  const mine: Array<RequestOf<K>> = [];
  requests.forEach((request, index) => {
    if (isOfKind(request, kind)) {
      at.push(index);
      mine.push(request);
    }
  });
  if (mine.length === 0) return;
  const answerer: Answerer<K> = answerers[kind];
  (await answerer(mine, step)).forEach((answered, j) => {
    results[at[j] ?? -1]?.push(...answered);
  });
}

function isOfKind<K extends RequestKind>(request: Request, kind: K): request is RequestOf<K> {
  return request.kind === kind;
}
