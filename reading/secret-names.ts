// The names deepwork never sends, and the one matcher the walk and the path rule test them with.

import { createRequire } from 'node:module';
import type { Sandbox } from './sandbox.ts';

// Names never sent, whatever the request. A pattern without a slash matches a file's name in any folder.
export const defaultSecretNames: readonly string[] = [
  '.env*',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.htpasswd',
  'credentials',
  'credentials.json',
  '*.kdbx',
  '*.ppk',
  '.pgpass',
  '.my.cnf',
  '*.tfstate',
  '*.tfstate.backup',
  '**/.ssh/**',
  '**/.kube/config',
  '**/.docker/config.json',
];

// The built-in names as picomatch compiles them (`dot`, `nocase`), kept here so that a run does not load picomatch
// (about 12 ms) to make the same expressions again; test/sandbox.test.ts checks they are still what picomatch makes. A
// name the config adds is compiled when it is met.
export const BUILT_IN_SOURCES: ReadonlyMap<string, string> = new Map([
  ['.env*', String.raw`^(?:^(?:\.env[^/]*?)$)$`],
  ['*.pem', String.raw`^(?:(?!(?:^|\/)\.{1,2}(?:\/|$))(?=.)[^/]*?\.pem\/?)$`],
  ['*.key', String.raw`^(?:(?!(?:^|\/)\.{1,2}(?:\/|$))(?=.)[^/]*?\.key\/?)$`],
  ['*.p12', String.raw`^(?:(?!(?:^|\/)\.{1,2}(?:\/|$))(?=.)[^/]*?\.p12\/?)$`],
  ['*.pfx', String.raw`^(?:(?!(?:^|\/)\.{1,2}(?:\/|$))(?=.)[^/]*?\.pfx\/?)$`],
  ['*.jks', String.raw`^(?:(?!(?:^|\/)\.{1,2}(?:\/|$))(?=.)[^/]*?\.jks\/?)$`],
  ['*.keystore', String.raw`^(?:(?!(?:^|\/)\.{1,2}(?:\/|$))(?=.)[^/]*?\.keystore\/?)$`],
  ['id_rsa*', '^(?:^(?:id_rsa[^/]*?)$)$'],
  ['id_dsa*', '^(?:^(?:id_dsa[^/]*?)$)$'],
  ['id_ecdsa*', '^(?:^(?:id_ecdsa[^/]*?)$)$'],
  ['id_ed25519*', '^(?:^(?:id_ed25519[^/]*?)$)$'],
  ['.npmrc', String.raw`^(?:^(?:\.npmrc)$)$`],
  ['.yarnrc.yml', String.raw`^(?:^(?:\.yarnrc\.yml)$)$`],
  ['.pypirc', String.raw`^(?:^(?:\.pypirc)$)$`],
  ['.netrc', String.raw`^(?:^(?:\.netrc)$)$`],
  ['_netrc', '^(?:^(?:_netrc)$)$'],
  ['.git-credentials', String.raw`^(?:^(?:\.git\-credentials)$)$`],
  ['.htpasswd', String.raw`^(?:^(?:\.htpasswd)$)$`],
  ['credentials', '^(?:^(?:credentials)$)$'],
  ['credentials.json', String.raw`^(?:^(?:credentials\.json)$)$`],
  ['*.kdbx', String.raw`^(?:(?!(?:^|\/)\.{1,2}(?:\/|$))(?=.)[^/]*?\.kdbx\/?)$`],
  ['*.ppk', String.raw`^(?:(?!(?:^|\/)\.{1,2}(?:\/|$))(?=.)[^/]*?\.ppk\/?)$`],
  ['.pgpass', String.raw`^(?:^(?:\.pgpass)$)$`],
  ['.my.cnf', String.raw`^(?:^(?:\.my\.cnf)$)$`],
  ['*.tfstate', String.raw`^(?:(?!(?:^|\/)\.{1,2}(?:\/|$))(?=.)[^/]*?\.tfstate\/?)$`],
  ['*.tfstate.backup', String.raw`^(?:(?!(?:^|\/)\.{1,2}(?:\/|$))(?=.)[^/]*?\.tfstate\.backup\/?)$`],
  [
    '**/.ssh/**',
    String.raw`^(?:(?:^|\/|(?:(?:(?!(?:^|\/)\.{1,2}(?:\/|$)).)*?)\/)\.ssh(?:\/(?!\.{1,2}(?:\/|$))(?:(?:(?!(?:^|\/)\.{1,2}(?:\/|$)).)*?)|$))$`,
  ],
  ['**/.kube/config', String.raw`^(?:(?:^|\/|(?:(?:(?!(?:^|\/)\.{1,2}(?:\/|$)).)*?)\/)\.kube\/config)$`],
  ['**/.docker/config.json', String.raw`^(?:(?:^|\/|(?:(?:(?!(?:^|\/)\.{1,2}(?:\/|$)).)*?)\/)\.docker\/config\.json)$`],
]);

function sourceOf(pattern: string): string {
  const known = BUILT_IN_SOURCES.get(pattern);
  if (known !== undefined) return known;
  const picomatch: typeof import('picomatch') = createRequire(import.meta.url)('picomatch');
  return picomatch.makeRe(pattern, { dot: true, nocase: true }).source;
}

// One regular expression for the name patterns and one for the path patterns: the walk asks this for every file, and
// trying twenty picomatch matchers one by one cost ten times the walk itself.
export function secretMatcher(patterns: readonly string[]): Pick<Sandbox, 'isSecret' | 'secretsIn'> {
  const combine = (list: readonly string[]) =>
    list.length === 0 ? undefined : new RegExp(list.map(sourceOf).join('|'), 'i');
  const names = patterns.filter((p) => !p.includes('/'));
  const paths = patterns.filter((p) => p.includes('/'));
  const byName = combine(names);
  const byPath = combine(paths);
  const worthTesting = nameFilter(names);
  const pathWorthTesting = pathFilter(paths);
  const secretsIn = (folder: string) => {
    // A path pattern's literal part is one part of a path, so it lies in the folder's path or in the name.
    const folderMay = byPath !== undefined && pathWorthTesting(folder);
    return (rel: string, name: string) =>
      (worthTesting(name) && (byName?.test(name) ?? false)) ||
      (byPath !== undefined && (folderMay || pathWorthTesting(name)) && byPath.test(rel));
  };
  return {
    isSecret: (rel, name = rel.slice(rel.lastIndexOf('/') + 1)) =>
      secretsIn(rel.slice(0, Math.max(0, rel.lastIndexOf('/'))))(rel, name),
    secretsIn,
  };
}

// The same for path patterns (`**/.ssh/**`): a path can only match one whose literal folder name (`.ssh`) it holds.
// picomatch's regular expressions for `**` test every character with lookaheads; this one look is far cheaper.
function pathFilter(patterns: readonly string[]): (rel: string) => boolean {
  const literals: string[] = [];
  for (const pattern of patterns) {
    const literal = pattern.split('/').find((part) => part !== '' && !/[*?[\]{}()!+@]/.test(part));
    if (literal === undefined) return () => true;
    literals.push(literal.toLowerCase());
  }
  if (literals.length === 0) return () => false;
  // One case-blind regular expression of the literals: no lower-cased copy of every path.
  const any = new RegExp(literals.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i');
  return (rel) => any.test(rel);
}

// A cheap look that rules most names out before the regular expression: a name can only match a pattern that starts
// with its first letter (`.env*`, `id_rsa*`) or one that ends with its extension (`*.pem`).
function nameFilter(patterns: readonly string[]): (name: string) => boolean {
  const firsts = new Uint8Array(128);
  const extensions = new Set<string>();
  for (const pattern of patterns) {
    const first = pattern[0] ?? '';
    // `*.tfstate.backup` can only match a name ending in `.backup`: the last extension is enough to rule names out.
    if (/^\*\.[\w.-]+$/.test(pattern)) extensions.add(pattern.slice(pattern.lastIndexOf('.')).toLowerCase());
    else if (first !== '' && first.charCodeAt(0) < 128 && !'*?[{!('.includes(first)) {
      firsts[first.toLowerCase().charCodeAt(0)] = 1;
      firsts[first.toUpperCase().charCodeAt(0)] = 1;
    } else return () => true;
  }
  // The extensions' last two characters, lower-cased, as numbers: most names are ruled out without a string made.
  const endings = new Set([...extensions].map((e) => endingOf(e, e.length)));
  return (name) => {
    const code = name.charCodeAt(0);
    if (code >= 128 || firsts[code] === 1) return true;
    if (!endings.has(endingOf(name, name.length))) return false;
    const dot = name.lastIndexOf('.');
    return dot !== -1 && extensions.has(name.slice(dot).toLowerCase());
  };
}

// The last two characters of a name, lower-cased (ASCII letters), as one number.
function endingOf(name: string, length: number): number {
  const fold = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);
  return (fold(name.charCodeAt(length - 2)) << 16) | fold(name.charCodeAt(length - 1));
}
