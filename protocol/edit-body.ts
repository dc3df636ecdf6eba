// An EDIT block's body read into its pairs, aider's shape, which models know:
//   <<<<<<< SEARCH
//   lines as they are in the file
//   =======
//   the lines that replace them
//   >>>>>>> REPLACE
// Five to nine marker characters are taken, as models write them; text between pairs is passed over.

import type { EditPair } from './edit.ts';

const SEARCH_LINE = /^\s*<{5,9} ?SEARCH\s*$/i;
const DIVIDER_LINE = /^\s*={5,9}\s*$/;
const REPLACE_LINE = /^\s*>{5,9} ?REPLACE\s*$/i;

// The pairs, or with `problem` why the body could not be read into pairs (the block is then never applied, and the
// model is told).
export function editPairs(content: string): { pairs: EditPair[]; problem: string | undefined } {
  const pairs: EditPair[] = [];
  let state: 'outside' | 'search' | 'replace' = 'outside';
  let search: string[] = [];
  let replace: string[] = [];
  const lines = content.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (state === 'outside') {
      if (SEARCH_LINE.test(line)) {
        state = 'search';
        search = [];
      }
    } else if (state === 'search') {
      if (DIVIDER_LINE.test(line)) {
        state = 'replace';
        replace = [];
      } else if (SEARCH_LINE.test(line) || REPLACE_LINE.test(line)) {
        return { pairs, problem: `pair ${pairs.length + 1} has no ======= line between its SEARCH and its REPLACE` };
      } else {
        search.push(raw);
      }
    } else if (REPLACE_LINE.test(line)) {
      pairs.push({ search: joined(search), replace: joined(replace) });
      state = 'outside';
    } else if (SEARCH_LINE.test(line)) {
      return { pairs, problem: `pair ${pairs.length + 1} has no >>>>>>> REPLACE line before the next SEARCH` };
    } else {
      replace.push(raw);
    }
  }
  if (state !== 'outside') return { pairs, problem: `pair ${pairs.length + 1} has no >>>>>>> REPLACE line` };
  if (pairs.length === 0) return { pairs, problem: 'it holds no <<<<<<< SEARCH … ======= … >>>>>>> REPLACE pair' };
  return { pairs, problem: undefined };
}

function joined(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
