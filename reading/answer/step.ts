// What the answerers of one step share (reading/executor.ts makes it): the sandbox, the limits, the run's view of the
// folder, and the file results still in the conversation.

import type { Limits } from '../../protocol/contract.ts';
import type { RequestKind, RequestOf } from '../../protocol/requests.ts';
import type { Result } from '../../protocol/results.ts';
import type { Sandbox } from '../sandbox.ts';
import type { WalkEntry } from '../walk.ts';
import type { Finder, SearchFile } from '../search/finder.ts';
import type { PathIndex } from '../similar.ts';
import type { Parsers } from '../outline/parsers.ts';

// The run's view of the folder: walked once, kept until reset().
export type Folder = {
  entries: () => WalkEntry[];
  files: () => WalkEntry[];
  searchable: () => SearchFile[];
  // The first `count` files of searchable()'s order while it is still being made, found by ranking only as far as
  // needed; undefined once it is made (or when they cannot be told before it is).
  searchableHead: (count: number) => SearchFile[] | undefined;
  paths: () => PathIndex;
  finder: Finder;
  // The parser of OUTLINE and the map, started when first asked for.
  parsers: () => Parsers;
};

// What the answerers of one step share.
export type Step = { box: Sandbox; limits: Limits; folder: Folder; earlier: ReadonlyMap<string, number> };

// Answers the requests of one kind in a step, in their order: a list of results for each request.
export type Answerer<K extends RequestKind> = (
  requests: ReadonlyArray<RequestOf<K>>,
  step: Step,
) => Result[][] | Promise<Result[][]>;
