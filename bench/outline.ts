// What OUTLINE and the map of the code cost (issue 27): OUTLINE as the user waits for it (a fresh process against the
// benchmark's bridge, deepwork's share of the step timed there, alternated with ripgrep finding definitions in the same
// files), and the map made in the background from cold and from the cache, against a run of deepwork with no requests.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { INSTALL_DIR } from '../common/install.ts';
import { createExecutor } from '../reading/executor.ts';
import type { MapStore } from '../reading/map/cache.ts';
import { CORPUS, median, processTime } from './tools.ts';
import { timedAsk, type Bridge } from './bridge.ts';
import { rounds } from './waits.ts';

// The corpus's largest source file, a mask of about 300 source files, and a small file for the parser's first load.
export const LARGEST = 'typescript/lib/typescript.js';
export const MASK = 'three/src/renderers/**/*.js';
const MASK_FOLDER = 'three/src/renderers';
const SMALL = 'ms/index.js';
const QUESTION = 'How does mergeMap subscribe to the inner observables, and where is that in rxjs?';
// What ripgrep is asked for: lines that begin a definition, as a person would grep for them.
const DEFINITIONS = String.raw`'^\s*(export\s+)?(default\s+)?(async\s+)?(function\*?|class|interface|type|enum)\s'`;

export type OutlineFigures = {
  largest: { own: number; rg: number; bytes: number };
  mask: { own: number; rg: number; files: number };
  // `none`: a run with no requests in the same small folder.
  first: { own: number; none: number };
  map: { cold: number; warm: number; bare: number; files: number };
  installBytes: number;
};

export async function outlineFigures(bridge: Bridge, rg: string, runs: number): Promise<OutlineFigures> {
  // The parser's first load, where no map has started it: a folder of one small file. An OUTLINE's own cost is
  // deepwork's share of its step, from the model's reply to the next request, as the bridge times it.
  const small = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-bench-outline-'));
  fs.copyFileSync(path.join(CORPUS, SMALL), path.join(small, 'index.js'));
  const f = rounds(
    { none: () => timedAsk(bridge, '0 NOREQ', small).total, first: () => gapOf(bridge, 'index.js', small) },
    runs,
  );
  fs.rmSync(small, { recursive: true, force: true });
  const t = rounds(
    {
      none: () => timedAsk(bridge, '0 NOREQ', CORPUS).total,
      largest: () => gapOf(bridge, LARGEST, CORPUS),
      rgLargest: () => processTime(`${rg} -n -e ${DEFINITIONS} -- ${LARGEST} >/dev/null`, CORPUS).ms,
      mask: () => gapOf(bridge, MASK, CORPUS),
      rgMask: () => processTime(`${rg} -n -g '*.js' -e ${DEFINITIONS} -- ${MASK_FOLDER} >/dev/null`, CORPUS).ms,
    },
    Math.max(3, Math.ceil(runs / 2)),
  );
  const v = (k: keyof typeof t) => median(t[k]);
  const maskFiles = countFiles(path.join(CORPUS, MASK_FOLDER), '.js');
  return {
    largest: { own: v('largest'), rg: v('rgLargest'), bytes: fs.statSync(path.join(CORPUS, LARGEST)).size },
    mask: { own: v('mask'), rg: v('rgMask'), files: maskFiles },
    first: { own: median(f.first), none: median(f.none) },
    map: { ...(await mapFigures(runs)), bare: v('none') },
    installBytes: folderBytes(path.join(INSTALL_DIR, 'node_modules', '@vscode', 'tree-sitter-wasm')),
  };
}

// The map on the corpus, in this process: from cold (every file parsed, in the background, a fresh worker each time)
// and from the cache (what the first message waits for), each after the run's walk, which the tree makes anyway.
async function mapFigures(runs: number): Promise<{ cold: number; warm: number; files: number }> {
  const cold: number[] = [];
  let store = memoryStore();
  let files = 0;
  for (let i = 0; i < 3; i++) {
    store = memoryStore();
    const executor = createExecutor(CORPUS, { mapStore: () => store });
    executor.tree();
    const started = performance.now();
    const job = executor.map?.({ question: QUESTION, files: [] });
    files = (await job?.files)?.length ?? 0;
    cold.push(performance.now() - started);
    await executor.close();
  }
  const warm: number[] = [];
  for (let i = 0; i < runs; i++) {
    const executor = createExecutor(CORPUS, { mapStore: () => store });
    executor.tree();
    const started = performance.now();
    await executor.map?.({ question: QUESTION, files: [] })?.files;
    warm.push(performance.now() - started);
    await executor.close();
  }
  return { cold: median(cold), warm: median(warm), files };
}

function memoryStore(): MapStore {
  let bytes: Uint8Array | undefined;
  return {
    load: () => bytes,
    save: (value) => {
      bytes = value;
    },
  };
}

// deepwork's share of a step that outlines `target`: from the model's reply to the next request.
function gapOf(bridge: Bridge, target: string, cwd: string): number {
  return timedAsk(bridge, `0 OUTLINE ${target}`, cwd).gap ?? Number.NaN;
}

function countFiles(dir: string, ext: string): number {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith(ext)).length;
}

// What a folder takes on disk, as `du` counts its files' bytes.
function folderBytes(dir: string): number {
  return Number(spawnSync('du', ['-sb', dir], { encoding: 'utf8' }).stdout.split('\t')[0]);
}
