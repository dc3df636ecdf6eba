// The narrow wrapper over web-tree-sitter as @vscode/tree-sitter-wasm ships it (the runtime and the grammars built
// together): loaded only in the parser's worker, checked when loaded, and giving out plain data — a definition's
// places and kind — rather than the library's objects, whose memory lives in WebAssembly and must be freed.

import { createRequire } from 'node:module';
import path from 'node:path';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';
import { definitionsQuery, LEADING, WRAPPERS, type Language } from './languages.ts';

// Where a node lies: string indexes (web-tree-sitter reads the text as UTF-16, so these index the JS string) and
// zero-based rows; `endColumn` 0 means the node ends at the start of row `endRow`.
export type Place = { start: number; end: number; startRow: number; endRow: number; endColumn: number };

// One match of a language's definitions query. `parent`: the definition's parent when it is a wrapper that its lines
// begin at (`export`, decorators). `lead`: the first of the attributes or decorators written just before it (or its
// wrapper) as nodes of their own, which its lines begin at too: Rust's `#[test]`, a decorator on a TypeScript method.
export type Found = {
  kind: string;
  type: string;
  place: Place;
  name: Place;
  body: Place | undefined;
  parent: { type: string; place: Place } | undefined;
  lead: Place | undefined;
};

// `gaveUp`: the time ran out while parsing or querying; `errors`: the tree holds code the grammar could not read;
// `capped`: the query stopped at the most definitions asked for.
export type Definitions = { found: Found[]; errors: boolean; gaveUp: 'parse' | 'query' | undefined; capped: boolean };

type Runtime = typeof TreeSitter;

let runtime: Promise<Runtime> | undefined;
const grammars = new Map<Language, Promise<{ parser: TreeSitter.Parser; query: TreeSitter.Query }>>();

// The package's folder of .wasm files, found as Node finds the package.
function wasmFolder(): string {
  return path.dirname(createRequire(import.meta.url).resolve('@vscode/tree-sitter-wasm'));
}

// The runtime, once: required as the CommonJS module it is, and checked to be what its types say before it is used.
function load(): Promise<Runtime> {
  runtime ??= (async () => {
    const folder = wasmFolder();
    const loaded: unknown = createRequire(import.meta.url)('@vscode/tree-sitter-wasm');
    if (!isRuntime(loaded)) throw new Error('@vscode/tree-sitter-wasm is not the web-tree-sitter runtime it should be');
    await loaded.Parser.init({ locateFile: (file: string) => path.join(folder, file) });
    return loaded;
  })();
  return runtime;
}

function isRuntime(value: unknown): value is Runtime {
  if (typeof value !== 'object' || value === null) return false;
  const { Parser, Language, Query } = value as Record<string, unknown>;
  return (
    typeof Parser === 'function' &&
    typeof (Parser as { init?: unknown }).init === 'function' &&
    typeof Language === 'function' &&
    typeof (Language as { load?: unknown }).load === 'function' &&
    typeof Query === 'function'
  );
}

function grammar(language: Language): Promise<{ parser: TreeSitter.Parser; query: TreeSitter.Query }> {
  let loaded = grammars.get(language);
  if (loaded === undefined) {
    loaded = (async () => {
      const ts = await load();
      const lang = await ts.Language.load(path.join(wasmFolder(), `tree-sitter-${language}.wasm`));
      const parser = new ts.Parser();
      parser.setLanguage(lang);
      return { parser, query: new ts.Query(lang, definitionsQuery(language)) };
    })();
    // A grammar that failed to load is tried again next time, not remembered as failed.
    loaded.catch(() => grammars.delete(language));
    grammars.set(language, loaded);
  }
  return loaded;
}

// Characters of text queried at a time: the query stops once `max` definitions are found, so a minified file of
// hundreds of thousands costs what is kept.
const CHUNK = 1 << 18;

// What a parse is asked for: within `ms` for the parse and as much again for the query (a text that makes the parser
// or the query slow — deep nesting, pages of garbage — is given up on, and the caller says so); at most about `max`
// definitions; only those on `rows` (zero-based, the last excluded) and those around them, when given.
export type Ask = { ms: number; max: number; rows: { from: number; to: number } | undefined };

export async function definitions(language: Language, text: string, ask: Ask): Promise<Definitions> {
  const { parser, query } = await grammar(language);
  const parseStart = performance.now();
  const tree = parser.parse(text, null, { progressCallback: () => performance.now() - parseStart > ask.ms });
  if (tree === null) {
    parser.reset();
    return { found: [], errors: true, gaveUp: 'parse', capped: false };
  }
  try {
    const queryStart = performance.now();
    let late = false;
    const progressCallback = () => {
      late ||= performance.now() - queryStart > ask.ms;
      return late;
    };
    const rows =
      ask.rows === undefined
        ? {}
        : { startPosition: { row: ask.rows.from, column: 0 }, endPosition: { row: ask.rows.to, column: 0 } };
    const found: Found[] = [];
    // web-tree-sitter reads the text as UTF-16: a node's indexes count its code units, a query's range its bytes.
    for (let at = 0; at < text.length && !late && found.length < ask.max; at += CHUNK) {
      const range = { startIndex: at * 2, endIndex: (at + CHUNK) * 2 };
      for (const match of query.matches(tree.rootNode, { ...range, ...rows, progressCallback })) {
        const one = foundOf(match);
        if (one !== undefined) found.push(one);
      }
    }
    if (ask.rows !== undefined && !late && found.length < ask.max)
      found.push(...enclosing(tree, query, ask.rows.from, progressCallback));
    return {
      found,
      errors: tree.rootNode.hasError,
      gaveUp: late ? 'query' : undefined,
      capped: found.length >= ask.max,
    };
  } finally {
    tree.delete();
  }
}

// The definitions that row `row` lies inside of, begun before it: a query over a range of rows visits only the nodes in
// the range, so `OUTLINE checker.py:1500-1700` would leave out the method that line 1641 belongs to, begun at 1449.
function enclosing(
  tree: TreeSitter.Tree,
  query: TreeSitter.Query,
  row: number,
  progressCallback: () => boolean,
): Found[] {
  let top = tree.rootNode.descendantForPosition({ row, column: 0 });
  while (top?.parent != null && top.parent.parent !== null) top = top.parent;
  if (top == null || top.startPosition.row >= row) return [];
  const matches = query.matches(top, {
    startPosition: top.startPosition,
    endPosition: { row, column: 0 },
    progressCallback,
  });
  return matches.flatMap((match) => {
    const one = foundOf(match);
    return one !== undefined && one.place.startRow < row && one.place.endRow >= row ? [one] : [];
  });
}

// A definition as plain data; a match without one (a pattern's other captures alone) is none.
function foundOf(match: TreeSitter.QueryMatch): Found | undefined {
  const def = match.captures.find((c) => c.name.startsWith('definition.'));
  const name = match.captures.find((c) => c.name === 'name');
  if (def === undefined || name === undefined) return undefined;
  const body =
    match.captures.find((c) => c.name === 'body')?.node ??
    match.captures.find((c) => c.name === 'value')?.node.childForFieldName('body') ??
    undefined;
  const parent = def.node.parent;
  const lead = leadOf(parent !== null && WRAPPERS.has(parent.type) ? parent : def.node);
  return {
    kind: def.name.slice('definition.'.length),
    type: def.node.type,
    place: placeOf(def.node),
    name: placeOf(name.node),
    body: body === undefined || body === null ? undefined : placeOf(body),
    parent: parent === null ? undefined : { type: parent.type, place: placeOf(parent) },
    lead,
  };
}

// The first of the attribute or decorator nodes right before `node`, with nothing else between: a test's `#[test]`
// lay outside the lines the map and FIND gave for it, so a player who read a test by its range, to copy it, missed the
// attribute and asked again (walkdir, issue 30). A comment between them ends the run.
function leadOf(node: TreeSitter.Node): Place | undefined {
  let lead: TreeSitter.Node | undefined;
  for (let s = node.previousNamedSibling; s !== null && LEADING.has(s.type); s = s.previousNamedSibling) lead = s;
  return lead === undefined ? undefined : placeOf(lead);
}

function placeOf(node: TreeSitter.Node): Place {
  const { startIndex: start, endIndex: end, startPosition, endPosition } = node;
  return { start, end, startRow: startPosition.row, endRow: endPosition.row, endColumn: endPosition.column };
}
