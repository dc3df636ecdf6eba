// What the executor and the loop answer, as data, and how it reads in the next message to the model. Each request
// kind's results are in its file of protocol/kinds/; the results every kind shares, and the loop's own, are here. Every
// cut says how much was left out and what to ask for to get the rest.

import { counted, formatCount, listed } from '../common/text.ts';
import type { ResultText, ResultTexts } from './kinds/kind.ts';
import { needResults, type NeedResults } from './kinds/need.ts';
import { listResults, type ListResults } from './kinds/list.ts';
import { findResults, type FindResults } from './kinds/find.ts';
import { outlineResults, type OutlineResults } from './kinds/outline.ts';
import { mapResults, type MapResults } from './code-map.ts';
import { requestForms } from './requests.ts';
import { heading } from './wire.ts';
import { describeMiscitation, type Miscitation } from './citations.ts';
import type { PairMiss } from './edit.ts';

export type { FindHit } from './kinds/find.ts';

// The results any request kind may give, and the loop's own: what became of a proposal, a line not understood.
type SharedResults = {
  refused: { kind: 'refused'; request: string; path: string; reason: string };
  // What became of a proposal when it was checked against the file: an EDIT's pairs applied (or the first that did
  // not, with the file's closest lines and `fix`, what to send instead), a FILE or EDIT cut off before its END.
  // `kept`: an EDIT some of whose pairs applied: those kept (1-based) of `pairs`, and `more`, the misses after the first.
  edit:
    | { kind: 'edit'; request: string; path: string; ok: true; pairs: number }
    | {
        kind: 'edit';
        request: string;
        path: string;
        ok: false;
        problem: string;
        lines: string;
        fix: string;
        kept?: { pairs: number; numbers: number[] };
        more?: PairMiss[];
        places?: true;
      };
  // The FILE blocks of a reply with requests that were kept (protocol/proposals.ts, keptFiles): each one's lines, and
  // whether it makes a new file.
  'files-kept': { kind: 'files-kept'; request: string; kept: Array<{ path: string; lines: number; new: boolean }> };
  // FILE and EDIT blocks of a reply past what one reply may propose (protocol/caps.ts): never kept. `blocks`: the first
  // of them, as `FILE path`; `more`: how many more. `why`: past the number of blocks, or an EDIT that would take the
  // reply past the characters of files its EDITs may go through (`chars`: its file's; `pairs`: its pairs).
  'left-out': {
    kind: 'left-out';
    request: string;
    blocks: string[];
    more: number;
    why: { kind: 'blocks'; limit: number } | { kind: 'work'; limit: number; chars: number; pairs: number };
  };
  // A line of the reply that meant a request and was not written as one; `fix` is the request it should have been.
  unclear: { kind: 'unclear'; request: string; line: number; text: string; problem: string; fix: string | undefined };
  // The places a final answer cited that do not match the files (protocol/citations.ts), put to the model once.
  citations: { kind: 'citations'; request: string; wrong: Miscitation[] };
  // A line that meant requests and was not written as them, yet said exactly which: they were answered as `read`
  // writes them, and the model is told so once, before their results.
  'read-as': { kind: 'read-as'; request: string; line: number; read: string[]; problem: string };
};

type Results = NeedResults & ListResults & FindResults & OutlineResults & MapResults & SharedResults;
export type ResultKind = keyof Results;
export type Result = Results[ResultKind];

// Characters of a line not understood that are shown back.
const UNCLEAR_CHARS = 200;

const sharedResults: ResultTexts<SharedResults> = {
  refused: { render: (r) => heading.result(r.request, `refused: ${r.reason}`) },
  'files-kept': {
    render: (r) => {
      const one = r.kept.length === 1 ? r.kept[0] : undefined;
      const what =
        one === undefined
          ? `${counted(r.kept.length, 'file')}, ${formatCount(r.kept.filter((f) => f.new).length)} of them new`
          : `${one.new ? 'a new file' : 'the whole file, in place of what it holds now'} of ${counted(one.lines, 'line')}`;
      return heading.result(
        r.request,
        `kept (${what}), for the user to write after your final answer (do not send ${one === undefined ? 'them' : 'it'} again)`,
      );
    },
  },
  edit: {
    render: (r) => {
      if (r.ok)
        return heading.result(
          r.request,
          `${r.pairs === 1 ? 'its pair matches' : `all ${counted(r.pairs, 'pair')} match`}; kept, for the user to write after your final answer (do not send it again)`,
        );
      const closest = (lines: string, places: boolean | undefined) =>
        lines === ''
          ? ''
          : `\n${places === true ? `Around each place, in ${r.path} now` : `The closest lines of ${r.path} now`}:\n${lines}`;
      const more = (r.more ?? []).map(
        (m) =>
          `\npair ${m.pair}${r.kept === undefined ? '' : ` of ${r.kept.pairs}`}: ${m.problem}.${closest(m.lines, m.places)}`,
      );
      const misses = `${r.problem}.${closest(r.lines, r.places)}${more.join('')}`;
      if (r.kept === undefined)
        return `${heading.result(r.request, 'not kept')}\n${misses}\nNothing of this block was kept. ${r.fix}\n${heading.resultEnd}`;
      const kept = listed(r.kept.numbers);
      const status = `${r.kept.numbers.length === 1 ? 'pair' : 'pairs'} ${kept} of ${r.kept.pairs} kept, the rest not`;
      const said = `${r.kept.numbers.length === 1 ? 'Pair' : 'Pairs'} ${kept} ${r.kept.numbers.length === 1 ? 'is' : 'are'} kept, for the user to write after your final answer: the file as proposed has ${r.kept.numbers.length === 1 ? 'it' : 'them'} made, and an EDIT you send now applies to that, so do not send ${r.kept.numbers.length === 1 ? 'it' : 'them'} again.`;
      return `${heading.result(r.request, status)}\n${misses}\n${said} ${r.fix}\n${heading.resultEnd}`;
    },
  },
  'left-out': {
    render: (r) => {
      const blocks = `${r.blocks.join(', ')}${r.more > 0 ? ` and ${formatCount(r.more)} more` : ''}`;
      const limit = formatCount(r.why.limit);
      const why =
        r.why.kind === 'blocks'
          ? `One reply may propose at most ${limit} FILE or EDIT blocks; left out after the first ${limit}: ${blocks}.\nNothing of them was kept. Send what is still needed in your next reply, at most ${limit} blocks at once.`
          : `The EDIT blocks of one reply may go through at most ${limit} characters of files in all (an EDIT goes through its file once, and once more for each pair). ${r.blocks[0] ?? 'An EDIT'}, ${counted(r.why.pairs, 'pair')} on ${formatCount(r.why.chars)} characters, would go past that, so it was left out with the blocks after it: ${blocks}.\nNothing of them was kept. Send what is still needed in your next reply, and for a big file fewer pairs at once.`;
      return `${heading.result(r.request, 'not kept')}\n${why}\n${heading.resultEnd}`;
    },
  },
  unclear: {
    render: (r) => {
      const shown = r.text.length > UNCLEAR_CHARS ? `${r.text.slice(0, UNCLEAR_CHARS)}…` : r.text;
      const forms = requestForms();
      const fix =
        r.fix === undefined
          ? `Write each request on a line of its own: ${forms.slice(0, -1).join(', ')} or ${forms.at(-1) ?? ''}`
          : `Write ${r.fix.includes('\n') ? 'each' : 'it'} on a line of its own, as:\n${r.fix}`;
      return `${heading.result(r.request, 'not understood')}\n${shown}\n(${r.problem}; nothing was done for it.) ${fix}\n${heading.resultEnd}`;
    },
  },
  citations: {
    render: (r) => {
      const places = r.wrong.map((m) => `- ${describeMiscitation(m)}`).join('\n');
      const some =
        r.wrong.length === 1 ? 'One place your answer cites does' : `${r.wrong.length} places your answer cites do`;
      return `${heading.result(r.request, 'do not match the files')}\n${some} not match the files as they are:\n${places}\nGive your final answer again with these corrected (NEED the lines if you are unsure), or say why they stand.\n${heading.resultEnd}`;
    },
  },
  'read-as': {
    render: (r) => {
      const read = r.read.length === 1 ? r.read.join('') : `${r.read.slice(0, -1).join(', ')} and ${r.read.at(-1)}`;
      const next = r.read.length === 1 ? 'it so, on a line of its own' : 'them so, each on a line of its own';
      return `(Line ${r.line} was read as ${read}, answered below: ${r.problem}. Next time write ${next}.)`;
    },
  },
};

const texts: { [K in ResultKind]: ResultText<Results[K]> } = {
  ...needResults,
  ...listResults,
  ...findResults,
  ...outlineResults,
  ...mapResults,
  ...sharedResults,
};

// A result of that kind, as a mapped type whose `kind` is K itself: what the table is indexed with.
type Of<K extends ResultKind> = { [P in K]: Results[P] & { kind: P } }[K];

function textOf<K extends ResultKind>(kind: K): ResultText<Results[K]> {
  const table: { [P in ResultKind]: ResultText<Results[P]> } = texts;
  return table[kind];
}

export function renderResults(results: readonly Result[]): string {
  return results.map(renderResult).join('\n\n');
}

export function renderResult(result: Result): string {
  return render(result);
}

function render<K extends ResultKind>(result: Of<K>): string {
  return textOf<K>(result.kind).render(result);
}

// The line that stands for a result of the latest step that did not fit the window at all (`tokens`: its size; `room`:
// about what one result may take of a message): the model never saw it, so it says what to ask for instead.
export function unsentNote(result: Result, tokens: number, room: number): string {
  const advice = unsentAdvice(result, Math.min(1, room / Math.max(1, tokens)));
  return heading.result(
    result.request,
    `not sent: its ~${formatCount(tokens)} tokens do not fit the window with everything else; ${advice}`,
  );
}

function unsentAdvice<K extends ResultKind>(result: Of<K>, share: number): string {
  return (
    textOf<K>(result.kind).unsent?.(result, share) ??
    'ask for less at once (a range of lines, a longer FIND text, a narrower mask)'
  );
}

// What stands for a result sent once in the messages after the one that carried it; undefined for a result that stays.
export function onceNote(result: Result, step: number): string | undefined {
  return once(result, step);
}

function once<K extends ResultKind>(result: Of<K>, step: number): string | undefined {
  return textOf<K>(result.kind).once?.(result, step);
}

// The line that stands for a result once it is dropped to fit the window: what it was, that it was sent at `step`,
// how to get it back.
export function droppedNote(result: Result, step: number): string {
  return dropped(result, step);
}

function dropped<K extends ResultKind>(result: Of<K>, step: number): string {
  return (
    textOf<K>(result.kind).dropped?.(result, step) ?? `[The result of ${result.request} was dropped to fit the window.]`
  );
}
