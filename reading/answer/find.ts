// FIND: all texts of a step in one pass over the run's files, code first; a FIND kept to a folder or mask searches
// its files alone.

import type { FindRequest } from '../../protocol/requests.ts';
import type { FindHit } from '../../protocol/kinds/find.ts';
import type { MapDef } from '../map/graph.ts';
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
  const found = new Map<string, FindOutcome>();
  // Each text is looked for as it is and, when it has letters, ignoring case, in the same pass over the files: the
  // folded hits are used only when the exact text has none. `head`: the files are the first of the run's alone, and
  // the outcome stands only when every text had more hits there than are shown (false when it does not).
  const search = async (
    files: readonly SearchFile[],
    texts: string[],
    key: (text: string) => string,
    only?: readonly number[],
    head = false,
  ): Promise<boolean> => {
    const folded = texts.filter((t) => /[A-Za-z]/.test(t));
    const fold = [...texts.map(() => false), ...folded.map(() => true)];
    const all = await folder.finder.find(files, [...texts, ...folded], {
      ...options,
      fold,
      ...(only === undefined ? {} : { only }),
    });
    if (head && !texts.every((_, i) => all[i]?.cut === true)) return false;
    texts.forEach((text, i) => {
      const exact = all[i];
      const other = all[texts.length + folded.indexOf(text)];
      if (exact === undefined) return;
      found.set(key(text), exact.hits.length > 0 || other === undefined ? exact : { ...other, folded: true });
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
      const only: number[] = [];
      const files = folder.searchable();
      files.forEach((f, i) => {
        if (scope(f.rel)) only.push(i);
      });
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
              hits: outcome.hits,
              cut: outcome.cut,
              folded: outcome.folded === true,
            },
          ],
    );
  }
  return results;
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

// Each hit named with the innermost definition its line lies in, in the files whose definitions `definitionsOf` knows
// (those the map read, unchanged since): the model NEEDs that range rather than the whole file or a guess.
export function placeHits(
  results: readonly Result[],
  definitionsOf: (rel: string) => readonly MapDef[] | undefined,
): Result[] {
  const known = new Map<string, readonly MapDef[] | undefined>();
  const place = (hit: FindHit): FindHit => {
    if (!known.has(hit.path)) known.set(hit.path, definitionsOf(hit.path));
    let best: MapDef | undefined;
    for (const d of known.get(hit.path) ?? []) {
      if (d.first <= hit.line && hit.line <= d.last && (best === undefined || d.depth > best.depth)) best = d;
    }
    return best === undefined ? hit : { ...hit, within: { name: best.name, first: best.first, last: best.last } };
  };
  return results.map((r) => (r.kind === 'find' ? { ...r, hits: r.hits.map(place) } : r));
}
