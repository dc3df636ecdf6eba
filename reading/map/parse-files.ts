// The map's files parsed into its cache in the background (mapper.ts): a few read and sent ahead of the parser's
// answers, each waiting while a step is answered.

import type { Folder } from '../answer/step.ts';
import { readText } from '../text.ts';
import type { Background } from './background.ts';
import { refsText, type Entry } from './cache.ts';
import { MAX_FILE_BYTES, type Candidate } from './candidates.ts';
import type { MapDef } from './graph.ts';

// Parses `list`, each file's entry handed to `keep` as it comes; false as soon as `ended()` says so, or the run ended.
// The parser is told more files are coming until then, so that it keeps its worker through a step's pause.
export async function parseInto(
  list: readonly Candidate[],
  { folder, background, ended }: { folder: Folder; background: Background; ended: () => boolean },
  keep: (rel: string, entry: Entry) => void,
): Promise<boolean> {
  if (list.length === 0) return true;
  const done = folder.parsers().expect();
  try {
    return await ahead(list, (c) =>
      background
        .run(() => (ended() ? undefined : parsed(folder, c)))
        .then((entry) => {
          if (entry === undefined) return false;
          keep(c.rel, entry);
          return true;
        }),
    );
  } finally {
    done();
  }
}

// Files read and sent to the parser ahead of its answers (reading/outline/parsers.ts), at most, and their bytes past
// the first: enough that the parser never waits for the main thread between two small files.
const AHEAD_FILES = 16;
const AHEAD_BYTES = 256 << 10;

// Runs `each` over `list` with up to AHEAD_FILES of them (AHEAD_BYTES) going at once, in order; false as soon as one
// gives false (nothing more is begun), true when all gave true.
function ahead(list: readonly Candidate[], each: (c: Candidate) => Promise<boolean>): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let next = 0;
    let going = 0;
    let bytes = 0;
    let stopped = false;
    const fill = () => {
      for (let c = list[next]; c !== undefined && !stopped; c = list[next]) {
        if (going >= AHEAD_FILES || (going > 0 && bytes + c.size > AHEAD_BYTES)) return;
        next++;
        going++;
        bytes += c.size;
        const size = c.size;
        each(c).then((ok) => {
          going--;
          bytes -= size;
          stopped ||= !ok;
          if (going === 0 && (stopped || next >= list.length)) resolve(!stopped);
          else fill();
        }, reject);
      }
      if (going === 0) resolve(!stopped);
    };
    fill();
  });
}

// A file's entry, parsed in the background; one that cannot be read or parsed is kept as defining nothing, so that it
// is not tried again while it is unchanged. Undefined when the run ended meanwhile.
async function parsed(folder: Folder, c: Candidate): Promise<Entry | undefined> {
  const empty: Entry = { size: c.size, mtime: c.mtime, defs: [], refs: '' };
  const read = readText(c.real, MAX_FILE_BYTES);
  if (read.kind !== 'text') return empty;
  const outcome = await folder.parsers().parse(c.language, read.text, { refs: true, background: true });
  if (outcome.kind === 'ended') return undefined;
  if (outcome.kind === 'failed') return empty;
  // What other files may name: definitions at the top or in a class, not a function's helpers, nor `impl` blocks
  // (which name a type defined elsewhere), nor a test file's `describe` and `it` blocks (named by nobody).
  const defs: MapDef[] = outcome.defs
    .filter((d) => d.kind !== 'impl' && d.kind !== 'test' && !d.local)
    .map(({ name, first, last, depth }) => ({ name, first, last, depth }));
  return { ...empty, defs, refs: refsText(outcome.refs ?? []) };
}
