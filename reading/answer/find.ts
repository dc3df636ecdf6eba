// FIND: all texts of a step in one pass over the run's files, code first; a FIND kept to a folder or mask searches
// its files alone.

import type { FindRequest } from '../../protocol/requests.ts';
import type { Result } from '../../protocol/results.ts';
import { resolvePath, type Sandbox } from '../sandbox.ts';
import { compileMask, isPlainPath } from '../mask.ts';
import type { FindOutcome } from '../search/finder.ts';
import type { Step } from './step.ts';

// All FIND texts of a step in one pass over the files; a FIND kept to a folder or mask searches its files alone. A
// text with no hits at all is looked for again ignoring the case of ASCII letters, and the result says so.
export async function answerFinds(
  requests: readonly FindRequest[],
  { box, limits, folder }: Step,
): Promise<Result[][]> {
  const options = { maxHits: limits.findHits, lineChars: limits.findLineChars };
  const files = folder.searchable();
  const whole = [...new Set(requests.filter((r) => r.scope === undefined).map((r) => r.text))];
  const found = new Map<string, FindOutcome>();
  // Each text is looked for as it is and, when it has letters, ignoring case, in the same pass over the files: the
  // folded hits are used only when the exact text has none.
  const search = async (texts: string[], key: (text: string) => string, only?: readonly number[]) => {
    const folded = texts.filter((t) => /[A-Za-z]/.test(t));
    const fold = [...texts.map(() => false), ...folded.map(() => true)];
    const all = await folder.finder.find(files, [...texts, ...folded], {
      ...options,
      fold,
      ...(only === undefined ? {} : { only }),
    });
    texts.forEach((text, i) => {
      const exact = all[i];
      const other = all[texts.length + folded.indexOf(text)];
      if (exact === undefined) return;
      found.set(key(text), exact.hits.length > 0 || other === undefined ? exact : { ...other, folded: true });
    });
  };
  if (whole.length > 0) await search(whole, (text) => text);
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
      files.forEach((f, i) => {
        if (scope(f.rel)) only.push(i);
      });
      await search([request.text], () => name, only);
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
