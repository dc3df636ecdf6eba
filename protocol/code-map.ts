// The map of the code in the first message: the files most likely to matter for the question, each with its main
// definitions and their lines, within a small share of the window that never crowds out the instructions or the
// question. A map not ready within about a second is promised in the first message and follows with the results of
// the first requests.

import type { MapFile, MapJob, Reader } from './contract.ts';
import type { Window } from './conversation.ts';
import type { ResultTexts } from './kinds/kind.ts';
import { heading } from './wire.ts';
import { formatCount } from '../common/text.ts';

// How long the first message waits for a map that is expected soon.
export const MAP_WAIT_MS = 1_000;
// Definitions named per file, at most: more for the files that lead.
const DEFS_PER_FILE = 6;
const DEFS_PER_LATER_FILE = 3;
const LEADING_FILES = 3;
// Past the first few files, a file ranked below this share of the first is left out: on psf/requests and
// sindresorhus/ky the files the questions were about ranked at 0.27-1 of the first, while the tail (test helpers,
// docs' themes, error classes) ran down to 0.0001 and took half the map's characters (a map of 25 files, 4,000
// characters, where 12 files say what matters in 2,000).
const TAIL_RANK = 0.08;
const MIN_FILES = 5;
// Below this many characters a map would name too few files to help.
const MIN_MAP_CHARS = 600;
// A map's lines (paths, names, line numbers) come to about 3.4 characters a token by common/tokens.ts; 3 keeps a margin.
const MAP_CHARS_PER_TOKEN = 3;
// The step's closing lines and the joins between parts, which the first message also carries.
const CLOSING_TOKENS = 200;

export type MapResults = {
  // The map, ready after the first message was sent: its lines, or undefined when it came out empty.
  map: { kind: 'map'; request: string; text: string | undefined };
};

const INTRO =
  "The files most likely to matter for this question, ranked by what it names and by which code uses which, each with its main definitions and their lines. NEED path:first-last reads one; OUTLINE path lists all of a file's.";
const PENDING =
  '[The map of the code (the files most likely to matter for this question, with their main definitions and lines) is being made; it comes with the results of whichever step it is ready by. Do not wait for it: ask for what you need.]';
// What stands in its place in later messages until it comes.
const STILL_PENDING = `${heading.map}\n[The map of the code is still being made; it comes with the results of whichever step it is ready by.]`;
const REQUEST = 'MAP OF THE CODE';
// What stands in the map's place in the messages after the first. Each message is sent whole, so "the first message"
// named one the model no longer sees: a player looked above for a map that was not there (walkdir, issue 30).
const LEFT_OUT = `${heading.map}\n[The map of the code went with this question's first step only; it is left out now to leave room for results. OUTLINE a file for its definitions.]`;

export const mapResults: ResultTexts<MapResults> = {
  map: {
    render: (r) =>
      r.text === undefined
        ? heading.result(r.request, 'none: no file defines what the question or the attached files name')
        : `${heading.result(r.request, 'ready now')}\n${r.text}\n${heading.resultEnd}`,
    dropped: (_r, step) => `[The map of the code was sent at step ${step} and dropped to fit the window.]`,
    // As the first message's map: the model asks with it in view once, and the messages after give its room to
    // results (a late map of 1,500-2,000 tokens rode along in every later message of a 32,768 window on gson).
    once: (_r, step) =>
      `[The map of the code came with the results of step ${step}; it is left out now to leave room for results. OUTLINE a file for its definitions.]`,
  },
};

// The map's lines: a file a line, as many as `maxChars` takes and as rank far enough; undefined when not one fits.
export function mapLines(files: readonly MapFile[], maxChars: number): string | undefined {
  const lines = [INTRO];
  let used = INTRO.length;
  for (const f of files) {
    if (f.defs.length === 0) continue;
    const shown = lines.length - 1;
    if (shown >= MIN_FILES && f.rank < TAIL_RANK) break;
    const named = onceEach(f.defs);
    const defs = named
      .slice(0, shown < LEADING_FILES ? DEFS_PER_FILE : DEFS_PER_LATER_FILE)
      .map((d) => `${d.name} ${d.first === d.last ? d.first : `${d.first}-${d.last}`}`);
    // The count of the names not shown: a line that ended at `TestTreeFindPattern 419-447` read to a player as the
    // file's end, and it asked for lines 419-447 to add a test after them in a file of 715 lines (issue 30).
    const more = Math.max(f.names, named.length) - defs.length;
    const line = `${f.path}: ${defs.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}`;
    if (used + line.length + 1 > maxChars) break;
    used += line.length + 1;
    lines.push(line);
  }
  return lines.length > 1 ? lines.join('\n') : undefined;
}

// A name once, where it comes first, with the lines of its widest definition: overloads and a getter beside its setter
// would fill the line with one name, and an interface's signature of a method stood for the method (actions/checkout's
// `fetch 35-42` in IGitCommandManager, where FIND said `in fetch 277-318`, its body).
export function onceEach<D extends { name: string; first: number; last: number }>(defs: readonly D[]): D[] {
  const widest = new Map<string, D>();
  for (const d of defs) {
    const seen = widest.get(d.name);
    if (seen === undefined) widest.set(d.name, d);
    else if (d.last - d.first > seen.last - seen.first) widest.set(d.name, { ...seen, first: d.first, last: d.last });
  }
  return [...widest.values()];
}

// The map's room in the first message, in characters: a small share of the window, larger when no files are
// attached, plus what the tree left of its own room; never more than half of what the instructions, the tree, the
// attached files and the question leave, so that the results of the first requests still have room.
export function mapBudget(window: Window, fixedTokens: number, attached: boolean, treeLeft: number): number {
  const share = Math.min(attached ? 4_000 : 8_000, Math.round((window.promptTokens / (attached ? 24 : 12)) * 3.4));
  const roomTokens = (window.promptTokens - fixedTokens - CLOSING_TOKENS) / 2;
  const chars = Math.min(share + Math.max(0, treeLeft), Math.floor(roomTokens * MAP_CHARS_PER_TOKEN));
  return chars >= MIN_MAP_CHARS ? chars : 0;
}

// What the loop does with a map: its part of the first message (the map, or the note that it follows), and the result
// that brings it once ready, which `later` gives once.
export type MapInMessage = {
  head: string | undefined;
  later: () => MapResults['map'] | undefined;
  // What stands in the map's place in the messages after the first ('' for nothing), or what says it as each message
  // is made; undefined keeps it.
  after?: string | (() => string);
};

const NONE: MapInMessage = { head: undefined, later: () => undefined };

// Starts the map for the question, when the reader makes maps; `found` says where the texts it quotes were found.
export function startMap(
  executor: Reader,
  question: string,
  files: readonly string[],
  found?: () => Promise<readonly string[]>,
): MapJob | undefined {
  try {
    return executor.map?.(found === undefined ? { question, files } : { question, files, found });
  } catch {
    return undefined;
  }
}

// Waits up to `wait` ms for a map expected soon, none for one that is not; a map that fails is left out.
export async function mapInMessage(job: MapJob | undefined, maxChars: number, wait: number): Promise<MapInMessage> {
  if (job === undefined || maxChars === 0) return NONE;
  let files: MapFile[] | undefined;
  let failed = false;
  const settled = job.files.then(
    (f) => {
      files = f;
    },
    () => {
      failed = true;
    },
  );
  if (job.soon) {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise((resolve) => {
      timer = setTimeout(resolve, wait);
    });
    await Promise.race([settled, waited]);
    clearTimeout(timer);
  }
  if (failed) return NONE;
  if (files !== undefined) {
    const text = mapLines(files, maxChars);
    if (text === undefined) return NONE;
    return { head: `${heading.map}\n${text}`, later: () => undefined, after: LEFT_OUT };
  }
  let sent = false;
  return {
    head: `${heading.map}\n${PENDING}`,
    // Later messages say it is still being made until it comes as a result of its own; then nothing stands in its
    // place (a note would say it is being made beside the map itself).
    after: () => (sent ? '' : STILL_PENDING),
    later: () => {
      if (sent || files === undefined) return undefined;
      sent = true;
      return { kind: 'map', request: REQUEST, text: mapLines(files, maxChars) };
    },
  };
}
