// What the executor answers, as data, and how it reads in the next message to the model. Every cut says how much was
// left out and what to ask for to get the rest.

import { counted, formatCount } from '../common/text.ts';

export type FindHit = { path: string; line: number; text: string };

export type Result =
  // `key` names the file and range asked for: the same key later is the same text.
  // `encoding`: the file's encoding when it is not UTF-8 (the text is decoded from it).
  | { kind: 'file'; request: string; path: string; key: string; text: string; first: number; last: number; whole: boolean; rest: { lines: number; chars: number; exact: boolean }; ranged: boolean; encoding: string | undefined }
  // `controlNames`: entries left out because their names hold control characters.
  | { kind: 'folder'; request: string; path: string; entries: string[]; more: number; controlNames: number }
  // `what`: what the file is, or why it is taken as binary.
  | { kind: 'binary'; request: string; path: string; bytes: number; what: string }
  // `mask`: the path is a mask (`lib/*.js`), which NEED does not take.
  | { kind: 'missing'; request: string; path: string; closest: string[]; mask: boolean }
  | { kind: 'refused'; request: string; path: string; reason: string }
  | { kind: 'withheld'; request: string; path: string; reason: string }
  | { kind: 'over-budget'; request: string; path: string; limit: number }
  // Sent already: above in this step, or at an earlier step whose result is still in the message.
  | { kind: 'repeated'; request: string; path: string; step?: number }
  | { kind: 'too-many'; request: string; paths: string[]; limit: number }
  | { kind: 'list'; request: string; mask: string; paths: string[]; total: number }
  // `folded`: the exact text had no hits, and these are its hits ignoring the case of ASCII letters.
  | { kind: 'find'; request: string; text: string; hits: FindHit[]; cut: boolean; folded: boolean }
  // What became of a proposal when it was checked against the file: an EDIT's pairs applied (or the first that did
  // not, with the file's closest lines), a FILE or EDIT cut off before its END.
  | { kind: 'edit'; request: string; path: string; ok: true; pairs: number }
  // `fix`: what to send instead.
  | { kind: 'edit'; request: string; path: string; ok: false; problem: string; lines: string; fix: string }
  // FILE and EDIT blocks of a reply past what one reply may propose (protocol/caps.ts): never kept. `blocks`: the first
  // of them, as `FILE path`; `more`: how many more. `why`: past the number of blocks, or an EDIT that would take the
  // reply past the characters of files its EDITs may go through (`chars`: its file's; `pairs`: its pairs).
  | { kind: 'left-out'; request: string; blocks: string[]; more: number; why: { kind: 'blocks'; limit: number } | { kind: 'work'; limit: number; chars: number; pairs: number } }
  // A line of the reply that meant a request and was not written as one; `fix` is the request it should have been.
  | { kind: 'unclear'; request: string; line: number; text: string; problem: string; fix: string | undefined };

export function renderResults(results: readonly Result[]): string {
  return results.map(renderResult).join('\n\n');
}

export function renderResult(r: Result): string {
  switch (r.kind) {
    case 'file': {
      // Line numbers as the request syntax writes them (lines 1289-1335), so the model can ask with them as they are.
      const lines = r.ranged || !r.whole ? `lines ${r.first}-${r.last}` : `${count(r.last)} line${r.last === 1 ? '' : 's'}`;
      const span = r.encoding === undefined ? lines : `${lines}, read from ${r.encoding}`;
      const body = numberLines(r.text, r.first);
      const note = r.whole ? '' : `${cutNote(r)}\n`;
      return `${head(r.request, span)}\n${body}${note}${END}`;
    }
    case 'folder': {
      const more = r.more > 0 ? `\n[${count(r.more)} more entries not shown]` : '';
      const left = r.controlNames > 0 ? `\n[${counted(r.controlNames, 'entry', 'entries')} left out: control characters in the name, which deepwork does not send]` : '';
      return `${head(r.request, `a folder, ${counted(r.entries.length + r.more, 'entry', 'entries')}`)}\n${r.entries.join('\n')}${more}${left}\n${END}`;
    }
    case 'binary':
      return head(r.request, `binary (${r.what}), ${count(r.bytes)} bytes; not sent`);
    case 'missing': {
      if (r.mask) return head(r.request, `no such file; NEED takes paths, not masks: ask LIST ${r.path} for the paths it matches`);
      const closest = r.closest.length > 0 ? `; closest existing paths: ${r.closest.join(', ')}` : '';
      return head(r.request, `no such file${closest}`);
    }
    case 'refused':
      return head(r.request, `refused: ${r.reason}`);
    case 'withheld':
      return head(r.request, `withheld: ${r.reason}`);
    case 'over-budget':
      return head(r.request, `not sent: this step's ${count(r.limit)} characters are used up; ask for it again in the next step`);
    case 'repeated':
      return head(r.request, r.step === undefined ? 'sent above already' : `already sent at step ${r.step}, above`);
    case 'too-many': {
      const shown = r.paths.slice(0, 20).join(', ');
      const more = r.paths.length > 20 ? ` and ${count(r.paths.length - 20)} more` : '';
      return head(r.request, `not read: one step reads at most ${count(r.limit)} paths; ask for these in the next step: ${shown}${more}`);
    }
    case 'list': {
      if (r.total === 0) {
        const hint = r.mask.includes('/') ? '' : `; a mask without "/" looks in the top folder only, **/${r.mask} looks in every folder`;
        return head(r.request, `no paths match${hint}`);
      }
      const cut = r.paths.length < r.total ? `\n[cut: ${count(r.paths.length)} of ${count(r.total)} paths shown; narrow the mask to see the rest]` : '';
      return `${head(r.request, counted(r.total, 'path'))}\n${r.paths.join('\n')}${cut}\n${END}`;
    }
    case 'edit': {
      if (r.ok) return head(r.request, `all ${counted(r.pairs, 'pair')} match; kept, to be written with the other proposals`);
      const lines = r.lines === '' ? '' : `\nThe closest lines of ${r.path} now:\n${r.lines}`;
      return `${head(r.request, 'not kept')}\n${r.problem}.${lines}\nNothing of this block was kept. ${r.fix}\n${END}`;
    }
    case 'left-out': {
      const blocks = `${r.blocks.join(', ')}${r.more > 0 ? ` and ${count(r.more)} more` : ''}`;
      const limit = count(r.why.limit);
      const why = r.why.kind === 'blocks'
        ? `One reply may propose at most ${limit} FILE or EDIT blocks; left out after the first ${limit}: ${blocks}.\nNothing of them was kept. Send what is still needed in your next reply, at most ${limit} blocks at once.`
        : `The EDIT blocks of one reply may go through at most ${limit} characters of files in all (an EDIT goes through its file once, and once more for each pair). ${r.blocks[0] ?? 'An EDIT'}, ${counted(r.why.pairs, 'pair')} on ${count(r.why.chars)} characters, would go past that, so it was left out with the blocks after it: ${blocks}.\nNothing of them was kept. Send what is still needed in your next reply, and for a big file fewer pairs at once.`;
      return `${head(r.request, 'not kept')}\n${why}\n${END}`;
    }
    case 'unclear': {
      const shown = r.text.length > UNCLEAR_CHARS ? `${r.text.slice(0, UNCLEAR_CHARS)}…` : r.text;
      const fix = r.fix === undefined
        ? 'Write each request on a line of its own: === NEED: path ===, === LIST: mask === or === FIND: text ==='
        : `Write it on a line of its own, as:\n${r.fix}`;
      return `${head(r.request, 'not understood')}\n${shown}\n(${r.problem}; nothing was done for it.) ${fix}\n${END}`;
    }
    case 'find': {
      if (r.hits.length === 0) return head(r.request, r.folded ? 'no hits, also ignoring case' : 'no hits');
      const lines = r.hits.map((h) => `${h.path}:${h.line}: ${h.text}`).join('\n');
      const cut = r.cut ? `\n[cut: the first ${count(r.hits.length)} hits shown and the search stopped there; FIND a longer text, keep it to a folder (IN src/) or NEED a file to see more]` : '';
      const hits = r.cut ? `${count(r.hits.length)}+ hits` : counted(r.hits.length, 'hit');
      return `${head(r.request, r.folded ? `no exact hits; ${hits} ignoring case` : hits)}\n${lines}${cut}\n${END}`;
    }
  }
}

const END = '=== END RESULT ===';

// A file's lines as sent, each after its number: `12 | text`. The numbers let the model cite lines and ask for exact
// ranges; they are not part of the file, and a FILE block that copies them has them taken off (see parse.ts).
export function numberLines(text: string, first: number): string {
  let out = '';
  let n = first;
  for (let at = 0; at < text.length; n++) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 ? text.length : nl;
    out += end === at ? `${n} |\n` : `${n} | ${text.slice(at, end)}\n`;
    at = end + 1;
  }
  return out;
}

// Characters of a line not understood that are shown back.
const UNCLEAR_CHARS = 200;

function head(request: string, what: string): string {
  return `=== RESULT ${request}: ${what} ===`;
}

function cutNote(r: Extract<Result, { kind: 'file' }>): string {
  const next = r.last + 1;
  const lines = r.rest.lines > 0 ? `lines ${next}-${r.last + r.rest.lines}` : 'the rest of the line';
  const chars = `${r.rest.exact ? '' : 'about '}${count(r.rest.chars)} characters`;
  const ask = `=== NEED: ${r.path}:${next}-${r.last + Math.max(r.rest.lines, 1)} ===`;
  return `[cut here: ${lines} (${chars}) not sent, over this step's limit. Ask ${ask} for the rest.]`;
}

const count = formatCount;
