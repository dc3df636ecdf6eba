// How much one reply may propose. A real reply proposes a handful of files and a real EDIT holds a few pairs; the caps
// leave a wide margin above that, and bound what one reply can cost: a reply of 100,000 FILE blocks kept deepwork busy
// for minutes, and so did an EDIT of 100,000 pairs (issue 23). What goes past a cap is not kept, and the next message
// tells the model so, with the cap.

import { formatCount } from '../common/text.ts';

// FILE and EDIT blocks taken from one reply, in the order they stand; those after are left out.
export const MAX_PROPOSALS_PER_REPLY = 100;

// SEARCH/REPLACE pairs one EDIT block may hold; an EDIT with more is not applied at all.
export const MAX_PAIRS_PER_EDIT = 100;

// Characters of files the EDIT blocks of one reply may go through in all: an EDIT goes through its file once to read
// it into lines, and once more for each pair (to find its SEARCH, and to be sure it is found once). Within the caps
// above, 100 EDITs of 100 pairs each on a 16 MB file would go through 160 GB: minutes, and the same again for the
// preview. This much took half a second at worst (two-character lines); 10 EDITs of 20 pairs on 1 MB files each take
// 210 MB of it. The EDIT that would go past it is left out, with the blocks after it.
export const MAX_EDIT_CHARS_PER_REPLY = 500_000_000;

// What an EDIT of `pairs` pairs on a file of `chars` characters counts against MAX_EDIT_CHARS_PER_REPLY.
export function editWork(chars: number, pairs: number): number {
  return chars * (pairs + 1);
}

// Why an EDIT with too many pairs is not applied.
export function tooManyPairs(pairs: number): string {
  return `it holds ${formatCount(pairs)} SEARCH/REPLACE pairs, and one EDIT takes at most ${formatCount(MAX_PAIRS_PER_EDIT)}`;
}
