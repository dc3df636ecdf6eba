// The languages OUTLINE and the map read, by a file's extension, each with the grammar of @vscode/tree-sitter-wasm
// that parses it and the query that finds its definitions. A query pattern captures the definition as
// `@definition.<kind>`, its name as `@name`, and its body as `@body` where it has one: the header shown is the source
// from the definition's start to its body (or its `@value`'s body).

// The grammars shipped in @vscode/tree-sitter-wasm (`tree-sitter-<name>.wasm`) that deepwork reads.
export type Language =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'c-sharp'
  | 'cpp'
  | 'php'
  | 'ruby'
  | 'bash';

// C is read with the C++ grammar, which the package ships and which reads C as well (it has no C grammar of its own).
const EXTENSIONS: Readonly<Record<string, Language>> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.cs': 'c-sharp',
  '.c': 'cpp',
  '.h': 'cpp',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.hh': 'cpp',
  '.hpp': 'cpp',
  '.hxx': 'cpp',
  '.php': 'php',
  '.rb': 'ruby',
  '.rake': 'ruby',
  '.gemspec': 'ruby',
  '.sh': 'bash',
  '.bash': 'bash',
};

// The language of a path by its extension, or undefined when deepwork has no grammar for it. Called for every file of
// a folder before the first message (the map's choice of files), so the extension is looked up as a number, its
// characters packed, with no string made: slicing and lower-casing it took 17-50 ms of 200,000 files (issue 30).
export function languageOf(path: string): Language | undefined {
  // The last dot, looked for back from the end no further than the longest extension (String's lastIndexOf is a
  // call into the runtime, three times this loop's cost here).
  let dot = path.length - 1;
  const stop = Math.max(0, path.length - LONGEST - 1);
  for (; dot >= stop; dot--) {
    const c = path.charCodeAt(dot);
    if (c === 46 /* . */) break;
    if (c === 47 /* / */) return undefined;
  }
  // No dot, or one that starts the name (`.ts` is a hidden file's name, not an extension).
  if (dot < stop || dot === 0 || path.charCodeAt(dot - 1) === 47) return undefined;
  const packed = packedExtension(path, dot + 1);
  // An extension past ASCII is lower-cased as Unicode does (the Kelvin sign is a k).
  return packed === -1 ? EXTENSIONS[path.slice(dot).toLowerCase()] : BY_PACKED.get(packed);
}

// The characters of `text` from `from` on, lower-cased, 7 bits each; -1 when one is past ASCII.
function packedExtension(text: string, from: number): number {
  let n = 0;
  for (let i = from; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 128) return -1;
    if (c >= 65 && c <= 90) c += 32;
    n = n * 128 + c;
  }
  return n;
}

const LONGEST = Math.max(...Object.keys(EXTENSIONS).map((ext) => ext.length - 1));
const BY_PACKED: ReadonlyMap<number, Language> = new Map(
  Object.entries(EXTENSIONS).map(([ext, language]) => [packedExtension(ext, 1), language]),
);

// How a file without a grammar is named in "no outline for .md files": its extension, or its name.
export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? name : name.slice(dot).toLowerCase();
}

// A value that is a function or a class, captured as `@value`: its body is looked up once matched (a body captured in
// each alternative made the TypeScript query take twice as long to compile).
const FUNCTION_VALUE = '[(arrow_function) (function_expression) (generator_function) (class)] @value';
// A method's or a field's name, each kind the grammars allow named: a wildcard there made TypeScript's query take
// about twice as long to compile (122 -> 77 ms in a fresh worker), which a run's first OUTLINE or map waits for.
const MEMBER_NAME =
  '[(property_identifier) (private_property_identifier) (string) (number) (computed_property_name)] @name';

// What JavaScript and TypeScript share: functions, methods, `const f = () => …` at any depth, `exports.f = function`,
// exported constants of any value, and a test file's blocks, `describe('…', () => …)` and `it('…', function () …)` as
// mocha, jest, vitest and node:test write them (a model OUTLINEd express's tests, was told "no definitions", and lost a
// step; the pattern adds about 1 ms to the query's compile).
const SCRIPT = `
(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @definition.function
(method_definition name: ${MEMBER_NAME} body: (_) @body) @definition.method
(lexical_declaration (variable_declarator name: (identifier) @name value: ${FUNCTION_VALUE})) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: ${FUNCTION_VALUE})) @definition.function
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name))) @definition.constant
(expression_statement (assignment_expression left: (member_expression property: (property_identifier) @name) right: ${FUNCTION_VALUE})) @definition.function
((expression_statement (call_expression function: (identifier) @_test arguments: (arguments . [(string) (template_string)] @name . [(arrow_function) (function_expression)] @value))) @definition.test (#any-of? @_test "describe" "it" "test" "context" "suite" "specify"))
`;

const TYPESCRIPT = `${SCRIPT}
(class_declaration name: (type_identifier) @name body: (_) @body) @definition.class
(abstract_class_declaration name: (type_identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (type_identifier) @name body: (_) @body) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(method_signature name: ${MEMBER_NAME}) @definition.method
(abstract_method_signature name: ${MEMBER_NAME}) @definition.method
(function_signature name: (identifier) @name) @definition.function
(internal_module name: (_) @name body: (_) @body) @definition.module
(module name: (_) @name body: (_)? @body) @definition.module
(public_field_definition name: ${MEMBER_NAME} value: ${FUNCTION_VALUE}) @definition.method
`;

const JAVASCRIPT = `${SCRIPT}
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(field_definition property: (property_identifier) @name value: ${FUNCTION_VALUE}) @definition.method
`;

const QUERIES: Readonly<Record<Language, string>> = {
  typescript: TYPESCRIPT,
  tsx: TYPESCRIPT,
  javascript: JAVASCRIPT,
  python: `
(class_definition name: (identifier) @name body: (_) @body) @definition.class
(function_definition name: (identifier) @name body: (_) @body) @definition.function
(module (expression_statement (assignment left: (identifier) @name) @definition.constant))
`,
  go: `
(function_declaration name: (identifier) @name body: (_)? @body) @definition.function
(method_declaration name: (field_identifier) @name body: (_)? @body) @definition.method
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(method_elem name: (field_identifier) @name) @definition.method
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
`,
  rust: `
(function_item name: (identifier) @name body: (_) @body) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name body: (_)? @body) @definition.struct
(enum_item name: (type_identifier) @name body: (_) @body) @definition.enum
(union_item name: (type_identifier) @name body: (_) @body) @definition.struct
(trait_item name: (type_identifier) @name body: (_) @body) @definition.trait
(impl_item type: (_) @name body: (_)? @body) @definition.impl
(mod_item name: (identifier) @name body: (_)? @body) @definition.module
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(macro_definition name: (identifier) @name) @definition.macro
`,
  java: `
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(record_declaration name: (identifier) @name body: (_) @body) @definition.class
(annotation_type_declaration name: (identifier) @name body: (_) @body) @definition.interface
(method_declaration name: (identifier) @name body: (_)? @body) @definition.method
(constructor_declaration name: (identifier) @name body: (_) @body) @definition.method
`,
  'c-sharp': `
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(struct_declaration name: (identifier) @name body: (_) @body) @definition.struct
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(record_declaration name: (identifier) @name body: (_)? @body) @definition.class
(method_declaration name: (identifier) @name body: (_)? @body) @definition.method
(constructor_declaration name: (identifier) @name body: (_)? @body) @definition.method
(property_declaration name: (identifier) @name) @definition.property
(namespace_declaration name: (_) @name body: (_) @body) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module
(delegate_declaration name: (identifier) @name) @definition.type
`,
  cpp: `
(function_definition declarator: (function_declarator declarator: (_) @name) body: (_) @body) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)) body: (_) @body) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (_) @name)) body: (_) @body) @definition.function
(class_specifier name: (_) @name body: (_) @body) @definition.class
(struct_specifier name: (_) @name body: (_) @body) @definition.struct
(union_specifier name: (_) @name body: (_) @body) @definition.struct
(enum_specifier name: (_) @name body: (_) @body) @definition.enum
(namespace_definition name: (_) @name body: (_) @body) @definition.module
(type_definition declarator: (type_identifier) @name) @definition.type
(field_declaration declarator: (function_declarator declarator: (_) @name)) @definition.method
(declaration declarator: (function_declarator declarator: (_) @name)) @definition.function
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name) @definition.constant
`,
  php: `
(class_declaration name: (name) @name body: (_) @body) @definition.class
(interface_declaration name: (name) @name body: (_) @body) @definition.interface
(trait_declaration name: (name) @name body: (_) @body) @definition.trait
(enum_declaration name: (name) @name body: (_) @body) @definition.enum
(function_definition name: (name) @name body: (_) @body) @definition.function
(method_declaration name: (name) @name body: (_)? @body) @definition.method
(namespace_definition name: (namespace_name) @name body: (_)? @body) @definition.module
(const_declaration (const_element (name) @name)) @definition.constant
`,
  // Ruby's test blocks too, minitest's and RSpec's `describe`, `context` and `it`, Rails' `test "…" do`: every FIND hit
  // in sinatra's routing_test.rb lay "in RoutingTest 18-1702", the whole file, and a player guessed where a test ended.
  ruby: `
(class name: (_) @name body: (_)? @body) @definition.class
(module name: (_) @name body: (_)? @body) @definition.module
(method name: (_) @name body: (_)? @body) @definition.method
(singleton_method name: (_) @name body: (_)? @body) @definition.method
(assignment left: (constant) @name) @definition.constant
((call method: (identifier) @_test arguments: (argument_list . [(string) (constant) (scope_resolution)] @name) block: [(do_block) (block)] @body) @definition.test (#any-of? @_test "describe" "context" "it" "specify" "test" "scenario" "feature" "shared_examples"))
`,
  bash: `
(function_definition name: (word) @name body: (_) @body) @definition.function
`,
};

export function definitionsQuery(language: Language): string {
  return QUERIES[language];
}

export function isLanguage(name: string): name is Language {
  return Object.hasOwn(QUERIES, name);
}

// Every language, with its query: what a cache of definitions was made by.
export function allQueries(): string {
  return Object.entries(QUERIES)
    .map(([name, query]) => `${name}\n${query}`)
    .join('\n');
}

// Node types whose source does not begin with the word that says what they are (Go's `Server struct` inside
// `type ( … )`): the word put in front of their header.
export const HEADER_PREFIX: Readonly<Record<string, string>> = {
  type_spec: 'type ',
  type_alias: 'type ',
  const_spec: 'const ',
  var_spec: 'var ',
};

// Parents whose start a definition's lines and header begin at: `export` in front of a declaration, Python's
// decorators.
export const WRAPPERS: ReadonlySet<string> = new Set(['export_statement', 'decorated_definition']);

// Nodes written before a definition as its siblings that its lines begin at: Rust's attributes (`#[test]`,
// `#[derive(…)]`), the decorators of a TypeScript or JavaScript class member.
export const LEADING: ReadonlySet<string> = new Set(['attribute_item', 'decorator']);
