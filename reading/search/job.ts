// One search on one thread: what it asks (SearchJob), its state while it runs, and one file searched for all of its
// texts at once. The files to search come from searchFiles (a list, in order) or plan.ts's searchShared (chunks shared
// with the workers).

import { binaryReason } from '../binary.ts';
import { holdsPrivateKey } from '../private-keys.ts';
import type { Keeper } from './keeper.ts';
import { searchBytes, searchLarge } from './lines.ts';
import { needleOf, type Needle } from './needle.ts';

// What a search asks, the same on every thread: the texts, each one's cap (one hit more is looked for, to know where
// the cut is), how long a hit's line may be before it is clipped, and per text whether ASCII letters match in either
// case (`fold[i]`; missing means exact).
export type SearchJob = { texts: readonly string[]; maxHits: number; lineChars: number; fold: readonly boolean[] };

// A hit as the searchers pass it between them: which text, which file of the run, the line's number and its text.
export type Hit = [pattern: number, file: number, line: number, text: string];

// A search under way: made once, then handed to searchFile for every file, so that the loop over files passes one
// object and makes none. `left[t]`: hits of text t still wanted (its cap plus one, counted down as hits are taken).
export type Search = {
  needles: readonly Needle[];
  twins: readonly number[];
  // Per text, its place among the search's distinct texts: its bit in what keeper.present() says.
  textOf: readonly number[];
  lineChars: number;
  keeper: Keeper;
  hits: Hit[];
  left: number[];
};

// A search's state at its start: a needle per text (rare bytes judged by what the keeper has seen), no hits yet.
// The distinct texts (two or more) are handed to the keeper's scan, which tells for each file which of them it may hold.
export function startSearch(job: SearchJob, keeper: Keeper): Search {
  const { texts, fold } = job;
  const distinct = [...new Set(texts)];
  // One text alone is found by memchr on its rarest byte as fast as the scan would rule it out (a 300 MB file: 360-400
  // ms, against 430-440 ms with the scan first): the scan is for two texts or more.
  keeper.lookFor(distinct.length > 1 ? distinct.map((text) => needleOf(text, keeper.counts, true)) : undefined);
  return {
    needles: texts.map((text, i) => needleOf(text, keeper.counts, fold[i] === true)),
    twins: twinsOf(texts, fold),
    textOf: texts.map((text) => distinct.indexOf(text)),
    lineChars: job.lineChars,
    keeper,
    hits: [],
    left: texts.map(() => job.maxHits + 1),
  };
}

// Takes a file's hit into the search's hits. An exact hit ends the search for its case-blind twin: the twin's hits are
// shown only when the exact text has none (answer/find.ts), and a common word's twin, anchored on a letter found every
// few bytes in either case, cost a common text's first hits more than finding them (issue 30).
export function take(search: Search, hit: Hit): void {
  const pattern = hit[0];
  search.hits.push(hit);
  search.left[pattern] = (search.left[pattern] ?? 0) - 1;
  const twin = search.twins[pattern] ?? -1;
  if (twin !== -1) search.left[twin] = 0;
}

// Searches the given files in order, on this thread (a FIND kept to a folder or mask): each file is read once and
// searched for every text still short of its cap; the walk stops when every text has one hit past its cap (which
// marks the cut).
export function searchFiles(files: readonly number[], job: SearchJob, keeper: Keeper): Hit[] {
  const search = startSearch(job, keeper);
  for (const index of files) {
    if (search.left.every((n) => n <= 0)) break;
    searchFile(search, index, search.left);
  }
  return search.hits;
}

// For each text, the index of the same text searched ignoring case, or -1. A file where the case-blind search finds
// nothing holds no exact hit either, so the exact search is skipped there: for a text found nowhere, one scan of the
// files instead of two.
function twinsOf(texts: readonly string[], fold: readonly boolean[]): number[] {
  return texts.map((text, p) =>
    fold[p] === true ? -1 : texts.findIndex((other, q) => fold[q] === true && other === text),
  );
}

// One file searched for every text with hits still wanted; a file holding a private key gives none. The folded twins
// go first, so that their outcome can spare the exact search (see twinsOf). `wanted[t]`: hits still wanted of text t;
// the file's hits are taken only after the whole file is searched, so `wanted` may be the search's live `left`.
export function searchFile(search: Search, index: number, wanted: readonly number[]): void {
  const bytes = search.keeper.bytesOf(index);
  if (bytes === undefined) return;
  if (bytes === 'large') {
    const where = search.keeper.openable(index);
    if (where !== undefined) for (const hit of searchLarge(search, index, where, [...wanted])) take(search, hit);
    return;
  }
  searchIn(search, index, bytes, wanted);
}

// The same for a file's bytes at hand: a text the scan says is not there is not looked for.
function searchIn(search: Search, index: number, bytes: Buffer, wanted: readonly number[]): void {
  const { needles, twins, lineChars, textOf } = search;
  const present = search.keeper.present(bytes);
  let mine: Hit[] | undefined;
  let foundBlind: Uint8Array | undefined;
  const look = (p: number) => {
    const needle = needles[p];
    const n = wanted[p] ?? 0;
    if (needle === undefined || n <= 0 || ((present >>> (textOf[p] ?? 0)) & 1) === 0) return;
    const found = searchBytes(bytes, needle, n, lineChars);
    if (found.length === 0) return;
    if (needle.fold) {
      foundBlind ??= new Uint8Array(needles.length);
      foundBlind[p] = 1;
    }
    mine ??= [];
    for (const hit of found) mine.push([p, index, hit.line, hit.text]);
  };
  for (let p = 0; p < needles.length; p++) if (needles[p]?.fold === true) look(p);
  for (let p = 0; p < needles.length; p++) {
    if (needles[p]?.fold === true) continue;
    const twin = twins[p] ?? -1;
    // The twin was searched here (it still wanted hits) and found none: no exact hit here either.
    if (twin !== -1 && (wanted[twin] ?? 0) > 0 && foundBlind?.[twin] !== 1) continue;
    look(p);
  }
  // A file with hits is judged as NEED judges it: no hits from a file holding a private key, or from one whose first
  // bytes are mostly control characters (too costly to look at for every file; a file with hits is rare).
  if (mine === undefined || holdsPrivateKey(bytes) || binaryReason(bytes) !== undefined) return;
  for (const hit of mine) take(search, hit);
}

// Runs the search's code on a few lines made up here, a text found as it is and one found ignoring case, until the
// engine has compiled it: a fresh process's first FIND otherwise runs it cold, which costs a common text's first hits
// more than finding them (tens of milliseconds). Called while the model reads a message.
export function warmUp(keeper: Keeper): void {
  // In the keeper's piece buffer, where the scan sees it (scan.ts).
  const text = Buffer.from('function warm() {\n  return Warm.up(WARM, 1);\n}\n// warm text\n'.repeat(20));
  const lines = keeper.chunk.subarray(0, text.copy(keeper.chunk));
  for (let round = 0; round < 40; round++) {
    const search = startSearch(
      { texts: ['Warm.up', 'warm', 'warm'], maxHits: 5, lineChars: 80, fold: [false, false, true] },
      keeper,
    );
    searchIn(search, 0, lines, search.left);
  }
}
