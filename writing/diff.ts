// Line counts and a unified diff of a proposed change, with a bound: a whole 20,000-line file rewritten would cost
// the diff algorithm minutes of CPU (its cost grows with the file's length times the number of changes), and the
// pult's event loop with it. Past the bound the change is summed up as "rewritten" instead.

import { formatPatch, FILE_HEADERS_ONLY, structuredPatch } from 'diff';
import { countLines } from '../common/text.ts';

// Changed lines beyond which a diff is not worked out, and a time bound for a long file with fewer changes.
const MAX_EDIT_LENGTH = 1_000;
const MAX_DIFF_MS = 500;
// Diff lines shown; the rest are counted.
const MAX_SHOWN = 200;

export type Change = { added: number; removed: number; diff: string };

export function diffTexts(rel: string, before: string, after: string): Change {
  if (before === '') return wholeFile(rel, after, '+');
  const patch = structuredPatch(`a/${rel}`, `b/${rel}`, before, after, undefined, undefined, {
    context: 3,
    maxEditLength: MAX_EDIT_LENGTH,
    timeout: MAX_DIFF_MS,
  });
  if (patch === undefined) {
    const [removed, added] = [countLines(before), countLines(after)];
    return {
      added,
      removed,
      diff: `rewritten: ${removed} lines → ${added} lines (too many changes to show as a diff)`,
    };
  }
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { added, removed, diff: shown(formatPatch(patch, FILE_HEADERS_ONLY).replace(/\n$/, '').split('\n')) };
}

// A new file's diff without the diff algorithm: every line is added.
function wholeFile(rel: string, text: string, sign: '+'): Change {
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  // As git writes a new file's diff: nothing before it.
  const head = ['--- /dev/null', `+++ b/${rel}`, `@@ -0,0 +1,${lines.length} @@`];
  const body = lines.slice(0, MAX_SHOWN).map((line) => sign + line.replace(/\r$/, ''));
  const tail = text !== '' && !text.endsWith('\n') ? ['\\ No newline at end of file'] : [];
  const diff = shown(
    [...head, ...body, ...(lines.length > MAX_SHOWN ? [] : tail)],
    lines.length + head.length + tail.length,
  );
  return { added: lines.length, removed: 0, diff };
}

function shown(lines: readonly string[], total = lines.length): string {
  return total > MAX_SHOWN
    ? `${lines.slice(0, MAX_SHOWN).join('\n')}\n… ${total - MAX_SHOWN} more diff lines`
    : lines.join('\n');
}
