// FIND: all texts of a step in one pass over the run's files, code first; a FIND kept to a folder or mask searches
// its files alone.

import type { FindRequest } from '../../protocol/requests.ts';
import { AROUND_HITS, WHOLE_HITS, WHOLE_LINES, type FindHit, type HitWithin } from '../../protocol/kinds/find.ts';
import { readText, shownText } from '../text.ts';
import { TEST_PATH } from '../../common/kinds-of-files.ts';
import type { MapDef } from '../map/graph.ts';
import { languageOf } from '../outline/languages.ts';
import { hasSections, sectionsOf, textLines } from './sections.ts';
import type { Result } from '../../protocol/results.ts';
import { resolvePath, type Sandbox } from '../sandbox.ts';
import { compileMask, isPlainPath } from '../mask.ts';
import type { FindOutcome, SearchFile } from '../search/finder.ts';
import type { Step } from './step.ts';

// The first files of the run searched alone, when a FIND comes before the rest are in order: the main thread's first
// chunk (search/plan.ts).
const HEAD_FILES = 256;

// All FIND texts of a step in one pass over the files; a FIND kept to a folder or mask searches its files alone. A
// text with no hits at all is looked for again ignoring the case of ASCII letters, and the result says so.
export async function answerFinds(
  requests: readonly FindRequest[],
  { box, limits, folder }: Step,
): Promise<Result[][]> {
  const options = { maxHits: limits.findHits, lineChars: limits.findLineChars };
  const whole = [...new Set(requests.filter((r) => r.scope === undefined).map((r) => r.text))];
  const found = new Map<string, FindOutcome & { alone?: string }>();
  // Each text is looked for as it is, when it has letters ignoring case, and by the longest name in it (nameIn), in the
  // same pass over the files: the folded hits are used only when the exact text has none, the name's only when neither
  // has any. A name is part of its text, so it has at least the text's hits and is cut no later: it never keeps a pass
  // going (as a search of its own after the pass, it took the Linux bench's five texts 1.44x rg's time, against 0.8-1).
  // `head`: the files are the first of the run's alone, and the outcome stands only when every text had more hits
  // there than are shown (false when it does not).
  const search = async (
    files: readonly SearchFile[],
    texts: string[],
    key: (text: string) => string,
    only?: readonly number[],
    head = false,
  ): Promise<boolean> => {
    const folded = texts.filter((t) => /[A-Za-z]/.test(t));
    const names = [...new Set(texts.flatMap((t) => nameIn(t) ?? []))];
    const fold = [...texts.map(() => false), ...folded.map(() => true), ...names.map(() => false)];
    const all = await folder.finder.find(files, [...texts, ...folded, ...names], {
      ...options,
      fold,
      ...(only === undefined ? {} : { only }),
    });
    if (head && !texts.every((_, i) => all[i]?.cut === true)) return false;
    texts.forEach((text, i) => {
      const exact = all[i];
      const other = all[texts.length + folded.indexOf(text)];
      if (exact === undefined) return;
      if (exact.hits.length > 0 || other === undefined) found.set(key(text), exact);
      else if (other.hits.length > 0) found.set(key(text), { ...other, folded: true });
      else {
        const alone = nameIn(text);
        const named = alone === undefined ? undefined : all[texts.length + folded.length + names.indexOf(alone)];
        found.set(
          key(text),
          alone !== undefined && named !== undefined && named.hits.length > 0
            ? { ...named, text: exact.text, folded: true, alone }
            : { ...other, folded: true },
        );
      }
    });
    return true;
  };
  if (whole.length > 0) {
    // Asked at once after the first message, a FIND would wait for every file to be put in its order (code, prose,
    // generated: 26 ms for the Linux source's 78,000 in a fresh process), though a common text's first hits are in
    // the first files: those are searched first, and the rest only when they were not enough (issue 30).
    const head = folder.searchableHead(HEAD_FILES);
    const done = head !== undefined && (await search(head, whole, (text) => text, undefined, true));
    if (!done) await search(folder.searchable(), whole, (text) => text);
  }
  const results: Result[][] = [];
  for (const request of requests) {
    const name = `FIND ${request.text}${request.scope === undefined ? '' : ` IN ${request.scope}`}`;
    if (request.scope !== undefined && !found.has(name)) {
      const scope = scopeOf(box, request.scope);
      if (typeof scope === 'string') {
        results.push([{ kind: 'refused', request: name, path: request.scope, reason: scope }]);
        continue;
      }
      const files = folder.searchable();
      const only = indexesIn(files, scope);
      // "No hits" in no files would say the text is not there.
      if (only.length === 0) {
        const reason = `${request.scope} holds no file FIND searches; LIST it to see what it matches`;
        results.push([{ kind: 'refused', request: name, path: request.scope, reason }]);
        continue;
      }
      await search(files, [request.text], () => name, only);
    }
    const outcome = found.get(request.scope === undefined ? request.text : name);
    results.push(
      outcome === undefined
        ? []
        : [
            {
              kind: 'find',
              request: name,
              text: outcome.text,
              hits: withAround(box, outcome.hits, limits.findLineChars),
              cut: outcome.cut,
              folded: outcome.folded === true,
              ...(outcome.alone === undefined ? {} : { alone: outcome.alone }),
            },
          ],
    );
  }
  return results;
}

// Words that are a language's, not a program's: a text's longest name is never one of them.
const KEYWORDS = new Set(
  'async await break case catch class const continue default defer delete else enum export extends false final finally function impl import interface lambda let match module mut new none null private protected public pub return self static struct super switch this throw true type typeof undefined var void where while with yield'.split(
    ' ',
  ),
);
const NAME = /[A-Za-z_$][\w$]*/g;

// The name a FIND's text is most likely after, when the text holds more than it: the longest of its names of four
// characters or more that is not a keyword (`calculateDelay` in `#calculateDelay() {`); undefined when there is none.
export function nameIn(text: string): string | undefined {
  let best: string | undefined;
  for (const [name] of text.matchAll(NAME))
    if (name.length >= 4 && !KEYWORDS.has(name.toLowerCase()) && name.length > (best?.length ?? 0)) best = name;
  return best === text ? undefined : best;
}

// A FIND of few hits shows the lines about each, in NEED's numbered form: a hit's own line seldom says enough
// (`strict_flag=True,` without the call whose flag it is), and the NEED for its neighbours cost the relay's players a
// step (issue 27). Of many hits, the few outside tests get them: a message's text is said once where it is made and a
// hundred times in tests' expectations, and the line before the one made (`INCOMPATIBLE_RETURN_VALUE_TYPE = ...`) is
// what the next FIND needs.
const AROUND_LINES = 2;
// The largest file read again for the lines about its hits: a larger one's hits go without them.
const AROUND_FILE_BYTES = 1 << 20;

// The hits, each with the lines about it when there are few of them, or when few of them lie outside tests (those). A
// hit in a line longer than a hit's text may be (minified code) goes without.
function withAround(box: Sandbox, hits: readonly FindHit[], lineChars: number): FindHit[] {
  const code = hits.length <= AROUND_HITS ? hits : hits.filter((h) => !TEST_PATH.test(h.path));
  if (code.length === 0 || code.length > AROUND_HITS) return [...hits];
  const near = new Set(code);
  const files = new Map<string, string[] | undefined>();
  const linesOf = (rel: string) => {
    if (!files.has(rel)) files.set(rel, fileLines(box, rel));
    return files.get(rel);
  };
  return hits.map((hit) => {
    const lines = near.has(hit) ? linesOf(hit.path) : undefined;
    const own = lines?.[hit.line - 1];
    if (lines === undefined || own === undefined || own.length > lineChars) return hit;
    const first = Math.max(1, hit.line - AROUND_LINES);
    const last = Math.min(lines.length, hit.line + AROUND_LINES);
    const shown = lines
      .slice(first - 1, last)
      .map((line) => (line.length > lineChars ? `${line.slice(0, lineChars)} …` : line));
    return { ...hit, around: { first, lines: shown } };
  });
}

// Each hit that begins a short definition (placeHits named it), in a FIND of few hits, with the whole definition and
// the lines before it as the lines about it.
export function wholeDefinitions(box: Sandbox, results: readonly Result[], lineChars: number): Result[] {
  return results.map((r) => {
    if (r.kind !== 'find' || r.hits.length > WHOLE_HITS) return r;
    const hits = r.hits.map((hit) => {
      const d = hit.within;
      // Its first line, or its header's past the decorators or attributes it begins with.
      const begins = d !== undefined && d.first <= hit.line && hit.line <= (d.own ?? d.first);
      if (d === undefined || !begins || hit.around === undefined || d.last - d.first >= WHOLE_LINES) return hit;
      const lines = fileLines(box, hit.path);
      if (lines === undefined || d.last > lines.length) return hit;
      const first = hit.around.first;
      const shown = lines
        .slice(first - 1, d.last)
        .map((line) => (line.length > lineChars ? `${line.slice(0, lineChars)} …` : line));
      return { ...hit, around: { first, lines: shown } };
    });
    return { ...r, hits };
  });
}

// A file's lines as NEED would send them (the one reader of text), or undefined when it is not a text file of at most
// AROUND_FILE_BYTES inside the folder.
function fileLines(box: Sandbox, rel: string): string[] | undefined {
  const place = resolvePath(box, rel);
  if (place.kind !== 'file' || place.size > AROUND_FILE_BYTES) return undefined;
  const read = readText(place.real, AROUND_FILE_BYTES);
  if (read.kind !== 'text') return undefined;
  return textLines(shownText(read.text));
}

// The most files a step reads for their sections (orSections): a common text's hundred hits may lie in a hundred docs.
const SECTIONED_FILES = 32;

// The definitions `definitionsOf` knows of a file, or, for a text file deepwork has no grammar for, its sections (its
// Markdown headings, its `[name]` lines: answer/sections.ts), read from the file as NEED would send it, in at most
// SECTIONED_FILES files a step.
export function orSections(
  box: Sandbox,
  definitionsOf: (rel: string) => readonly MapDef[] | undefined,
): (rel: string) => readonly MapDef[] | undefined {
  let read = 0;
  return (rel) => {
    const known = definitionsOf(rel);
    if (known !== undefined || languageOf(rel) !== undefined || !hasSections(rel) || read >= SECTIONED_FILES)
      return known;
    read++;
    const lines = fileLines(box, rel);
    return lines === undefined ? undefined : sectionsOf(rel, lines);
  };
}

// The indexes of the files a FIND's `IN` keeps to.
function indexesIn(files: readonly SearchFile[], scope: (rel: string) => boolean): number[] {
  const only: number[] = [];
  files.forEach((f, i) => {
    if (scope(f.rel)) only.push(i);
  });
  return only;
}

// Which files a FIND's `IN` keeps to: a folder's, a file itself, or a mask's; or why none.
function scopeOf(box: Sandbox, scope: string): ((rel: string) => boolean) | string {
  const compiled = compileMask(scope);
  if (compiled.kind === 'refused') return compiled.reason;
  if (!isPlainPath(compiled.mask)) return compiled.match;
  const place = resolvePath(box, compiled.mask);
  if (place.kind === 'folder') return place.rel === '.' ? () => true : (rel) => rel.startsWith(`${place.rel}/`);
  if (place.kind === 'file') return (rel) => rel === place.rel;
  if (place.kind === 'missing') return `there is no folder or file ${compiled.mask}; LIST shows what there is`;
  return place.reason;
}

// Each hit named with the innermost definition its line lies in, and each part of a file NEED sent with the
// definitions it lies in and cuts through, in the files whose definitions `definitionsOf` knows (those the map read,
// unchanged since): the model NEEDs that range rather than the whole file or a guess.
export function placeHits(
  results: readonly Result[],
  definitionsOf: (rel: string) => readonly MapDef[] | undefined,
): Result[] {
  const known = new Map<string, readonly MapDef[] | undefined>();
  const defsOf = (rel: string) => {
    if (!known.has(rel)) known.set(rel, definitionsOf(rel));
    return known.get(rel) ?? [];
  };
  // A definition of one line is not named for a hit on that line, which it is: "in TCP_INIT_CWND 236-236" told a
  // player nothing (issue 30); the definition around it, when there is one, is named instead.
  const place = (hit: FindHit): FindHit => {
    const best = innermost(defsOf(hit.path), hit.line, hit.line, hit.line);
    return best === undefined ? hit : { ...hit, within: spanOf(best) };
  };
  return results.map((r) => {
    if (r.kind === 'find') return { ...r, hits: r.hits.map(place) };
    // A part of a file: lines asked for, or a file cut at the step's limit.
    if (r.kind !== 'file' || (r.whole && !r.ranged)) return r;
    const defs = defsOf(r.path);
    if (defs.length === 0) return r;
    const within = innermost(defs, r.first, r.last);
    const cuts = defs
      .filter(
        (d) =>
          (d.first < r.first && d.last >= r.first && d.last < r.last) ||
          (d.first > r.first && d.first <= r.last && d.last > r.last),
      )
      .sort((a, b) => a.depth - b.depth || a.first - b.first)
      .slice(0, MAX_CUTS)
      .sort((a, b) => a.first - b.first)
      .map(spanOf);
    // A part that cuts through definitions also says the outermost it holds whole: "only part of ## Validators" alone,
    // for a range holding one whole section and the next one's first two lines, read to a player as the wrong section
    // (issue 30).
    const holds = cuts.length > 0 ? held(defs, r.first, r.last) : [];
    return {
      ...r,
      ...(within === undefined ? {} : { within: spanOf(within) }),
      ...(holds.length === 0 ? {} : { holds: holds.slice(0, MAX_HELD).map(spanOf) }),
      ...(holds.length > MAX_HELD ? { alsoHolds: holds.length - MAX_HELD } : {}),
      ...(cuts.length === 0 ? {} : { cuts }),
    };
  });
}

// Definitions a part of a file is said to cut through, at most: the outermost, which are what to ask for whole.
const MAX_CUTS = 2;
// Definitions a part is said to hold whole, at most; past them it says how many more.
const MAX_HELD = 2;

// The definitions lying whole in lines `first` to `last` and in no other that does, in the order they come.
function held(defs: readonly MapDef[], first: number, last: number): MapDef[] {
  const inside = defs
    .filter((d) => d.first >= first && d.last <= last)
    .sort((a, b) => a.first - b.first || b.last - a.last);
  const outer: MapDef[] = [];
  for (const d of inside) {
    const up = outer.at(-1);
    if (up === undefined || d.first > up.last) outer.push(d);
  }
  return outer;
}

// The files of `results` with lines placeHits could not place: FIND's hits and NEED's parts named in no definition,
// in the order they came (the map learns them for the steps after, reading/map/mapper.ts).
export function unplaced(results: readonly Result[]): string[] {
  const rels: string[] = [];
  for (const r of results) {
    if (r.kind === 'find') for (const h of r.hits) if (h.within === undefined) rels.push(h.path);
    if (r.kind === 'file' && (!r.whole || r.ranged) && r.within === undefined && r.cuts === undefined)
      rels.push(r.path);
  }
  return rels;
}

// The deepest definition holding lines first to last, but for one that is the single line `own`.
function innermost(defs: readonly MapDef[], first: number, last: number, own = 0): MapDef | undefined {
  let best: MapDef | undefined;
  for (const d of defs)
    if (
      d.first <= first &&
      last <= d.last &&
      (best === undefined || d.depth > best.depth) &&
      !(d.first === own && d.last === own)
    )
      best = d;
  return best;
}

function spanOf(d: MapDef): HitWithin {
  return d.own === undefined
    ? { name: d.name, first: d.first, last: d.last }
    : { name: d.name, first: d.first, last: d.last, own: d.own };
}
