// The project folder as the loop reads it (protocol/contract.ts's Reader): answers one step's requests inside the
// folder, read-only and within the limits, one answerer per request kind (reading/answer/); the tree for the first
// message; a file's text for an EDIT's check. The folder is walked once per run, and FIND keeps what it read between
// steps.

import path from 'node:path';
import { isRequestKind, type Request, type RequestKind, type RequestOf } from '../protocol/requests.ts';
import type { Result } from '../protocol/results.ts';
import { defaultLimits, type FileText, type Limits, type Reader } from '../protocol/contract.ts';
import { createSandbox, resolvePath, type Sandbox, type SandboxOptions } from './sandbox.ts';
import { walk, type WalkEntry, type WalkNote } from './walk.ts';
import { createFinder, PARALLEL_MIN_FILES, type SearchFile } from './search/finder.ts';
import { forChange, readText, unfitReason } from './text.ts';
import { buildTree } from './tree.ts';
import { createPathIndex, type PathIndex } from './similar.ts';
import type { Answerer, Folder, Step } from './answer/step.ts';
import { answerNeeds } from './answer/need.ts';
import { answerLists } from './answer/list.ts';
import { answerFinds } from './answer/find.ts';
import { answerOutlines } from './answer/outline.ts';
import { createParsers, type Parsers, type ParsersOptions } from './outline/parsers.ts';
import { createMapper } from './map/mapper.ts';
import type { MapStore } from './map/cache.ts';

// The project folder as the loop reads it (protocol/contract.ts's Reader), with the sandbox it reads through.
export type Executor = Reader & {
  box: Sandbox;
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
};

export function createExecutor(root: string, options: ExecutorOptions = {}): Executor {
  const box = createSandbox(root, options);
  const limits = { ...defaultLimits, ...options.limits };
  const finder = createFinder(box.root);
  let entries: WalkEntry[] | undefined;
  let notes: WalkNote[] = [];
  let files: WalkEntry[] | undefined;
  let searchable: SearchFile[] | undefined;
  let index: PathIndex | undefined;
  let parsers: Parsers | undefined;
  let closed = false;
  const folder: Folder = {
    entries: () => {
      if (entries === undefined) {
        ({ entries, notes } = walk(box, options.onLargeFolder, options.largeFolder));
        // A folder big enough for a search worker gets it started, and given the files, once this thread is free:
        // while the model reads the first message, not before that message is sent.
        let count = 0;
        for (const e of entries) if (e.kind === 'file' && ++count >= PARALLEL_MIN_FILES) break;
        const walked = entries;
        if (count >= PARALLEL_MIN_FILES) {
          setImmediate(() => {
            if (!closed && entries === walked) finder.warm(folder.searchable());
          });
        }
      }
      return entries;
    },
    files: () => (files ??= folder.entries().filter((e) => e.kind === 'file')),
    searchable: () => (searchable ??= sourceFirst(folder.files())),
    paths: () => (index ??= createPathIndex(folder.files().map((e) => e.rel))),
    finder,
    parsers: () => (parsers ??= createParsers(options.parsers)),
  };
  const mapper = createMapper(box, folder, options.mapStore?.(box.root));
  return {
    box,
    limits,
    answer: async (requests, earlier) => {
      // The map's parses in the background wait while a step is answered: they take nothing from it.
      parsers?.hold();
      try {
        return await answer(box, limits, folder, requests, earlier ?? new Map());
      } finally {
        parsers?.release();
      }
    },
    text: (wanted) => textOf(box, wanted),
    tree: (maxChars) => {
      const all = folder.entries();
      return buildTree(
        all,
        path.basename(box.root),
        {
          maxChars: Math.min(maxChars ?? limits.treeChars, limits.treeChars),
          maxEntriesPerFolder: limits.folderEntries,
        },
        notes,
      );
    },
    reset: () => {
      entries = undefined;
      notes = [];
      files = undefined;
      searchable = undefined;
      index = undefined;
      finder.reset();
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
      await Promise.all([finder.close(), parsers?.close()]);
      mapper.flush();
    },
  };
}

// The files in the order FIND searches them, which is the order of its hits: code first, then prose (READMEs,
// changelogs, docs), then what is generated (lock files, minified and map files), each in walk order. A FIND of a
// common word shows where the code uses it before what a changelog says about it.
function sourceFirst(files: readonly WalkEntry[]): WalkEntry[] {
  const ranked: WalkEntry[][] = [[], [], []];
  for (const file of files) ranked[rankOf(file.rel)]?.push(file);
  return ranked.flat();
}

const PROSE =
  /\.(md|markdown|mdx|rst|txt|adoc|textile|org)$|(^|\/)(history|changelog|changes|news|authors|contributors|license|licence|copying|notice)[^/]*$|(^|\/)docs?\//i;
const GENERATED =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|cargo\.lock|poetry\.lock|composer\.lock|gemfile\.lock|go\.sum)$|\.(min\.js|min\.css|map|snap)$/i;

function rankOf(rel: string): number {
  return GENERATED.test(rel) ? 2 : PROSE.test(rel) ? 1 : 0;
}

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
