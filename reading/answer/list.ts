// LIST: the paths of the run's walk that match a mask; a plain folder path lists what is in it.

import type { ListRequest } from '../../protocol/requests.ts';
import type { Result } from '../../protocol/results.ts';
import { resolvePath, type Sandbox } from '../sandbox.ts';
import { compileMask, isPlainPath } from '../mask.ts';
import type { Limits } from '../../protocol/contract.ts';
import type { Answerer, Folder } from './step.ts';
import type { WalkEntry } from '../walk.ts';

export const answerLists: Answerer<'list'> = (requests: readonly ListRequest[], step) =>
  requests.map((r) => [list(step.box, step.limits, step.folder, r.mask)]);

function list(box: Sandbox, limits: Limits, folder: Folder, raw: string): Result {
  const request = `LIST ${raw}`;
  const compiled = compileMask(raw);
  if (compiled.kind === 'refused') return { kind: 'refused', request, path: raw, reason: compiled.reason };

  // A plain folder path lists what is inside it; a plain file path lists itself when it exists.
  let { mask, base, match } = compiled;
  if (isPlainPath(mask)) {
    const place = resolvePath(box, mask);
    if (place.kind === 'folder')
      return { ...list(box, limits, folder, place.rel === '.' ? '**' : `${place.rel}/**`), request };
    if (place.kind !== 'file') return { kind: 'list', request, mask, paths: [], total: 0 };
    base = '.';
    match = (rel) => rel === place.rel;
  }

  const start = resolvePath(box, base);
  if (start.kind !== 'folder') return { kind: 'list', request, mask, paths: [], total: 0 };
  const prefix = start.rel === '.' ? '' : `${start.rel}/`;
  const paths: string[] = [];
  let total = 0;
  // The walk's entries, folders passed over, rather than a list of its files made for this. `*.ext` and `**/*.ext`
  // look at each entry's name alone: a path is two strings joined until something reads it whole, and the first to
  // read 200,000 of them (a regular expression here) paid 50-60 ms for joining them (issue 30).
  const byName = compiled.byName;
  const matches =
    byName === undefined
      ? (entry: WalkEntry) => entry.rel.startsWith(prefix) && match(entry.rel)
      : (entry: WalkEntry) => entry.name.endsWith(byName.ending) && (byName.anyFolder || entry.parent === -1);
  for (const entry of folder.entries()) {
    if (entry.kind !== 'file' || !matches(entry)) continue;
    total++;
    if (paths.length < limits.listPaths) paths.push(entry.rel);
  }
  return { kind: 'list', request, mask, paths, total };
}
