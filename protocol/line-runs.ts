// Where a run of lines stands in a longer list, in time that grows with the list plus the run, never with their
// product: what an EDIT's SEARCH is matched with, exactly or loosely, and what tells why one did not match.

// Where `wanted` stands as a run in a list of `length` items, `same(i, j)` saying whether item i equals wanted[j]:
// the first four starts, overlapping runs counted. Knuth-Morris-Pratt: each item is passed once, and after a mismatch
// the scan goes on from what of `wanted` is known to match, instead of comparing again from the next start. So the
// work grows with the file plus the SEARCH, never with their product: trying every start took 2 s for a SEARCH of
// 4,000 equal lines in a file of 8,000 such lines, four times that at each doubling (issue 23). `next(i)`: the first
// item at or after i that can start a run, or -1.
export function runsOf(
  length: number,
  wanted: readonly string[],
  same: (i: number, j: number) => boolean,
  next: (i: number) => number,
): number[] {
  const m = wanted.length;
  const found: number[] = [];
  if (m === 0 || m > length) return found;
  // back[j]: the length of the longest proper prefix of wanted[0..j] that is also a suffix of it.
  const back = new Int32Array(m);
  for (let j = 1, k = 0; j < m; j++) {
    while (k > 0 && wanted[j] !== wanted[k]) k = back[k - 1] ?? 0;
    if (wanted[j] === wanted[k]) k++;
    back[j] = k;
  }
  for (let i = 0, j = 0; i < length && found.length < 4; i++) {
    if (j === 0) {
      i = next(i);
      if (i === -1) break;
    }
    for (;;) {
      if (same(i, j)) {
        j++;
        break;
      }
      if (j === 0) break;
      j = back[j - 1] ?? 0;
    }
    if (j === m) {
      found.push(i - m + 1);
      j = back[m - 1] ?? 0;
    }
  }
  return found;
}

// Where `wanted` stands in `lines` (whose hashes are `hashes`): the first four starts. The lines themselves are
// compared only where their hashes agree, and a start is looked for natively, by the hash of the first line wanted.
export function linesRuns(lines: readonly string[], hashes: readonly number[], wanted: readonly string[]): number[] {
  const wantedHashes = wanted.map(hashOf);
  const first = wantedHashes[0] ?? 0;
  const same = (i: number, j: number) => hashes[i] === wantedHashes[j] && lines[i] === wanted[j];
  return runsOf(lines.length, wanted, same, (i) => hashes.indexOf(first, i));
}

// FNV-1a over a line's UTF-16 units.
export function hashOf(line: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < line.length; i++) h = Math.imul(h ^ line.charCodeAt(i), 0x01000193);
  return h | 0;
}
