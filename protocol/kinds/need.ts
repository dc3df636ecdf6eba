// NEED: files whole, or a range of their lines, each line after its number; a folder's entries.

import { counted, formatCount } from '../../common/text.ts';
import { numberLines } from '../line-numbers.ts';
import { cleanPath } from '../paths.ts';
import { heading } from '../wire.ts';
import type { HitWithin } from './find.ts';
import type { Kind, ResultTexts } from './kind.ts';

export type NeedRequest = { kind: 'need'; line: number; paths: string[] };

// What NEED answers for one path.
export type NeedResults = {
  // `key` names the file and range asked for: the same key later is the same text.
  // `encoding`: the file's encoding when it is not UTF-8 (the text is decoded from it).
  file: {
    kind: 'file';
    request: string;
    path: string;
    key: string;
    text: string;
    first: number;
    last: number;
    whole: boolean;
    rest: { lines: number; chars: number; exact: boolean };
    ranged: boolean;
    encoding: string | undefined;
    // The range asked ran past the file's end, which is `last`.
    pastEnd?: boolean;
    // The file's lines, for a range of a file that is not too large to count them.
    of?: number;
    // Where the lines sent stand among the file's definitions, when the map has read the file (as FIND's hits):
    // `within`, the innermost definition holding them all; `cuts`, the definitions they hold only part of, which go on
    // before or after them, the outermost first.
    // `holds`, when it cuts through definitions: the outermost it holds whole, the first few, and `alsoHolds` how many
    // more.
    within?: HitWithin;
    holds?: HitWithin[];
    alsoHolds?: number;
    cuts?: HitWithin[];
    // OUTLINE gives the file's definitions (deepwork has its language's grammar).
    outlined?: true;
  };
  // `controlNames`: entries left out because their names hold control characters.
  folder: { kind: 'folder'; request: string; path: string; entries: string[]; more: number; controlNames: number };
  // `what`: what the file is, or why it is taken as binary.
  binary: { kind: 'binary'; request: string; path: string; bytes: number; what: string };
  // `mask`: the path is a mask (`lib/*.js`), which NEED does not take.
  missing: { kind: 'missing'; request: string; path: string; closest: string[]; mask: boolean };
  withheld: { kind: 'withheld'; request: string; path: string; reason: string };
  'over-budget': { kind: 'over-budget'; request: string; path: string; limit: number };
  // Sent already: above in this step, or at an earlier step whose result is still in the message.
  repeated: { kind: 'repeated'; request: string; path: string; step?: number };
  'too-many': { kind: 'too-many'; request: string; paths: string[]; limit: number };
};

export const need: Kind<NeedRequest> = {
  keyword: 'NEED',
  form: 'path',
  synonyms: ['read', 'open', 'show', 'cat', 'view', 'get'],
  read: (payload, line) => {
    const paths = [
      ...new Set(
        payload
          .split(',')
          .map(cleanPath)
          .filter((p) => p !== ''),
      ),
    ];
    return paths.length > 0 ? { kind: 'need', paths, line } : undefined;
  },
  describe: (r) => `NEED ${r.paths.join(', ')}`,
  teach: [
    '=== NEED: src/app.js, package.json ===',
    '  sends these files whole, each line after its number: `12 | code`. Part of a file: `=== NEED: src/big.js:200-400 ===`;',
    '  several parts at once: `=== NEED: src/big.js:1-40, src/big.js:200-400 ===`.',
  ].join('\n'),
};

const head = heading.result;
const END = heading.resultEnd;
// The fewest lines a range offered in place of a file too big for the window spans.
const MIN_RANGE = 20;

export const needResults: ResultTexts<NeedResults> = {
  file: {
    render: (r) => {
      // Line numbers as the request syntax writes them (lines 1289-1335), so the model can ask with them as they are.
      const lines =
        r.ranged || !r.whole ? `lines ${r.first}-${r.last}` : `${formatCount(r.last)} line${r.last === 1 ? '' : 's'}`;
      const ended =
        r.pastEnd === true ? `${lines}, the last of the file` : r.of === undefined ? lines : `${lines} of ${r.of}`;
      const placed = placeOf(r);
      const span = r.encoding === undefined ? `${ended}${placed}` : `${ended}${placed}, read from ${r.encoding}`;
      const note = r.whole ? '' : `${cutNote(r)}\n`;
      return `${head(r.request, span)}\n${numberLines(r.text, r.first)}${note}${END}`;
    },
    dropped: (r, step) =>
      `[${r.path} lines ${r.first}-${r.last} were sent at step ${step} and dropped to fit the window; ask again if needed.]`,
    // The file's lines and a range of them that fits, and its outline where there is one: told only "ask for less",
    // a model has to guess at a range. Lines too few to offer fewer of: the generic advice.
    unsent: (r, share) => {
      const span = r.last - r.first + 1;
      const fits = Math.max(MIN_RANGE, Math.floor(span * share));
      if (fits >= span) return undefined;
      const lines = r.whole && !r.ranged ? `its ${formatCount(r.last)} lines` : `lines ${r.first}-${r.last}`;
      const range = `\`${r.path}:${r.first}-${r.first + fits - 1}\``;
      const outline = r.outlined === true ? `, or OUTLINE ${r.path} for its definitions and their lines` : '';
      return `ask for a part of ${lines} at a time (${range})${outline}`;
    },
  },
  folder: {
    render: (r) => {
      const more = r.more > 0 ? `\n[${formatCount(r.more)} more entries not shown]` : '';
      const left =
        r.controlNames > 0
          ? `\n[${counted(r.controlNames, 'entry', 'entries')} left out: control characters in the name, which deepwork does not send]`
          : '';
      return `${head(r.request, `a folder, ${counted(r.entries.length + r.more, 'entry', 'entries')}`)}\n${r.entries.join('\n')}${more}${left}\n${END}`;
    },
    dropped: (r, step) =>
      `[The listing of ${r.path}/ was sent at step ${step} and dropped to fit the window; ask again if needed.]`,
  },
  binary: { render: (r) => head(r.request, `binary (${r.what}), ${formatCount(r.bytes)} bytes; not sent`) },
  missing: {
    render: (r) => {
      if (r.mask)
        return head(
          r.request,
          `no such file; NEED takes paths, not masks: ask LIST ${r.path} for the paths it matches`,
        );
      const closest = r.closest.length > 0 ? `; closest existing paths: ${r.closest.join(', ')}` : '';
      return head(r.request, `no such file${closest}`);
    },
  },
  withheld: { render: (r) => head(r.request, `withheld: ${r.reason}`) },
  'over-budget': {
    render: (r) =>
      head(
        r.request,
        `not sent: this step's ${formatCount(r.limit)} characters are used up; ask for it again in the next step`,
      ),
  },
  repeated: {
    render: (r) =>
      head(r.request, r.step === undefined ? 'sent above already' : `already sent at step ${r.step}, above`),
  },
  'too-many': {
    render: (r) => {
      const shown = r.paths.slice(0, 20).join(', ');
      const more = r.paths.length > 20 ? ` and ${formatCount(r.paths.length - 20)} more` : '';
      return head(
        r.request,
        `not read: one step reads at most ${formatCount(r.limit)} paths; ask for these in the next step: ${shown}${more}`,
      );
    },
  },
};

// What a file cut at the step's limit says of the rest, and the request that gets it.
// ` (in start 120-188; only part of parse 150-230)`, ` (holds ## Setup 1-40 whole; only part of ## Usage 41-90)`:
// what the model asks next for a whole definition rather than guessing. "cuts parse 150-230", as it was, took a player
// a moment to read (issue 30).
function placeOf(r: NeedResults['file']): string {
  const span = (d: HitWithin) => `${d.name} ${d.first}-${d.last}`;
  const more = r.alsoHolds === undefined ? '' : ` and ${formatCount(r.alsoHolds)} more`;
  const said = [
    ...(r.within === undefined ? [] : [`in ${span(r.within)}`]),
    ...(r.holds === undefined ? [] : [`holds ${r.holds.map(span).join(', ')}${more} whole`]),
    ...(r.cuts === undefined || r.cuts.length === 0 ? [] : [`only part of ${r.cuts.map(span).join(', ')}`]),
  ];
  return said.length === 0 ? '' : ` (${said.join('; ')})`;
}

function cutNote(r: NeedResults['file']): string {
  const next = r.last + 1;
  const lines = r.rest.lines > 0 ? `lines ${next}-${r.last + r.rest.lines}` : 'the rest of the line';
  const chars = `${r.rest.exact ? '' : 'about '}${formatCount(r.rest.chars)} characters`;
  const ask = `=== NEED: ${r.path}:${next}-${r.last + Math.max(r.rest.lines, 1)} ===`;
  return `[cut here: ${lines} (${chars}) not sent, over this step's limit. Ask ${ask} for the rest.]`;
}
