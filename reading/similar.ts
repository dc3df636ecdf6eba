// The existing paths closest to one that does not exist: a model that guessed `server.js` in a `.mjs` project should
// be told `server.mjs` at once instead of spending a step on a LIST.
//
// The folder's names are prepared once per run (lower-cased name, stem, length), so a look-up is one pass of cheap
// compares; the edit distance runs only for names of about the same length.

import { editDistance } from '../common/text.ts';

export type PathIndex = { closest(wanted: string, limit?: number): string[] };

type Entry = { path: string; name: string; stem: string };

export function createPathIndex(paths: readonly string[]): PathIndex {
  const entries: Entry[] = paths.map((p) => {
    const name = baseName(p).toLowerCase();
    return { path: p, name, stem: stemOf(name) };
  });
  return {
    closest(wanted, limit = 3) {
      const name = baseName(wanted).toLowerCase();
      const stem = stemOf(name);
      const allowed = Math.max(1, Math.floor(name.length / 4));
      const scored: Array<[number, string]> = [];
      for (const e of entries) {
        if (e.path === wanted) continue;
        let score: number;
        if (e.name === name) score = 0;
        else if (e.stem === stem) score = 1;
        else {
          if (Math.abs(e.name.length - name.length) > allowed) continue;
          const distance = editDistance(name, e.name, allowed);
          if (distance > allowed) continue;
          score = 1 + distance;
        }
        // Among equals, the one sharing more of the folder path comes first.
        scored.push([score - sharedPrefix(e.path, wanted) / 1000, e.path]);
      }
      return scored
        .sort((a, b) => a[0] - b[0] || a[1].length - b[1].length)
        .slice(0, limit)
        .map(([, p]) => p);
    },
  };
}

function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

function stemOf(name: string): string {
  const dot = name.indexOf('.', 1);
  return dot === -1 ? name : name.slice(0, dot);
}

function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return Math.min(i, 999);
}
