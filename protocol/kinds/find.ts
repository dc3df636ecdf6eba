// FIND: where a literal text occurs, as `path:line: text`, code before tests and docs; kept to a folder or mask with IN.

import { counted, formatCount } from '../../common/text.ts';
import { cleanPath, unwrap } from '../paths.ts';
import { numberLines } from '../line-numbers.ts';
import { heading } from '../wire.ts';
import type { Kind, ResultTexts } from './kind.ts';

// `scope`: a folder or mask the search keeps to (`=== FIND: text IN lib/ ===`), or undefined for the whole folder.
export type FindRequest = { kind: 'find'; line: number; text: string; scope: string | undefined };

// `within`: the definition the line lies in (a function, a method, a class), when the map has read the file; in a
// Markdown, INI, TOML or data test file, its section (reading/answer/sections.ts).
// `around`: the lines about it, from line `first`, when the result has few hits (reading/answer/find.ts); hits whose
// lines about them overlap or touch are shown together (hitBlocks).
export type FindHit = { path: string; line: number; text: string; within?: HitWithin; around?: HitAround };
// `own`: the line the definition's own header begins at, when its decorators or attributes come first.
export type HitWithin = { name: string; first: number; last: number; own?: number };
export type HitAround = { first: number; lines: string[] };

// The most hits shown with the lines about each (reading/answer/find.ts). Sixteen: the relay's players asked for the
// lines about six hits (`max_redirects` in requests' sessions.py), seven, and thirteen (`strict_flag=True,` in mypy's
// main.py, each flag's name two lines above: a NEED of 230 lines, 5,000 tokens). Sixteen hits' lines, 80 at most, cost
// about what one NEED of a function does, and a step costs the whole message again.
export const AROUND_HITS = 16;
// A FIND of this many hits or fewer shows a definition its hit begins, of at most WHOLE_LINES lines, whole: a player
// FINDing `def init_private_attributes` got its signature and the docstring's first line, and spent a step on a NEED of
// the 22 lines the label already named (issue 30).
export const WHOLE_HITS = 3;
export const WHOLE_LINES = 60;

export type FindResults = {
  // `folded`: the exact text had no hits, and these are its hits ignoring the case of ASCII letters.
  // `shown`: only the first hits are shown (the texts the question quotes, protocol/quoted.ts); `outside`: the hits
  // outside tests, which come first; `among`: the hits are those of a flag itself (`--strict`, not `--strict-optional`), picked from this
  // many hits of the search; `longer`: one of the longer flags left out, to name it; `alone`: the text had no hits,
  // even ignoring case, and these are the hits of this name in it (reading/answer/find.ts).
  find: {
    kind: 'find';
    request: string;
    text: string;
    hits: FindHit[];
    cut: boolean;
    folded: boolean;
    shown?: number;
    outside?: number;
    among?: number;
    longer?: string;
    alone?: string;
  };
};

// Which of the hits shown lie outside tests, when those come first: `: the one outside tests, then 2 in tests`, or
// `: 10 of the 12 outside tests` ("all outside tests (12 of the hits are)" left a player asking where the rest were).
function outsideText(outside: number | undefined, shown: number): string {
  if (outside === undefined) return '';
  if (outside >= shown) return `: ${formatCount(shown)} of the ${formatCount(outside)} outside tests`;
  const code = outside === 1 ? 'the one hit' : `the ${formatCount(outside)} hits`;
  return `: ${code} outside tests, then ${formatCount(shown - outside)} in tests`;
}

// The lines about a hit in NEED's numbered form, set in by two spaces under it.
function aroundText(first: number, lines: readonly string[]): string {
  return numberLines(`${lines.join('\n')}\n`, first)
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

// The hits as blocks: each hit's line, and under it the lines about it; hits in one file whose lines about them
// overlap or touch share a block, their lines first and then the lines about them all, once. Two players of the relay
// were lost when those lines were cut where the hit before had shown them (a hit at 894 shown with only 896 under it).
function hitBlocks(hits: readonly FindHit[]): string[] {
  const blocks: string[] = [];
  let group: { path: string; heads: string[]; first: number; lines: string[] } | undefined;
  const close = () => {
    if (group === undefined) return;
    blocks.push(
      group.lines.length === 0
        ? group.heads.join('\n')
        : `${group.heads.join('\n')}\n${aroundText(group.first, group.lines)}`,
    );
    group = undefined;
  };
  for (const h of hits) {
    const within = h.within === undefined ? '' : ` (in ${h.within.name} ${h.within.first}-${h.within.last})`;
    const head = `${h.path}:${h.line}${within}: ${h.text}`;
    const around = h.around;
    if (around === undefined) {
      close();
      blocks.push(head);
      continue;
    }
    const next = group === undefined ? 0 : group.first + group.lines.length;
    if (group !== undefined && group.path === h.path && around.first <= next) {
      group.heads.push(head);
      group.lines.push(...around.lines.slice(Math.max(0, next - around.first)));
    } else {
      close();
      group = { path: h.path, heads: [head], first: around.first, lines: [...around.lines] };
    }
  }
  close();
  return blocks;
}

// The folder a FIND could keep to, for the advice under a long result: the top folder most of its hits lie in
// (`mypy/`), `src/` when they lie in none.
function folderOf(hits: readonly FindHit[]): string {
  const counts = new Map<string, number>();
  for (const h of hits) {
    const slash = h.path.indexOf('/');
    if (slash > 0) counts.set(h.path.slice(0, slash + 1), (counts.get(h.path.slice(0, slash + 1)) ?? 0) + 1);
  }
  let best = 'src/';
  let most = 0;
  for (const [folder, n] of counts) {
    if (n > most) {
      best = folder;
      most = n;
    }
  }
  return best;
}

export const find: Kind<FindRequest> = {
  keyword: 'FIND',
  form: 'text',
  synonyms: ['grep', 'search', 'rg'],
  read: (payload, line) => {
    const { text: raw, scope } = splitScope(payload);
    const text = unwrap(raw, '`');
    return text !== '' ? { kind: 'find', text, scope, line } : undefined;
  },
  describe: (r) => (r.scope === undefined ? `FIND ${r.text}` : `FIND ${r.text} IN ${r.scope}`),
  teach: [
    '=== FIND: loadConfig( ===',
    '  shows where this text occurs, as `path:line: text`, code before tests and docs, with the definition (in docs a',
    `  heading, a \`[section]\`) a line lies in when known (\`src/app.ts:130 (in start 120-188): text\`) and, when there are`,
    `  ${AROUND_HITS} hits or fewer, two lines either side of each (hits close together share them); with ${WHOLE_HITS} hits or`,
    `  fewer, a definition of up to ${WHOLE_LINES} lines whose first line (past its decorators) is a hit is shown whole. The`,
    '  text is literal and case-sensitive; when it occurs nowhere, the hits ignoring case are shown and marked so, or else',
    '  those of the longest name in it. Keep a search to a file, a folder or a mask with IN:',
    '  `=== FIND: loadConfig( IN src/ ===`.',
  ].join('\n'),
};

// `text IN lib/` and `text IN src/**/*.ts`: the last ` IN ` followed by one word that reads as a folder or mask (with a
// / or a *, or a file name with an extension), so a text like `WHERE id IN (1, 2)` stays whole.
function splitScope(payload: string): { text: string; scope: string | undefined } {
  const at = payload.lastIndexOf(' IN ');
  if (at === -1) return { text: payload, scope: undefined };
  const scope = cleanPath(payload.slice(at + 4));
  const looksLikePath = scope !== '' && !/\s/.test(scope) && (/[/*]/.test(scope) || /^[\w.-]+\.\w{1,10}$/.test(scope));
  return looksLikePath ? { text: payload.slice(0, at), scope } : { text: payload, scope: undefined };
}

export const findResults: ResultTexts<FindResults> = {
  find: {
    render: (r) => {
      if (r.hits.length === 0) return heading.result(r.request, r.folded ? 'no hits, also ignoring case' : 'no hits');
      const shown = r.hits.slice(0, r.shown ?? r.hits.length);
      const lines = hitBlocks(shown).join('\n');
      const folder = folderOf(r.hits);
      // Two players of the relay could not read "… among the first 100 hits, which count longer flags beginning with it".
      const longer = r.longer === undefined ? 'longer flags' : `longer flags such as ${r.longer}`;
      const hits =
        r.among !== undefined
          ? `${counted(r.hits.length, 'hit')} of ${r.text} itself; the other ${formatCount(r.among - r.hits.length)} of the ${r.cut ? 'first ' : ''}${formatCount(r.among)} are of ${longer}`
          : r.cut
            ? `${formatCount(r.hits.length)}+ hits`
            : counted(r.hits.length, 'hit');
      const cut =
        shown.length < r.hits.length
          ? `\n[${r.outside === undefined ? 'the first ' : ''}${formatCount(shown.length)} of ${r.among === undefined ? hits : counted(r.hits.length, 'hit')} shown here${outsideText(r.outside, shown.length)}; FIND the text, kept to a folder (IN ${folder}) if need be, for the rest]`
          : r.among !== undefined
            ? r.cut
              ? `\n[the search stopped at ${formatCount(r.among)} hits, longer flags' among them: FIND ${r.text} kept to a folder (IN ${folder}) for more]`
              : ''
            : r.cut
              ? `\n[cut: the first ${formatCount(r.hits.length)} hits shown and the search stopped there; FIND a longer text, keep it to a folder (IN ${folder}) or NEED a file to see more]`
              : r.hits.length > AROUND_HITS && !r.hits.some((h) => h.around !== undefined)
                ? `\n[over ${AROUND_HITS} hits, so none has the lines about it; NEED path:first-last for those you want to read]`
                : '';
      const says =
        r.alone !== undefined
          ? `no hits, also ignoring case; ${hits} of the name ${r.alone} alone`
          : r.folded
            ? `no exact hits; ${hits} ignoring case`
            : hits;
      return `${heading.result(r.request, says)}\n${lines}${cut}\n${heading.resultEnd}`;
    },
    dropped: (r, step) =>
      `[The ${formatCount(Math.min(r.hits.length, r.shown ?? r.hits.length))} hits of ${r.request} were sent at step ${step} and dropped to fit the window; ask again if needed.]`,
  },
};
