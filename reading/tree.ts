// The folder tree for the first message: what the model needs to name files right on its first try. Bounded: folders
// are opened breadth first while the text stays under its budget; the rest show their file counts, so a 30,000-file
// folder still gives a tree of a few KB. The budget goes to the source first: folders of tests, examples, playgrounds,
// docs, fixtures and caches are opened only with what is left, and folders with no file to send are not shown.

import type { WalkEntry, WalkNote } from './walk.ts';
import { RULE_LIMITS } from './gitignore.ts';
import { relativeTo } from './sandbox.ts';
import { counted, formatCount } from '../common/text.ts';

type Folder = { name: string; folders: Folder[]; files: string[]; total: number };

// `root`: the folder's real path, which a symlinked file's target is shown from (`README.rst -> doc/index.rst`).
export type TreeOptions = { maxChars: number; maxEntriesPerFolder: number; root?: string };

// `notes`: what the walk left out or matched wider than written, said once at the end.
export function buildTree(
  entries: readonly WalkEntry[],
  rootName: string,
  options: TreeOptions,
  notes: readonly WalkNote[] = [],
): string {
  const root = collect(entries, rootName, options.root);
  // The top folder is always open, but its entries count against the budget too: 5,000 files with long names in it
  // show as many as fit, and the rest as a count.
  const topShown = entriesThatFit(root, options);
  const open = chooseOpen(root, options, topShown);
  // A player of the relay asked himself whether to write `checkout/src/main.ts` under a top line `checkout/`. In a
  // folder that holds a folder of its own name (gson/gson/src/…), "not gson/src/a.ts" read as a warning against the
  // paths it had to write (issue 30).
  const inside = root.folders.some((f) => f.name === rootName)
    ? `a path beginning ${rootName}/ is of its folder ${rootName}/ shown below`
    : `src/a.ts, not ${rootName}/src/a.ts`;
  const lines = [`${rootName}/ (${plural(root.total, 'file')}; paths are written from inside it: ${inside})`];
  render(root, 1, open, options, lines, topShown);
  if (open.size < countFolders(root))
    lines.push('(a folder shown with a count is not opened here: LIST it to see inside)');
  // A player edited README.rst, a link to doc/source/index.rst, as a file of its own, and its answer said the docs did
  // not hold what it had just written into them (issue 30).
  if (lines.some((line) => line.includes(LINK)))
    lines.push(
      `(a name${LINK}a path is a link to that file: it reads as that file, and a change to it is written there)`,
    );
  for (const note of notes) lines.push(`(${noteText(note)})`);
  return lines.join('\n');
}

function noteText(note: WalkNote): string {
  switch (note.kind) {
    case 'control-names':
      return `${counted(note.count, 'file or folder', 'files or folders')} left out: control characters in ${note.count === 1 ? 'its name' : 'their names'}, which deepwork does not send`;
    case 'widened': {
      const shown =
        note.lines.slice(0, 5).join(', ') +
        (note.lines.length > 5 ? ` and ${formatCount(note.lines.length - 5)} more` : '');
      return `${note.file} line${note.lines.length === 1 ? '' : 's'} ${shown}: past deepwork's limits for a rule (${formatCount(RULE_LIMITS.chars)} characters, ${RULE_LIMITS.globstars} ** before the last name), so read wider, and some files git shows may be left out`;
    }
    case 'too-many':
      return `${note.file} is past deepwork's limits (${formatCount(RULE_LIMITS.rules)} rules with the files above it, ${formatCount(RULE_LIMITS.bytes >> 20)} MB), so everything in its folder is left out`;
    case 'wide-paths':
      return `${note.file}: its rules with two ** were matched in a wider form on ${counted(note.paths, 'path')} too deep and long to match them exactly, so some files git shows may be left out`;
  }
}

// Between a symlinked file's name and its target's path.
const LINK = ' -> ';

function collect(entries: readonly WalkEntry[], rootName: string, real: string | undefined): Folder {
  const root: Folder = { name: rootName, folders: [], files: [], total: 0 };
  const folders: Array<Folder | undefined> = new Array(entries.length);
  entries.forEach((entry, i) => {
    const parent = entry.parent === -1 ? root : folders[entry.parent];
    if (parent === undefined) return;
    if (entry.kind === 'folder') {
      const folder: Folder = { name: entry.name, folders: [], files: [], total: 0 };
      parent.folders.push(folder);
      folders[i] = folder;
    } else {
      const link = entry.target === undefined || real === undefined ? '' : `${LINK}${relativeTo(real, entry.target)}`;
      parent.files.push(entry.name + link);
    }
  });
  sum(root);
  return root;
}

// Counts each folder's files, and leaves out the folders that hold none (a cache whose own .gitignore hides it all,
// a folder of ignored build output): nothing in them can be asked for.
function sum(folder: Folder): number {
  folder.total = folder.files.length;
  for (const child of folder.folders) folder.total += sum(child);
  folder.folders = folder.folders.filter((child) => child.total > 0);
  return folder.total;
}

// Folders whose names say they are not the source: opened only once the source is, with the budget left.
const ASIDE =
  /^(?:tests?|__tests__|specs?|e2e|examples?|samples?|demos?|playgrounds?|docs?|documentation|fixtures?|benchmarks?|bench|vendor|third[_-]party|coverage|\.[\w-]*cache|\.benchmarks|\.tox|\.nox|\.venv|venv|dist|build|out|target)$/i;

function aside(folder: Folder): boolean {
  return ASIDE.test(folder.name);
}

// How many of the top folder's entries fit in the budget (keeping room for the line that counts the rest), at most
// maxEntriesPerFolder.
function entriesThatFit(root: Folder, options: TreeOptions): number {
  const costs = [...root.folders.map((f) => f.name.length + 14), ...root.files.map((f) => f.length)].map(
    (len) => 3 + len + 1,
  );
  let used = 80;
  let shown = 0;
  for (const cost of costs) {
    if (shown >= options.maxEntriesPerFolder || used + cost > options.maxChars) break;
    used += cost;
    shown++;
  }
  return shown;
}

// Opens folders level by level, smaller ones first within a level, while their lines fit in the budget: first the
// source, passing over the folders set aside (tests, examples, docs, caches…); then those, with what is left. The top
// folder shows `topShown` of its entries.
function chooseOpen(root: Folder, options: TreeOptions, topShown: number): Set<Folder> {
  const open = new Set<Folder>([root]);
  let used = linesCost(root, 1, { ...options, maxEntriesPerFolder: topShown });
  const setAside: Array<[Folder, number]> = [];
  const openLevels = (start: Array<[Folder, number]>, passOver: boolean) => {
    let level = start;
    while (level.length > 0) {
      const next: Array<[Folder, number]> = [];
      for (const [folder, depth] of [...level].sort((a, b) => a[0].total - b[0].total)) {
        if (passOver && aside(folder)) {
          setAside.push([folder, depth]);
          continue;
        }
        const cost = linesCost(folder, depth, options);
        if (used + cost > options.maxChars) continue;
        used += cost;
        open.add(folder);
        for (const child of folder.folders) next.push([child, depth + 1]);
      }
      level = next;
    }
  };
  openLevels(
    root.folders.slice(0, topShown).map((f) => [f, 2]),
    true,
  );
  openLevels(setAside, false);
  return open;
}

function linesCost(folder: Folder, depth: number, options: TreeOptions): number {
  const indent = 2 * depth + 1;
  const shown = [...folder.folders.map((f) => f.name.length + 14), ...folder.files.map((f) => f.length)].slice(
    0,
    options.maxEntriesPerFolder,
  );
  const more = folder.folders.length + folder.files.length > options.maxEntriesPerFolder ? 60 : 0;
  return shown.reduce((n, len) => n + indent + len, 0) + more;
}

// `limit`: how many of this folder's entries are shown.
function render(
  folder: Folder,
  depth: number,
  open: Set<Folder>,
  options: TreeOptions,
  lines: string[],
  limit = options.maxEntriesPerFolder,
): void {
  const indent = '  '.repeat(depth);
  let shown = 0;
  for (const child of folder.folders) {
    if (shown++ >= limit) break;
    if (open.has(child)) {
      lines.push(`${indent}${child.name}/`);
      render(child, depth + 1, open, options, lines);
    } else {
      lines.push(`${indent}${child.name}/ (${plural(child.total, 'file')})`);
    }
  }
  for (const file of folder.files) {
    if (shown++ >= limit) break;
    lines.push(`${indent}${file}`);
  }
  const hidden = folder.folders.length + folder.files.length - limit;
  if (hidden > 0) {
    const files = folder.files.slice(Math.max(0, limit - folder.folders.length));
    lines.push(`${indent}… ${hidden} more${files.length > 0 ? ` (${byExtension(files)})` : ''}`);
  }
}

function byExtension(files: string[]): string {
  const counts = new Map<string, number>();
  for (const file of files) {
    const dot = file.lastIndexOf('.');
    const ext = dot > 0 ? file.slice(dot) : '(no extension)';
    counts.set(ext, (counts.get(ext) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([ext, n]) => `${n} ${ext}`)
    .join(', ');
}

function countFolders(folder: Folder): number {
  return folder.folders.reduce((n, f) => n + countFolders(f), 1);
}

function plural(n: number, word: string): string {
  return `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;
}
