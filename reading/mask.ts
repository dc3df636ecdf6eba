// LIST masks: picomatch syntax (`*`, `**`, `?`, `[...]`, braces), compiled with limits that keep matching fast.
//
// picomatch turns a mask into a backtracking regular expression, and some masks make it explode: `a*a*a*a*a*b` tried
// on a long name runs for minutes. The limits below keep every compiled mask polynomial with a small degree; a mask
// over them is refused with the reason, never run.

import { createRequire } from 'node:module';
import { normalizeRequest } from './sandbox.ts';

// picomatch, loaded at the first mask: a run that never LISTs or FINDs in a mask never pays for it (about 12 ms).
let loaded: typeof import('picomatch') | undefined;
function picomatch(): typeof import('picomatch') {
  loaded ??= createRequire(import.meta.url)('picomatch') as typeof import('picomatch');
  return loaded;
}

export const MASK_LIMITS = { length: 300, starsPerSegment: 2, stars: 6, globstars: 4, braces: 4 } as const;

// `byName`: for `*.ext` and `**/*.ext`, how an entry of the walk matches by its name alone (the walk leaves out names
// holding line breaks, `.` and `..`, which is all the expression checks in the folders): its ending, and whether it may
// lie in any folder or only at the top.
export type Mask =
  | {
      kind: 'mask';
      mask: string;
      base: string;
      match: (rel: string) => boolean;
      byName?: { ending: string; anyFolder: boolean };
    }
  | { kind: 'refused'; reason: string };

export function compileMask(raw: string): Mask {
  const simple = simplify(raw.trim().replaceAll('\\', '/'));
  // A mask of folders, `source/{core,utils}/`, stands for what they hold, as a folder's path does: taken as a mask of
  // paths it matched none, and a relay player believed the "no hits" of a FIND kept to it.
  const mask = simple.endsWith('/') && !isPlainPath(simple) ? `${simple}**` : simple;
  if (mask.length > MASK_LIMITS.length)
    return { kind: 'refused', reason: `the mask is longer than ${MASK_LIMITS.length} characters` };
  const tooComplex = complexity(mask);
  if (tooComplex !== undefined)
    return { kind: 'refused', reason: `the mask is too complex (${tooComplex}); use a simpler one` };
  const shape = BY_ENDING.exec(mask);
  if (shape !== null) {
    const [, anyFolder, ending = ''] = shape;
    const byEnding = endingExpression(anyFolder !== undefined, ending);
    return {
      kind: 'mask',
      mask,
      base: '.',
      match: (rel) => rel === mask || byEnding.test(rel),
      byName: { ending, anyFolder: anyFolder !== undefined },
    };
  }

  const scan = picomatch().scan(mask);
  const base = scan.base === '' ? '.' : scan.base;
  const normal = normalizeRequest(base);
  if ('reason' in normal) return { kind: 'refused', reason: normal.reason };
  if (mask.split('/').includes('..')) return { kind: 'refused', reason: '".." leads out of the project folder' };

  // The mask's regular expression tried directly, as picomatch's matcher tries it (the mask itself first), without the
  // object of details the matcher builds for each path: a LIST of 200,000 paths took 26 ms through it, 8 through this.
  const regex = picomatch().makeRe(mask, { dot: true, noextglob: true, windows: process.platform === 'win32' });
  return { kind: 'mask', mask, base: normal.rel, match: (rel) => rel === mask || regex.test(rel) };
}

// `*.ext` and `**/*.ext`, the masks models write most (`*.py`, `**/*.d.ts`), matched without loading picomatch, which
// took about 12 ms of the step that first used a mask (issue 30). The expression matches what picomatch's does with
// `dot: true` (test/mask.test.ts holds the two to the same answers): a name that ends with the ending, then at most one
// slash, and does not begin with a line break (picomatch's `(?=.)`); for `**/`, any folders before it, none of them
// `.` or `..` nor holding a line break (its `**` is made of `.`, which matches none). The ending is word characters,
// dots and dashes after a dot and a word character, so that the name is never `.` or `..` itself.
const BY_ENDING = /^(\*\*\/)?\*(\.\w[\w.-]*)$/;
const LINE_BREAKS = '\\n\\r\\u2028\\u2029';

function endingExpression(anyFolder: boolean, ending: string): RegExp {
  const folders = anyFolder ? `(?:(?!\\.\\.?/)[^${LINE_BREAKS}/]*/)*` : '';
  return new RegExp(`^${folders}(?![${LINE_BREAKS}])[^/]*${ending.replaceAll('.', '\\.')}/?$`);
}

// Drops `./` in front and folds runs of `**` segments into one: `**/**/x` means `**/x`.
function simplify(mask: string): string {
  const parts: string[] = [];
  for (const part of mask.split('/')) {
    if (part === '.' && parts.length === 0) continue;
    const segment = /^\*+$/.test(part) && part.length > 1 ? '**' : part;
    if (segment === '**' && parts.at(-1) === '**') continue;
    parts.push(segment);
  }
  return parts.join('/');
}

function complexity(mask: string): string | undefined {
  let stars = 0;
  let globstars = 0;
  for (const segment of mask.split('/')) {
    if (segment === '**') {
      globstars++;
      continue;
    }
    const inSegment = [...segment].filter((c) => c === '*').length;
    if (inSegment > MASK_LIMITS.starsPerSegment) return `more than ${MASK_LIMITS.starsPerSegment} * in one name`;
    stars += inSegment;
  }
  if (stars > MASK_LIMITS.stars) return `more than ${MASK_LIMITS.stars} * in all`;
  if (globstars > MASK_LIMITS.globstars) return `more than ${MASK_LIMITS.globstars} **`;
  const braces = [...mask].filter((c) => c === '{').length;
  if (braces > MASK_LIMITS.braces) return `more than ${MASK_LIMITS.braces} {…} groups`;
  return undefined;
}

// Whether a mask has glob syntax at all; a plain path names one file or folder.
export function isPlainPath(mask: string): boolean {
  return !BY_ENDING.test(mask) && !picomatch().scan(mask).isGlob;
}
