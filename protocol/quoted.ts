// The texts a question quotes — an error message in quotes, a `--flag` — are what a model FINDs first. deepwork looks
// for them, as FIND does, while the first message is made, and sends their hits with the question: the model's first
// step can go to the code itself. Hits not found within the first message's wait come with the first results instead.

import { TEST_PATH } from '../common/kinds-of-files.ts';
import { escapeRegExp } from '../common/text.ts';
import type { Reader } from './contract.ts';
import type { FindRequest } from './kinds/find.ts';
import { renderResult, type Result } from './results.ts';
import { heading } from './wire.ts';

// Texts looked for, at most, and their length: shorter finds everything, longer is a paragraph, not a text to find.
const MOST_TEXTS = 3;
const MIN_CHARS = 4;
const MAX_CHARS = 160;
// Hits sent per text: where it is defined or said is among the first; the model FINDs it again for more. Beside hits
// outside tests, tests' are examples, and two say what they show: on python/mypy "Incompatible return value type" has
// one hit in the code and a hundred in tests' expectations, and nine of those lines were carried in every message.
const HITS = 10;
const TEST_HITS_BESIDE = 2;

// Quoted as people quote: straight and typographic double quotes, guillemets (Russian), German quotes, single quotes
// that are not an apostrophe, and backticks around more than a name (the map has names: `parse` alone is not looked
// for, `parse(text)` is). A command-line flag is taken bare: `--strict`.
const QUOTED = [
  /"([^"\n]+)"/g,
  /“([^”\n]+)”/g,
  /«([^»\n]+)»/g,
  /„([^“”\n]+)[“”]/g,
  /(?<![\p{L}\p{N}_'])'([^'\n]+)'(?![\p{L}\p{N}_'])/gu,
  /`([^`\n]*[^\w`$.\n][^`\n]*)`/g,
  /(?<![\w-])(--[A-Za-z][\w-]+)/g,
];

// A word of small letters alone, quoted as a term ("a 'path' choice", «путь»): it occurs all over a project, and its
// first ten hits are noise (on flask, 'path' found ten lines of CI workflows); a name with a capital, a digit or an
// underscore, a message of words or a flag is looked for.
const PLAIN_WORD = /^\p{Ll}+$/u;
// Flags every command line has: a question that names them asks about the help or the version printed, not where the
// flag is made, and their hundred hits are noise (on click, "where is the default's text in --help made?" sent ten
// lines of examples' READMEs and docstrings with the question, 350 tokens of a 12,288-token window).
const EVERY_PROGRAMS_FLAGS = new Set(['--help', '--version']);

// The texts `question` quotes, in the order it says them, each once.
export function quotedTexts(question: string): string[] {
  const found: Array<{ at: number; text: string }> = [];
  for (const pattern of QUOTED) {
    for (const m of question.matchAll(pattern)) {
      const text = (m[1] ?? '').trim();
      if (
        text.length >= MIN_CHARS &&
        text.length <= MAX_CHARS &&
        /[\p{L}\p{N}]/u.test(text) &&
        !PLAIN_WORD.test(text) &&
        !EVERY_PROGRAMS_FLAGS.has(text)
      ) {
        found.push({ at: m.index, text });
      }
    }
  }
  const texts = [...new Set(found.sort((a, b) => a.at - b.at).map((f) => f.text))];
  return texts.slice(0, MOST_TEXTS);
}

export type QuotedLookup = {
  // The hits, when the search ends within `ms`; undefined when it does not (they come later, with `late`).
  within(ms: number): Promise<Result[] | undefined>;
  // The hits not sent in the first message, once, when the search is done (it waits for it: the reader answers one
  // thing at a time); none when they were sent, or when the model asked the same FIND itself.
  late(asked: readonly string[]): Promise<Result[]>;
  // The files outside tests where the texts were found, once the search is done (none before): of each text found
  // in few such files.
  files(): string[];
  // The same files, when the search is done.
  found(): Promise<string[]>;
};

// The most files outside tests a text is found in for the map to start from them (protocol/code-map.ts): where a
// message or a flag is made; a text found in many files says little about any one of them.
const FOUND_FILES = 4;

// Starts looking for what `question` quotes; undefined when it quotes nothing.
export function lookForQuoted(reader: Reader, question: string): QuotedLookup | undefined {
  const texts = quotedTexts(question);
  if (texts.length === 0) return undefined;
  const requests: FindRequest[] = texts.map((text) => ({ kind: 'find', text, scope: undefined, line: 0 }));
  let results: Result[] | undefined;
  let sent = false;
  // A search that fails is a help not given, never the run's end.
  const done = reader.answer(requests).then(
    (r) => {
      results = r.map(fewer);
    },
    () => {
      results = [];
    },
  );
  // The files outside tests where the texts were found (none before the search is done).
  const files = (): string[] => {
    const found = new Set<string>();
    for (const r of results ?? []) {
      // A search cut at its hit limit counts too: a message is made in one file and said in a hundred tests'
      // expectations (mypy's "Incompatible return value type"), and the hits outside tests come first.
      if (r.kind !== 'find') continue;
      const code = new Set(r.hits.filter((h) => !TEST_PATH.test(h.path)).map((h) => h.path));
      if (code.size <= FOUND_FILES) for (const f of code) found.add(f);
    }
    return [...found];
  };
  return {
    async within(ms) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise((resolve) => {
        timer = setTimeout(resolve, ms);
      });
      await Promise.race([done, waited]);
      clearTimeout(timer);
      if (results !== undefined) sent = true;
      return results;
    },
    async late(asked) {
      if (sent) return [];
      sent = true;
      await done;
      return (results ?? []).filter((r) => !asked.includes(r.request));
    },
    files,
    found: () => done.then(files),
  };
}

// The part of the first message that holds the hits: undefined for none.
export function quotedPart(results: readonly Result[] | undefined): string | undefined {
  if (results === undefined || results.length === 0) return undefined;
  return `${heading.quoted}\n${results.map(renderResult).join('\n\n')}`;
}

// A text quoted from a message or an error is said in tests' expectations as often as where it is made: the hits outside
// tests first, so that the ten shown are those, and beside them two of tests'.
function fewer(result: Result): Result {
  if (result.kind !== 'find') return result;
  // A quote found nowhere is not looked for by the longest name in it, as a FIND is: the hits of a word of an error
  // message would say nothing of where it is made, and the map would start from their files.
  if (result.alone !== undefined) {
    const { alone: _, ...nowhere } = result;
    return { ...nowhere, hits: [], cut: false };
  }
  // A flag's hits are those of the flag itself: `--strict`, not `--strict-optional`, when it has any.
  if (result.text.startsWith('--')) {
    const whole = new RegExp(`${escapeRegExp(result.text)}(?![\\w-])`);
    const own = result.hits.filter((h) => whole.test(h.text));
    if (own.length > 0 && own.length < result.hits.length) {
      // One of the longer flags left out, to name it.
      const longer = new RegExp(`${escapeRegExp(result.text)}[\\w-]+`);
      const other = result.hits.map((h) => longer.exec(h.text)?.[0]).find((flag) => flag !== undefined);
      result = { ...result, hits: own, among: result.hits.length, ...(other === undefined ? {} : { longer: other }) };
    }
  }
  if (result.hits.length <= HITS) return result;
  const code = result.hits.filter((h) => !TEST_PATH.test(h.path));
  const tests = result.hits.filter((h) => TEST_PATH.test(h.path));
  const shown = code.length === 0 ? HITS : Math.min(HITS, code.length + TEST_HITS_BESIDE);
  return {
    ...result,
    hits: [...code, ...tests],
    shown,
    ...(code.length > 0 && tests.length > 0 ? { outside: code.length } : {}),
  };
}
