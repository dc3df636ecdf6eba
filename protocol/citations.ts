// The places a final answer cites, checked against the files: `src/app.ts:120`, `src/app.ts:120-188`,
// `src/app.ts#L120`, `src/app.ts` line 120. The line must be in the file, and a name cited beside it (`parse` in
// "`parse` (src/app.ts:120)") must be on it or a few lines from it. A model that read a file three steps ago cites it
// from memory, and a wrong line sends the person to the wrong place: what does not match is told to the person, and
// once to the model while a step is left.

import type { FileText } from './contract.ts';
import { tidyPath } from './paths.ts';
import { escapeRegExp } from '../common/text.ts';

// Definitions of one name said beside the first, at most.
const MORE_DEFINITIONS = 2;

// A citation that does not match the file. `cited`: as the answer wrote it; `name`: the name cited beside it.
export type Miscitation = { cited: string; path: string; line: number; end?: number; name?: string } & (
  | { problem: 'no-file' }
  | { problem: 'past-end'; lines: number }
  // The name is not near the line, nor is the line inside its definition; `at`: where the file defines it first,
  // `more`: where else (a Protocol's stub first, then the class's method: both are said).
  | { problem: 'name-elsewhere'; at: number; more?: number[] }
  | { problem: 'name-absent' }
);

// `also`: more lines cited with the first, `src/app.ts:10,19`. `name`: the name cited beside it; `context`: what
// qualifies it (`ky` of `ky.post(url)`), which stands for it on a line that builds it without writing it
// (`ky[method] = …`).
// `others`: more names cited beside it, farther than `name` ("`get`/`options` set it and `head` does not (a.py:670)"):
// the citation holds when any of them is at the line.
type Citation = {
  cited: string;
  path: string;
  line: number;
  end?: number;
  also?: number[];
  name?: string;
  context?: string[];
  others?: { name: string; context: string[] }[];
};

// Citations checked in one answer: a longer list is checked as far as this.
export const MAX_CITATIONS = 40;
// Lines either side of a cited line (or range) where the name cited beside it may stand: more before it, where a call
// whose arguments the line holds begins.
const NEAR = 3;
const NEAR_BEFORE = 6;
// Words in backticks that are the language's, not a name the file defines or uses by choice.
const KEYWORDS = new Set(
  'None True False null nil true false undefined self this super NaN void return await async'.split(' '),
);
// The names examples use for anything (`foo`, `bar`, Python's `spam`): one the cited file never writes is the
// example's, not the file's. "nested objects such as `bar` are the same objects in both models (pydantic/main.py:451)"
// cited the line for the copy, `bar` coming from the docs' example, and was flagged (issue 30).
const PLACEHOLDERS = new Set(
  'foo bar baz qux quux corge grault garply waldo fred plugh xyzzy thud spam eggs ham'.split(' '),
);
// A word before a name that says the line lacks it.
const NEGATION = /(?:^|[^\p{L}])(no|not|without|never|nor|нет|без|не|ни)\s+$/iu;
// Characters between a citation and a name on the same line for the name to count as cited beside it.
const BESIDE = 80;

// Extensions of files that are cited by line: a path without a folder is taken for one only with such an ending, so
// `example.com:8080` is not a citation.
const CODE = new Set(
  'ts tsx mts cts js jsx mjs cjs py go rs java kt kts cs c h cc cpp hpp cxx hh m mm swift php rb sh bash zsh ps1 lua pl scala clj ex exs erl hs ml fs dart vue svelte json yaml yml toml ini md sql css scss less html xml gradle cmake mk'.split(
    ' ',
  ),
);

// A path, then `:120`, `:120-188` (and more lines after commas, `:10,19`), `#L120`, `#L120-L188`, or ` line 120` / `lines 120-188` (also in Russian). A path in
// backticks may have its locator after the closing backtick.
const CITATION =
  /(?<![\w/.@:$-])((?:[\w.@$-]+\/)*[\w@$-][\w.@$-]*\.([A-Za-z][\w]{0,9}))`?(?::(\d+)(?:\s*[-–]\s*(\d+))?((?:,\d+(?:[-–]\d+)?)*)|#L(\d+)(?:-L?(\d+))?|,?\s+\(?(?:lines?|строк[аи]?|стр\.)\s+(\d+)(?:\s*[-–]\s*(\d+))?)(?![\w.]\w)/g;

// Code in backticks: a name — `parse`, `Parser.parse`, `parse()`, `Foo::bar`, whose last part is what is looked for —
// or anything else: an expression (`maxSafeTimeout = 2_147_483_647`), a message (`empty-body`), which a citation
// beside it is for, but which is not judged: what a line must hold for it is not known.
const CODE_SPAN = /`([^`\n]{1,200})`/g;
const NAME = /^([A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*)(?:\([^`]*\))?$/;

// The citations of an answer's prose, with the names beside them: FILE and EDIT blocks and fenced code are not prose.
export function findCitations(answer: string): Citation[] {
  const found: Citation[] = [];
  let fence: string | undefined;
  let block = false;
  for (const line of answer.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (block) {
      if (/^=== END ===$/.test(trimmed)) block = false;
      continue;
    }
    if (/^=== (FILE|EDIT): .* ===$/.test(trimmed)) {
      block = true;
      continue;
    }
    const marker = /^(`{3,}|~{3,})/.exec(trimmed)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    found.push(...citationsOf(line));
    if (found.length >= MAX_CITATIONS) return found.slice(0, MAX_CITATIONS);
  }
  return found;
}

function citationsOf(line: string): Citation[] {
  const cites: (Citation & { from: number; to: number })[] = [];
  for (const m of line.matchAll(CITATION)) {
    const [whole, rawPath = '', ext = '', colon, colonEnd, list = '', ...others] = m;
    const path = tidyPath(rawPath);
    if (!path.includes('/') && !CODE.has(ext.toLowerCase())) continue;
    const [start, end] = [colon, colonEnd, ...others].filter((n) => n !== undefined).map(Number);
    if (start === undefined) continue;
    const also = list.split(',').flatMap((part) => (part === '' ? [] : part.split(/[-–]/).map(Number)));
    const from = m.index;
    cites.push({
      cited: whole.replaceAll('`', '').trim(),
      path,
      line: start,
      ...(end !== undefined && end > start ? { end } : {}),
      ...(also.length > 0 ? { also } : {}),
      from,
      to: from + whole.length,
    });
  }
  if (cites.length === 0) return [];
  // Each name goes to the citation nearest it; each citation takes the nearest name it was given, and keeps the others.
  const names = new Map<number, { distance: number; absent: boolean; cited: Cited; code: string }[]>();
  for (const m of line.matchAll(CODE_SPAN)) {
    const from = m.index;
    const to = from + m[0].length;
    // The citation itself in backticks, `src/app.ts:120`, is not what it cites.
    if (cites.some((c) => from < c.to && to > c.from)) continue;
    const cited = citedIn((m[1] ?? '').trim());
    if (cited === undefined) continue;
    let nearest = -1;
    let distance = BESIDE + 1;
    cites.forEach((c, i) => {
      const d = to <= c.from ? c.from - to : from >= c.to ? from - c.to : -1;
      // A name in another sentence or clause is not cited beside it: "… (a.go:32). `Name()` reports … (a.go:21)".
      const between = to <= c.from ? line.slice(to, c.from) : line.slice(c.to, from);
      // A name after the citation is its own only when nothing starts another part between them: "(a.py:568), and
      // `get` sets it" is about `get`, not line 568.
      const after = from >= c.to;
      const boundary = after ? /[.;!?]\s|,|\s(and|or|и|или)\s/ : /[.;!?]\s/;
      if (d >= 0 && d < distance && !boundary.test(between)) [nearest, distance] = [i, d];
    });
    if (nearest < 0) continue;
    // A name said to be absent is cited as not there: "with no `post` (normalize.ts:8)" leaves the line unjudged.
    const absent = NEGATION.test(line.slice(Math.max(0, from - 12), from));
    const held = names.get(nearest) ?? [];
    held.push({ distance, absent, cited, code: m[1] ?? '' });
    names.set(nearest, held);
  }
  return cites.map(({ from: _from, to: _to, ...c }, i) => {
    const [held, ...farther] = (names.get(i) ?? []).sort((a, b) => a.distance - b.distance);
    if (held === undefined || held.absent) return c;
    if (held.cited === 'unjudged') return c;
    const { name, context } = held.cited;
    // An expression farther off stands for the names it holds: "`maxSafeTimeout = 2_147_483_647` ms, the most that
    // `setTimeout` accepts (constants.ts:57-58)" holds at the constant's line (a relay player's answer, flagged).
    const others = farther.flatMap((f) =>
      f.absent ? [] : f.cited === 'unjudged' ? namesIn(f.code).map((name) => ({ name, context: [] })) : [f.cited],
    );
    return { ...c, name, ...(context.length > 0 ? { context } : {}), ...(others.length > 0 ? { others } : {}) };
  });
}

// What a code span cites: a name's last part with its qualifiers, or something not judged; undefined for a path or a
// keyword, which are nobody's.
type Cited = { name: string; context: string[] } | 'unjudged';
function citedIn(code: string): Cited | undefined {
  // A path in backticks is not a name.
  if (/\.[A-Za-z]\w{0,9}$/.test(code) && CODE.has(code.split('.').at(-1)?.toLowerCase() ?? '')) return undefined;
  const written = NAME.exec(code)?.[1];
  if (written === undefined) return /[\p{L}\p{N}]/u.test(code) ? 'unjudged' : undefined;
  const parts = written.split(/\.|::|#|->/);
  const name = parts.at(-1) ?? written;
  if (KEYWORDS.has(name)) return undefined;
  return { name, context: parts.slice(0, -1).filter((p) => !KEYWORDS.has(p)) };
}

// The names an expression in backticks holds, of three characters or more: `maxSafeTimeout` of
// `maxSafeTimeout = 2_147_483_647`.
function namesIn(code: string): string[] {
  return (code.match(/[A-Za-z_$][\w$]{2,}/g) ?? []).filter((name) => !KEYWORDS.has(name));
}

// Each citation against its file, as `text` reads it through the path rule; those that match are left out. A file
// that cannot be read (a secret, a folder, too big) is not judged. `searched`: the texts the run's FINDs looked for,
// which stand at a line that holds them anywhere, in either case, as FIND finds them.
export function checkCitations(
  answer: string,
  text: (path: string) => FileText,
  searched: ReadonlySet<string> = new Set(),
): Miscitation[] {
  const files = new Map<string, FileText>();
  const read = (path: string): FileText => {
    let file = files.get(path);
    if (file === undefined) {
      file = text(path);
      files.set(path, file);
    }
    return file;
  };
  return findCitations(answer).flatMap((c): Miscitation[] => {
    const file = read(c.path);
    // A bare file name may be cited as the person knows it (`loop.ts` for protocol/loop.ts): only a path is missing.
    if (file.kind === 'missing') return c.path.includes('/') ? [{ ...c, problem: 'no-file' }] : [];
    if (file.kind !== 'text') return [];
    const lines = file.text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const { also = [], ...cited } = c;
    const spans: [number, number][] = [[c.line, c.end ?? c.line], ...also.map((n): [number, number] => [n, n])];
    if (spans.some(([first, last]) => first < 1 || last > lines.length))
      return [{ ...cited, problem: 'past-end', lines: lines.length }];
    if (c.name === undefined) return [];
    const { context = [], others = [], ...reported } = cited;
    // Blind to case: a FIND with no exact hit sends those ignoring case.
    const lower = c.name.toLowerCase();
    if (searched.has(c.name) && near(lines, spans, (l) => l.toLowerCase().includes(lower))) return [];
    const wrong = judge(lines, spans, c.name, context);
    if (wrong === undefined) return [];
    // Several names beside one citation: it stands when any of them is at its lines.
    if (others.some((o) => judge(lines, spans, o.name, o.context) === undefined)) return [];
    return [{ ...reported, ...wrong }];
  });
}

type Wrong = { problem: 'name-elsewhere'; at: number; more?: number[] } | { problem: 'name-absent' };

// Whether `name`, cited at `spans` of the file's `lines`, stands there: undefined when it does, else what is wrong.
function judge(
  lines: readonly string[],
  spans: readonly [number, number][],
  name: string,
  context: readonly string[],
): Wrong | undefined {
  const word = wordPattern(name);
  const close = (pattern: RegExp) => near(lines, spans, (l) => pattern.test(l));
  if (close(word)) return undefined;
  // Lines inside the name's definition cite it too: its body, its return, its docstring.
  const definitions = definitionsOf(lines, name);
  const inside = ([first, last]: [number, number]) =>
    definitions.some((at) => first >= at && last <= bodyEnd(lines, at));
  if (spans.some(inside)) return undefined;
  const [at, ...more] = definitions;
  if (at !== undefined)
    return { problem: 'name-elsewhere', at, ...(more.length > 0 ? { more: more.slice(0, MORE_DEFINITIONS) } : {}) };
  // A name the file only uses may be cited at any of its uses, or for what a line does with it (`onUploadProgress`
  // beside the call that reports it): only a definition elsewhere in the file says the line is wrong. A name the file
  // never writes may be built on the line from what qualifies it (`ky.post` by `ky[method] = …`).
  // A name the file writes only in another case is a text (a header's `Location`, said "location"), cited likewise.
  const anyCase = new RegExp(word.source, 'i');
  if (lines.some((l) => anyCase.test(l)) || context.some((q) => close(wordPattern(q)))) return undefined;
  // Nor a name said as the words of one on the line: `Infinity` for `Number.POSITIVE_INFINITY`, `maxRetries` for
  // `max_retries` (a relay player's `backoffLimit` "defaults to `Infinity`" was flagged, and cost a step).
  if (spans.some(([first, last]) => saidIn(lines.slice(Math.max(0, first - 1), last), name))) return undefined;
  if (PLACEHOLDERS.has(name.toLowerCase())) return undefined;
  return { problem: 'name-absent' };
}

// Whether a line at or a few about `spans` of `lines` passes `test`.
function near(lines: readonly string[], spans: readonly [number, number][], test: (line: string) => boolean): boolean {
  return spans.some(([first, last]) => lines.slice(Math.max(0, first - 1 - NEAR_BEFORE), last + NEAR).some(test));
}

// Whether some identifier of `lines` holds `name` as a run of its words, blind to case and underscores.
function saidIn(lines: readonly string[], name: string): boolean {
  const wanted = name.replaceAll('_', '').toLowerCase();
  if (wanted.length < 3) return false;
  for (const line of lines) {
    for (const identifier of line.match(/[A-Za-z_$][\w$]*/g) ?? []) {
      const words = identifier
        .replace(/([a-z\d])([A-Z])/g, '$1 $2')
        .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
        .split(/[\s_]+/)
        .filter((w) => w !== '')
        .map((w) => w.toLowerCase());
      for (let i = 0; i < words.length; i++) {
        let run = '';
        for (let j = i; j < words.length && run.length < wanted.length; j++) run += words[j];
        if (run === wanted) return true;
      }
    }
  }
  return false;
}

function wordPattern(name: string): RegExp {
  return new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`);
}

// A line that defines `name`: `def name`, `function name`, `class name`, `name = (` and the like; a method, `name(…) {`
// with a return type or not (`create(input: Input): Promise<R> {`), or a signature that runs on to the next lines
// after a modifier (`static create(`, `async *walk(`). A call is not one: it closes its brackets without a body.
function definitionPattern(name: string): RegExp {
  const n = escapeRegExp(name);
  const keyword = `\\b(function\\*?|def|class|fn|func|interface|type|struct|enum|trait|impl|module|const|let|var|sub|macro)\\s+(\\([^)]*\\)\\s*)?${n}(?![\\w$])`;
  const assigned = `(?<![\\w$.])${n}\\s*=\\s*(async\\s*)?(\\(|function)`;
  const method = `(?<![\\w$.])${n}\\s*(<[^>]*>)?\\s*\\([^)]*\\)\\s*(:\\s*[^;={]+)?\\{`;
  const modifiers = '(export|default|public|private|protected|static|async|override|abstract|get|set|readonly)';
  const opened = `^\\s*(${modifiers}\\s+)+\\*?${n}\\s*(<[^>]*>)?\\s*\\([^)]*$`;
  return new RegExp(`${keyword}|${assigned}|${method}|${opened}`);
}

// The lines (1-based) that define `name`, in order.
function definitionsOf(lines: readonly string[], name: string): number[] {
  const definition = definitionPattern(name);
  return lines.flatMap((l, i) => (definition.test(l) ? [i + 1] : []));
}

// The last line (1-based) of the definition on line `at`, by indentation: the lines after it that are blank or indented
// deeper, a signature's closing `)` at its own depth, and a closing `}` at its depth, which ends it.
function bodyEnd(lines: readonly string[], at: number): number {
  const depth = (l: string) => l.length - l.trimStart().length;
  const own = depth(lines[at - 1] ?? '');
  let end = at;
  for (let i = at; i < lines.length; i++) {
    const l = lines[i] ?? '';
    const text = l.trim();
    if (text === '') continue;
    if (depth(l) > own || /^[)\]]/.test(text)) {
      end = i + 1;
      continue;
    }
    return text.startsWith('}') ? i + 1 : end;
  }
  return end;
}

// What the person is told of one, and the model: "protocol/loop.ts:120 for `runLoop`: it is at line 113".
export function describeMiscitation(m: Miscitation): string {
  const what = `${m.cited}${m.name === undefined ? '' : ` for \`${m.name}\``}`;
  switch (m.problem) {
    case 'no-file':
      return `${what}: there is no ${m.path}`;
    case 'past-end':
      return `${what}: ${m.path} has ${m.lines} line${m.lines === 1 ? '' : 's'}`;
    case 'name-elsewhere':
      return `${what}: \`${m.name ?? ''}\` is at ${m.path}:${[m.at, ...(m.more ?? [])].join(', ')}`;
    case 'name-absent':
      return `${what}: \`${m.name ?? ''}\` is not in ${m.path}`;
  }
}
