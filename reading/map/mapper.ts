// The map of the code as the executor makes it: the folder's source files from the run's walk, their definitions and
// the words they use (from the cache when a file's size and time are unchanged, else parsed in the background by the
// parser's worker), ranked for the question (graph.ts). Bounded: at most MAX_FILES files, each at most MAX_FILE_BYTES,
// the likeliest chosen first when a folder has more. What it does in the background waits while a step is answered,
// so that a step never shares its cores with the map.

import path from 'node:path';
import fs from 'node:fs';
import type { MapFile, MapFocus, MapJob } from '../../protocol/contract.ts';
import { MAP_WAIT_MS, onceEach } from '../../protocol/code-map.ts';
import { resolvePath, type Sandbox } from '../sandbox.ts';
import type { Folder } from '../answer/step.ts';
import { KEPT_FILES, readCache, type Entries, type MapStore } from './cache.ts';
import { finished, rankingOf, type MapDef, type MapSource, type RankedFile } from './graph.ts';
import { readTies, tiesBytes, tiesKey, tying, type Ties, type TiedFile } from './ties.ts';
import { createBackground } from './background.ts';
import { parseInto } from './parse-files.ts';
import { TEST_PATH } from '../../common/kinds-of-files.ts';
import { candidates, lookedAt, type Candidate, type Chosen } from './candidates.ts';
import { languageOf } from '../outline/languages.ts';

export type Mapper = {
  // A map for the question; undefined when the folder has too few source files for one to help.
  map(focus: MapFocus): MapJob | undefined;
  // Told around each step's answers: meanwhile the map's parses, its cache's write and its ranking wait.
  stepStarted(): void;
  stepEnded(): void;
  // Writes what was learned since the cache was last written: when a map is done, and when the run ends.
  flush(): void;
  // Ends what the map does in the background at once (a wait before its parses, its ranking): the run is over.
  close(): void;
  // The definitions of a file the map knows, once a map of this run has read its cache, while the file is unchanged
  // (its size and time as read); undefined for one it does not.
  definitions(rel: string): readonly MapDef[] | undefined;
  // Parses, in the background and after a map of this run has read its cache, the files of `rels` it does not know as
  // they are now, so that the steps after name the definitions their lines lie in (FIND's hits, NEED's parts). Resolves
  // when they are done (or the run ended); nothing waits for it but tests.
  learn(rels: readonly string[]): Promise<void>;
};

// How long a map made in the background waits for the files of the texts the question quotes (foundBy): a search over a
// big folder takes seconds, and a map that follows later is later by as much.
const FOUND_WAIT_MS = 3_000;
// What the first message's wait leaves the ranking after that: 1,000 files of the npm corpus ranked from the cache in
// 48-108 ms here, less from kept ties.
const RANK_ROOM_MS = 300;
// Files learnt after one step, at most: a FIND's hundred hits lie in fewer files than this.
const LEARNT_FILES = 32;

// What the parser reads from cold within about a second here (its start, a grammar or two, the parse): measured on a
// loaded 2-core machine, psf/requests' 407 KB of Python took 544–738 ms, ky's 497 KB of TypeScript 763–1,051 ms.
const SOON_BYTES = 512 << 10;
// What each language past the first takes from SOON_BYTES: its grammar's load and its queries' compile. Measured in
// fresh processes on the npm corpus's map from cold (1,000 files, 2.5 MB): the parser's start with JavaScript's grammar
// 156-596 ms, TypeScript's next 79-100 ms (460 ms at load 7), then 2.5-2.8 MB a second; a second language costs about
// what 256 KB does (issue 30: a map still to parse 517 KB of the corpus kept a first message waiting its whole second).
const GRAMMAR_BYTES = 256 << 10;
// More entries than this in the walk: more than a tree shows, so the map takes part of the tree's room.
const BIG_FOLDER = 500;
// Files and definitions handed on for the map's text; it is cut to its room there.
const RANKED_FILES = 25;
const DEFS_PER_FILE = 8;
// A map the first message does not wait for starts its parses this long after it is asked for, so that a model's
// instant reply and its step come first: the parser's start (its runtime and a grammar, 150-600 ms of a core here)
// took the core the step needed (issue 30: the npm corpus's common text after a reply at once, 27-32 ms with no map,
// 43-51 ms with the parser starting).
const UNHURRIED_MS = 250;
// The ranking goes in slices of about this long, each a task of its own: an answer from the bridge, or a step, waits
// at most that long for it (in one task, 1,000 files of the npm corpus took 50-100 ms). Not while the first message
// waits for it: slices let FIND's warm-up in between, and the message waited for both (on the npm corpus, its map in
// the cache, 470 ms to the first message became 670, alternated on a quiet machine).
const RANK_SLICE_MS = 1;

export function createMapper(box: Sandbox, folder: Folder, store: MapStore | undefined): Mapper {
  let cache: Entries | undefined;
  let dirty = false;
  let generation = 0;
  const background = createBackground(RANK_SLICE_MS);
  const entries = () => {
    if (cache === undefined) {
      let bytes: Uint8Array | undefined;
      try {
        bytes = store?.load();
      } catch {
        bytes = undefined;
      }
      cache = readCache(bytes);
    }
    return cache;
  };
  // The ties of the latest map's files (ties.ts), read from the store for a map of other files; and whether those made
  // are written yet.
  let ties: { key: string; ties: Ties } | undefined;
  // Where the latest map's files are read (readPathOf: the walk's path, or a symlinked file's target), by path.
  let chosenReal = new Map<string, string>();
  let tiesWritten = true;
  const keptTies = (key: string): Ties | undefined => {
    if (ties?.key === key) return ties.ties;
    try {
      const kept = readTies(store?.loadTies?.(key), key);
      if (kept !== undefined) ties = { key, ties: kept };
      return kept;
    } catch {
      // Ties that cannot be read are made again.
      return undefined;
    }
  };
  const flush = () => {
    if (!tiesWritten && ties !== undefined && store?.saveTies !== undefined) {
      tiesWritten = true;
      try {
        store.saveTies(ties.key, tiesBytes(ties.key, ties.ties));
      } catch {
        // As with the cache: the next run makes them again.
      }
    }
    if (!(dirty || cache?.dropped() === true) || store === undefined || cache === undefined) return;
    dirty = false;
    // The files still walked: each walked path looked up among the cached ones, where a set of every walked path took
    // 90 ms of 200,000 files' run as it ended (issue 30).
    const walked = new Set<string>();
    for (const e of folder.entries()) if (e.kind === 'file' && cache.has(e.rel)) walked.add(e.rel);
    try {
      store.save(cache.bytes((rel) => walked.has(rel), KEPT_FILES));
    } catch {
      // The map is a help: a state folder that cannot be written costs the next run a cold map, not this run.
    }
  };

  return {
    map(asked) {
      const run = ++generation;
      const words = wordsOf(asked.question, path.basename(box.root));
      const attached = new Set(
        asked.files.flatMap((f) => {
          const place = resolvePath(box, f.replace(/:\d+(-\d*)?$/, ''));
          return place.kind === 'file' ? [place.rel] : [];
        }),
      );
      const picked = candidates(box, folder, words, attached);
      if (picked === undefined) return undefined;
      chosenReal = new Map(picked.map((c) => [c.rel, c.real]));
      const known = entries();
      const testsAsked = TESTS_ASKED.test(asked.question);
      // The files looked at now, and those left to look at once the first message is out (`unseen`): with a cache
      // that holds nothing, only until their bytes show the map cannot be parsed soon (below).
      const { seen: chosen, unseen } = lookedAtUntil(picked, known.size() === 0 ? testsAsked : undefined);
      const missing = chosen.filter((c) => !known.fresh(c.rel, c.size, c.mtime));
      // What the map waits for, and what it parses after, for the next question: the tests, when the files outside them
      // can be parsed soon and all of them cannot (a first question in requests or ky: their tests are half the
      // bytes, and the map came a step late), unless the question is about tests.
      let now = missing;
      let after: Candidate[] = [];
      if (!parsedSoon(missing) && !testsAsked) {
        const outside = missing.filter((c) => !TEST_PATH.test(c.rel));
        if (outside.length < missing.length && parsedSoon(outside)) {
          now = outside;
          after = missing.filter((c) => TEST_PATH.test(c.rel));
        }
      }
      // And the files of a language past the main ones, when those can be parsed soon and all cannot: a TypeScript
      // project's shell scripts and `eslint.config.mjs` (actions/checkout: three languages, and no map until step 2).
      // Not when some files were left unlooked at: their bytes alone are past what is parsed soon (with it, a first
      // question in Linux's source waited the whole second for a map of its C files).
      if (!parsedSoon(now) && unseen.length === 0) {
        const main = mainLanguages(now);
        if (main.length > 0) {
          after = [...after, ...now.filter((c) => !main.includes(c.language))];
          now = now.filter((c) => main.includes(c.language));
        }
      }
      const soon = parsedSoon(now);
      // Until then a map expected soon is what the first message waits for (protocol/code-map.ts).
      const awaitedUntil = soon ? performance.now() + MAP_WAIT_MS : 0;
      // A later question's map, or the run's end, stops this one: nothing is left to show it to.
      const ended = () => background.closed() || run !== generation;
      // What is known written, then the files ranked: at once while the first message waits, else in slices.
      // The files' ties are those kept when they are of the same files, else made and kept (unless an entry was found
      // damaged meanwhile: its file tied nothing this time, and would not the next).
      const rank = (found: ReadonlySet<string>): RankedFile[] | Promise<RankedFile[] | undefined> => {
        // The cache is written before the ranking, so that a ranking cut short loses nothing; after it when the first
        // message waits, where its look at every walked path (25-40 ms of 200,000 files) held the message back.
        const awaited = performance.now() < awaitedUntil;
        if (awaited) void background.pause(UNHURRIED_MS).then(() => background.run(flush));
        else flush();
        const { sources, files } = sourcesOf(chosen, known);
        const focus = { words, attached, found };
        const key = tiesKey(files);
        function* ranking(): Generator<void, RankedFile[]> {
          let tied = keptTies(key);
          // Ties made now, or kept without what their first ranking adds (one cut short), are kept (again) with it.
          const keep = () => {
            if (known.dropped() || tied === undefined) return;
            ties = { key, ties: tied };
            tiesWritten = false;
          };
          if (tied === undefined) {
            tied = yield* tying(sources);
            keep();
          }
          const plain = tied.plain !== undefined;
          const ranked = yield* rankingOf(sources, focus, RANKED_FILES, tied);
          if (!plain) keep();
          return ranked;
        }
        if (awaited) return finished(ranking());
        return background.inSlices(ranking(), ended);
      };
      // Parses `list` into the cache; false when the run or the question ended first.
      const parseAll = (list: readonly Candidate[]): Promise<boolean> =>
        parseInto(list, { folder, background, ended }, (rel, entry) => {
          known.set(rel, entry);
          dirty = true;
        });
      const files = (async (): Promise<MapFile[]> => {
        if (!soon && now.length > 0) await background.pause(UNHURRIED_MS);
        if (unseen.length > 0) {
          // A cache that held nothing: the files not looked at are all to parse.
          const rest = await background.run(() => (ended() ? undefined : unseen.flatMap((c) => lookedAt(c) ?? [])));
          if (rest === undefined) return [];
          chosen.push(...rest);
          now.push(...rest);
        }
        if (!(await parseAll(now))) return [];
        // Waited for while the first message waits, leaving the ranking its time before the message stops waiting.
        const found = await foundBy(
          asked.found,
          awaitedUntil > 0 ? awaitedUntil - RANK_ROOM_MS : performance.now() + FOUND_WAIT_MS,
        );
        const top = await background.run(() => (ended() ? undefined : rank(found)));
        if (after.length > 0)
          // Nothing waits for it: what it parses is for the next question, and a failure costs that one a cold map.
          (async () => {
            await background.pause(UNHURRIED_MS);
            await parseAll(after);
          })().catch(() => {});
        return top === undefined ? [] : mapFiles(top);
      })();
      if (soon && now.length > 0) holdReadingAhead(folder, files, awaitedUntil);
      return { soon, big: folder.entries().length > BIG_FOLDER, files };
    },
    stepStarted: background.stepStarted,
    stepEnded: background.stepEnded,
    flush,
    close: background.close,
    async learn(rels) {
      const known = cache;
      if (known === undefined) return;
      const list: Candidate[] = [];
      for (const rel of new Set(rels)) {
        if (list.length >= LEARNT_FILES) break;
        const language = languageOf(rel);
        const place = language === undefined ? undefined : resolvePath(box, rel);
        if (language === undefined || place?.kind !== 'file') continue;
        const c = lookedAt({ rel, real: place.real, language });
        if (c !== undefined && !known.fresh(rel, c.size, c.mtime)) list.push(c);
      }
      if (list.length === 0) return;
      await background.pause(UNHURRIED_MS);
      await parseInto(list, { folder, background, ended: background.closed }, (rel, entry) => {
        known.set(rel, entry);
        dirty = true;
      });
    },
    definitions(rel) {
      // Only what a map of this run has read: a FIND does not load the cache for this.
      const entry = cache?.get(rel);
      if (entry === undefined || entry.defs.length === 0) return undefined;
      // Where the walk saw a file the latest map chose, else where the path rule finds it: on 200,000 files, the rule
      // for each file of a common text's first hits took 20 ms of the step (issue 30). Only the file's size and time
      // are looked at, to tell whether the definitions kept still hold; nothing is read.
      let real = chosenReal.get(rel);
      if (real === undefined) {
        const place = resolvePath(box, rel);
        if (place.kind !== 'file') return undefined;
        real = place.real;
      }
      try {
        const stat = fs.statSync(real);
        return stat.size === entry.size && stat.mtimeMs === entry.mtime ? entry.defs : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

// The files where the texts the question quotes were found, once that search is done, or none when it is not done by
// `until` (performance.now()) or fails: the map ranks from them, and a map ready before them (its files all in the
// cache) ranked without them, a race the search lost on every question after a folder's first (mypy's "--strict" map
// led by docs' html_builder.py, main.py, which makes the flag's list, left out).
async function foundBy(
  found: (() => Promise<readonly string[]>) | undefined,
  until: number,
): Promise<ReadonlySet<string>> {
  if (found === undefined) return new Set();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<readonly string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), Math.max(0, until - performance.now()));
    timer.unref();
  });
  try {
    return new Set(await Promise.race([found(), late]));
  } catch {
    return new Set();
  } finally {
    clearTimeout(timer);
  }
}

// While the first message waits for a map with files to parse, FIND's warm-up waits too, as it does while a step is
// answered (finder.ts): its reading ahead, and the search worker's start with the run's paths written for it (about 400
// ms of this thread on 200,000 files in a CPU profile), are for the seconds the model reads the message. A first
// question on 200,000 small files, 1,000 of them chosen (60 KB: parsed in about 0.65 s with the folder to themselves),
// waited the map's whole second behind them and went without it (issue 30: the walk and the map before the first
// message with nothing kept, 1,283 ms against fd's 184); now the map comes within the wait (876 ms, the map in it). A
// map all in the cache is ranked in tens of ms and holds nothing back: holding the warm-up then made a FIND after a
// reply at once 1.08-1.24x as slow. Released once the map is made, or failed, or the first message stops waiting for
// it.
function holdReadingAhead(folder: Folder, map: Promise<unknown>, until: number): void {
  folder.finder.hold();
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    clearTimeout(timer);
    folder.finder.release();
  };
  const timer = setTimeout(release, Math.max(0, until - performance.now()));
  timer.unref();
  map.then(release, release);
}

// The files `picked` looked at (their size and time), those gone, empty or too big left out. With a cache that holds
// nothing (`testsAsked` given: whether the question is about tests), only until the bytes of those the first message
// would wait for (all, or those outside tests, as map() has it) pass SOON_BYTES: the map cannot be parsed soon then,
// and the rest (`unseen`) are looked at once the message is out. On the npm corpus, 65 stats where there were 1,000
// (7-9 ms in a CPU profile), for a map the first message did not wait for: a first question's time to the first
// message 188.0 -> 180.5 ms (fresh processes with nothing kept, alternated, 31 rounds; issue 30).
function lookedAtUntil(
  picked: readonly Chosen[],
  testsAsked: boolean | undefined,
): { seen: Candidate[]; unseen: Chosen[] } {
  const seen: Candidate[] = [];
  let bytes = 0;
  for (let i = 0; i < picked.length; i++) {
    const file = picked[i];
    const looked = file === undefined ? undefined : lookedAt(file);
    if (looked === undefined) continue;
    seen.push(looked);
    if (testsAsked === undefined || (!testsAsked && TEST_PATH.test(looked.rel))) continue;
    bytes += looked.size;
    if (bytes > SOON_BYTES) return { seen, unseen: picked.slice(i + 1) };
  }
  return { seen, unseen: [] };
}

// Whether the parser gets through `list` from cold within about a second (SOON_BYTES, a language past the first
// counting as GRAMMAR_BYTES).
function parsedSoon(list: readonly Candidate[]): boolean {
  const bytes = list.reduce((n, c) => n + c.size, 0);
  const languages = new Set(list.map((c) => c.language)).size;
  return languages <= 2 && bytes + Math.max(0, languages - 1) * GRAMMAR_BYTES <= SOON_BYTES;
}

// The languages of `list` with the most bytes, taken in that order while their files can be parsed soon; none when the
// first alone cannot.
function mainLanguages(list: readonly Candidate[]): string[] {
  const bytes = new Map<string, number>();
  for (const c of list) bytes.set(c.language, (bytes.get(c.language) ?? 0) + c.size);
  const main: string[] = [];
  for (const [language] of [...bytes].sort((a, b) => b[1] - a[1])) {
    if (!parsedSoon(list.filter((c) => c.language === language || main.includes(c.language)))) break;
    main.push(language);
  }
  return main;
}

// A question about tests, whose map waits for the tests too.
const TESTS_ASKED = /\b(tests?|specs?|fixtures?|testing)\b/i;

// The identifiers and words of a question, three characters or more, but for the words every question has and the
// project folder's name, which names the project rather than a definition ("How does checkout decide …" in
// actions/checkout put its checkout() method first, the files deciding it out of the map). Every question has the
// words of asking for an edit too ("add … next to the existing tests", "what would I change"), and the literals and
// types every file uses ("validate: bool = False"): in pydantic they brought validate_bool, bool_schema and BOOL_TRUE
// into the map, in Linux's source audit_rule_change; and the receivers methods are written with (`is_loop(&self)` in
// walkdir put the tests with `self` in their names first).
function wordsOf(question: string, folderName: string): Set<string> {
  const project = folderName.toLowerCase();
  return new Set(
    (question.match(/[A-Za-z_$][\w$]{2,}/g) ?? []).filter((w) => {
      const lower = w.toLowerCase();
      return !COMMON_WORDS.has(lower) && lower !== project;
    }),
  );
}

const COMMON_WORDS: ReadonlySet<string> = new Set(
  'the and for are but not you all any can had her was one our out has him his how its may new now see two who did get let put say she too use what when where which while with why does that this from have into more than then them they will would could should there their about after before other some such only also make like just been were your here want need code file files work works working doesn fail fails failing wrong point line lines show tell explain involved happen happens exactly please cite cited function functions method methods made turn turns defined add adds adding change changes changing existing both again next case cases true false none null nil undefined bool boolean self cls'.split(
    ' ',
  ),
);

// The chosen files as the ranking takes them: those the cache knows, each entry made only when the ranking reads it
// (ties kept from an earlier run leave most unread), and what they are as kept, for their ties' key.
function sourcesOf(
  chosen: readonly Candidate[],
  known: Pick<Entries, 'get' | 'stamp'>,
): { sources: MapSource[]; files: TiedFile[] } {
  const sources: MapSource[] = [];
  const files: TiedFile[] = [];
  for (const { rel } of chosen) {
    const stamp = known.stamp(rel);
    if (stamp === undefined) continue;
    files.push({ rel, size: stamp.size, mtime: stamp.mtime });
    sources.push(new KeptSource(rel, known));
  }
  return { sources, files };
}

// A class, not an object with getters of its own: 1,000 of those took a fresh process 4-5 ms, these under 1.
class KeptSource implements MapSource {
  readonly rel: string;
  readonly #known: Pick<Entries, 'get'>;
  constructor(rel: string, known: Pick<Entries, 'get'>) {
    this.rel = rel;
    this.#known = known;
  }
  get defs(): readonly MapDef[] {
    return this.#known.get(this.rel)?.defs ?? [];
  }
  get refs(): string {
    return this.#known.get(this.rel)?.refs ?? '';
  }
}

// The ranked files as the map shows them: each rank a share of the first's, the leading definitions, and how many names
// the file defines. A name once before the cut, so that a method's signature in an interface does not take its body's
// place.
function mapFiles(files: readonly RankedFile[]): MapFile[] {
  const top = files[0]?.rank || 1;
  return files.map((f) => {
    const named = onceEach(f.defs);
    const defs = named.slice(0, DEFS_PER_FILE).map(({ name, first, last }) => ({ name, first, last }));
    return { path: f.rel, rank: f.rank / top, defs, names: named.length };
  });
}
