// What the user waits for, measured from outside: a fresh deepwork process per run against the benchmark's bridge
// (bench/bridge.ts), each alternated in one loop with its named reference (ripgrep, fd, find, `node -e 0`) so that a
// change in the machine's load hits both, and reported as the median of the rounds' ratios with their range.

import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import { defaultSecretNames } from '../reading/sandbox.ts';
import { epochNow, timedAsk, type Bridge, type Timed } from './bridge.ts';
import { median, processTime, timedRun } from './tools.ts';
import { INSTALL_DIR } from '../common/install.ts';

export type Row = {
  what: string;
  deepwork: string;
  reference: string;
  ratio: string;
  target: string;
  met: boolean | null;
};

// The reference tools and their skips: hidden files searched, .git, node_modules and the secret names skipped,
// .gitignore obeyed, as deepwork does.
export type Tools = { rg: string; fd: string };
const rgSkips = `--hidden -g '!.git' -g '!node_modules' ${defaultSecretNames.map((s) => `--iglob '!${s}'`).join(' ')}`;
const fdSkips = `-H -E .git -E node_modules ${defaultSecretNames.map((s) => `-E '${s}'`).join(' ')}`;

// What is asked of one tree: a common text (its first 100 hits), five texts found nowhere, a rare text, a LIST.
export type Asks = { common: string; five: readonly string[]; rare: string; list: { mask: string; ext: string } };

// Each round runs every command once, in order; the first round only warms the page cache.
export function rounds<T extends Record<string, () => unknown>>(
  commands: T,
  n: number,
): { [K in keyof T]: Array<ReturnType<T[K]>> } {
  const out = Object.fromEntries(Object.keys(commands).map((k) => [k, []])) as unknown as {
    [K in keyof T]: Array<ReturnType<T[K]>>;
  };
  for (let round = -1; round < n; round++) {
    for (const [name, run] of Object.entries(commands)) {
      const value = run() as ReturnType<T[keyof T]>;
      if (round >= 0) out[name as keyof T].push(value);
    }
  }
  return out;
}

// A ratio row from paired samples: the median of the per-round ratios, and their range.
export function ratioRow(what: string, ours: number[], reference: number[], name: string, target: number | null): Row {
  const ratios = ours.map((v, i) => v / (reference[i] ?? Number.NaN));
  const r = median(ratios);
  return {
    what,
    deepwork: `${median(ours).toFixed(1)} ms`,
    reference: `${median(reference).toFixed(1)} ms (${name})`,
    ratio: `${r.toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
    target: target === null ? '—' : `≤ ${target}×`,
    met: target === null ? null : r <= target,
  };
}

function mbRow(what: string, values: number[], target: number): Row {
  const mb = median(values);
  return {
    what,
    deepwork: `${mb.toFixed(0)} MB (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`,
    reference: '—',
    ratio: '—',
    target: `≤ ${target} MB`,
    met: mb <= target,
  };
}

const gapOf = (t: Timed): number => t.gap ?? Number.NaN;
const shell = (command: string, cwd: string) => () => processTime(command, cwd).ms;

// The rows of one tree. `label`: how the rows name it; `tiny`: a small folder, whose start is taken off the first
// message's time to leave the walk's share.
export function treeRows(
  bridge: Bridge,
  tools: Tools,
  root: string,
  label: string,
  asks: Asks,
  tiny: string,
  runs: number,
): Row[] {
  const ask =
    (question: string, rss = false) =>
    () =>
      timedAsk(bridge, question, root, rss);
  const rg = (args: string, tail = '') =>
    shell(`${tools.rg} -F -n --no-heading ${rgSkips} ${args} . ${tail} >/dev/null`, root);
  const t = rounds(
    {
      tiny: () => timedAsk(bridge, '0 NOREQ', tiny),
      walked: ask('0 NOREQ'),
      cold: () => timedAsk(bridge, '0 NOREQ', root, false, bridge.coldConfig()),
      fd: shell(`${tools.fd} -t f ${fdSkips} . >/dev/null`, root),
      common: ask(`3000 FIND ${asks.common}`, true),
      commonNow: ask(`0 FIND ${asks.common}`),
      rgCommon: rg(`-- '${asks.common}'`, '| head -100'),
      five: ask(`3000 FIND ${asks.five.join('|')}`, true),
      rgFive: rg(asks.five.map((text) => `-e '${text}'`).join(' ')),
      rare: ask(`3000 FIND ${asks.rare}`, true),
      rgRare: rg(`-- '${asks.rare}'`),
      list: ask(`0 LIST ${asks.list.mask}`),
      fdList: shell(`${tools.fd} -t f ${fdSkips} -e ${asks.list.ext} . | head -300 >/dev/null`, root),
    },
    runs,
  );
  const rss = [...t.common, ...t.five, ...t.rare].map((r) => r.rssMb ?? Number.NaN);
  return [
    ...walkRow(label, t),
    ...findStepRows(label, t),
    ratioRow(`${label}: FIND a rare text, after a model thinking 3 s`, t.rare.map(gapOf), t.rgRare, 'rg -F', 1.5),
    ratioRow(
      `${label}: LIST ${asks.list.mask}, first 300, after a reply at once`,
      t.list.map(gapOf),
      t.fdList,
      'fd … | head -300',
      1.5,
    ),
    mbRow(`${label}: peak RSS of a FIND run (all threads)`, rss, 100),
  ];
}

// The walk's share of the first message: the time to it in the tree less the same in the small folder, against fd.
// It holds all the first message waits for there and not in the small folder, which has no map: the walk, and the map
// of the code (its files chosen and looked at, its cache read, their ranking when the cache holds them all, the
// parse of those it does not hold when they are few), so the row names both. Measured twice: with what the runs before
// kept (the walk, the map's cache), as a person asking again in the same folder has it, and with nothing kept (a state
// folder of its own each time), as the first question in a folder has it.
function walkRow(label: string, t: { tiny: Timed[]; walked: Timed[]; cold: Timed[]; fd: number[] }): Row[] {
  const share = (runs: Timed[]) => runs.map((w, i) => w.first - (t.tiny[i]?.first ?? Number.NaN));
  return [
    ratioRow(
      `${label}: the walk and the map before the first message (their share of the time to it)`,
      share(t.walked),
      t.fd,
      'fd, same rules',
      1.5,
    ),
    ratioRow(
      `${label}: the same, a first question in the folder (nothing kept from earlier runs)`,
      share(t.cold),
      t.fd,
      'fd, same rules',
      1.5,
    ),
  ];
}

// The walk's row alone (BENCH_ONLY=walk). First the map's cache is filled as far as the whole run's first round fills
// it, with three runs whose model thinks 3 s (the map parses in the background meanwhile), so that the map is in the
// state the whole run measures it in.
export function walkRows(bridge: Bridge, tools: Tools, root: string, label: string, tiny: string, runs: number): Row[] {
  for (let i = 0; i < 3; i++) timedAsk(bridge, '3000 NOREQ', root);
  const t = rounds(
    {
      tiny: () => timedAsk(bridge, '0 NOREQ', tiny),
      walked: () => timedAsk(bridge, '0 NOREQ', root),
      cold: () => timedAsk(bridge, '0 NOREQ', root, false, bridge.coldConfig()),
      fd: shell(`${tools.fd} -t f ${fdSkips} . >/dev/null`, root),
    },
    runs,
  );
  return walkRow(label, t);
}

// A step's fixed cost alone (BENCH_ONLY=steps): a common text's first 100 hits and a LIST's first 300, each after a
// reply at once, against the same references as treeRows'.
export function stepRows(bridge: Bridge, tools: Tools, root: string, label: string, asks: Asks, runs: number): Row[] {
  const t = rounds(
    {
      commonNow: () => timedAsk(bridge, `0 FIND ${asks.common}`, root),
      rgCommon: shell(`${tools.rg} -F -n --no-heading ${rgSkips} -- '${asks.common}' . | head -100 >/dev/null`, root),
      list: () => timedAsk(bridge, `0 LIST ${asks.list.mask}`, root),
      fdList: shell(`${tools.fd} -t f ${fdSkips} -e ${asks.list.ext} . | head -300 >/dev/null`, root),
    },
    runs,
  );
  return [
    ratioRow(
      `${label}: FIND a common text, its first 100 hits, after a reply at once`,
      t.commonNow.map(gapOf),
      t.rgCommon,
      'rg … | head -100',
      3,
    ),
    ratioRow(
      `${label}: LIST ${asks.list.mask}, first 300, after a reply at once`,
      t.list.map(gapOf),
      t.fdList,
      'fd … | head -300',
      1.5,
    ),
  ];
}

// FIND's rows alone (BENCH_ONLY=find): a common text's first 100 hits after a model thinking 3 s and after a reply at
// once, and five texts in one step after 3 s, against the same references as treeRows'.
export function findRows(bridge: Bridge, tools: Tools, root: string, label: string, asks: Asks, runs: number): Row[] {
  const rg = (args: string, tail = '') =>
    shell(`${tools.rg} -F -n --no-heading ${rgSkips} ${args} . ${tail} >/dev/null`, root);
  const t = rounds(
    {
      common: () => timedAsk(bridge, `3000 FIND ${asks.common}`, root),
      commonNow: () => timedAsk(bridge, `0 FIND ${asks.common}`, root),
      rgCommon: rg(`-- '${asks.common}'`, '| head -100'),
      five: () => timedAsk(bridge, `3000 FIND ${asks.five.join('|')}`, root),
      rgFive: rg(asks.five.map((text) => `-e '${text}'`).join(' ')),
    },
    runs,
  );
  return findStepRows(label, t);
}

// The rows of a FIND step shared by treeRows and findRows: a common text after 3 s and at once, five texts after 3 s.
function findStepRows(
  label: string,
  t: { common: Timed[]; commonNow: Timed[]; rgCommon: number[]; five: Timed[]; rgFive: number[] },
): Row[] {
  return [
    ratioRow(
      `${label}: FIND a common text, its first 100 hits, after a model thinking 3 s`,
      t.common.map(gapOf),
      t.rgCommon,
      'rg … | head -100',
      1.5,
    ),
    ratioRow(`${label}: the same after a reply at once`, t.commonNow.map(gapOf), t.rgCommon, 'rg … | head -100', 3),
    ratioRow(
      `${label}: FIND 5 texts in one step, after a model thinking 3 s`,
      t.five.map(gapOf),
      t.rgFive,
      'rg -e ×5',
      1.2,
    ),
  ];
}

// A run with no requests in a small folder, start to end, and --version, against `node -e 0`.
export function startRows(bridge: Bridge, tiny: string, runs: number): Row[] {
  const bin = path.join(INSTALL_DIR, 'bin', 'deepwork.js');
  const t = rounds(
    {
      node: () => timedRun(process.execPath, ['-e', '0'], tiny).ms,
      version: () => timedRun(process.execPath, [bin, '--version'], tiny).ms,
      run: () => timedAsk(bridge, '0 NOREQ', tiny).total,
    },
    runs,
  );
  // Beside the ratio, what deepwork adds to Node's own start, which the ratio depends on as much as on deepwork.
  const over = (ours: number[]) => median(ours.map((v, i) => v - (t.node[i] ?? Number.NaN))).toFixed(1);
  const run = ratioRow(
    'Start: a run with no requests in a small folder, start to answer',
    t.run,
    t.node,
    'node -e 0',
    1.5,
  );
  const version = ratioRow('Start: --version', t.version, t.node, 'node -e 0', 1.5);
  return [
    { ...run, deepwork: `${run.deepwork} (${over(t.run)} over Node's start)` },
    { ...version, deepwork: `${version.deepwork} (${over(t.version)} over Node's start)` },
  ];
}

// A rare text in one 500 MB file, after a model thinking 3 s, against ripgrep's whole process.
export function bigFileRow(bridge: Bridge, tools: Tools, folder: string, rare: string, runs: number): Row {
  const t = rounds(
    {
      find: () => timedAsk(bridge, `3000 FIND ${rare}`, folder),
      rg: shell(`${tools.rg} -F -n --no-heading ${rgSkips} -- '${rare}' . >/dev/null`, folder),
    },
    runs,
  );
  return ratioRow(
    'One 500 MB file: FIND a rare text, after a model thinking 3 s',
    t.find.map(gapOf),
    t.rg,
    'rg -F',
    1.2,
  );
}

// The pult's file tree as a page loads it: a fresh pult (a session) per round, its first GET /api/tree (the page
// draws the tree) against `find -printf` of the same paths and sizes, then the sizes the page asks for next (the
// folders' totals filled in), timed from the first request, then a reload's tree. The sessions share a state folder,
// as `deepwork ui` keeps one: the walk an earlier session kept is where the next one starts (the first round, which
// only warms the page cache, keeps it first).
export async function pultTreeRows(root: string, label: string, runs: number): Promise<Row[]> {
  const first: number[] = [];
  const sized: number[] = [];
  const again: number[] = [];
  const find: number[] = [];
  const bytes: number[] = [];
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-bench-pult-state-'));
  try {
    return await treeRounds(root, label, runs, state, { first, sized, again, find, bytes });
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
}

async function treeRounds(
  root: string,
  label: string,
  runs: number,
  state: string,
  { first, sized, again, find, bytes }: Record<'first' | 'sized' | 'again' | 'find' | 'bytes', number[]>,
): Promise<Row[]> {
  for (let round = -1; round < runs; round++) {
    const pult = await startProbe(root, state);
    let one: { ms: number; bytes: number };
    let sizes: { ms: number; bytes: number };
    let two: { ms: number; bytes: number };
    try {
      one = await getTree(pult.port, '/api/tree');
      sizes = await getTree(pult.port, '/api/tree/sizes');
      two = await getTree(pult.port, '/api/tree');
    } finally {
      // Ended before the reference runs: the pult goes on in the background after a tree (its FIND worker started, the first files read).
      await pult.stop();
    }
    const reference = processTime(`find . -path ./.git -prune -o -type f -printf '%P\t%s\n' >/dev/null`, root).ms;
    if (round < 0) continue;
    first.push(one.ms);
    sized.push(one.ms + sizes.ms);
    again.push(two.ms);
    bytes.push(one.bytes + sizes.bytes);
    find.push(reference);
  }
  return [
    ratioRow(
      `${label}: the pult's file tree, the first page load of a session (${(median(bytes) / 1e6).toFixed(1)} MB of JSON with the sizes)`,
      first,
      find,
      'find -printf',
      1.5,
    ),
    ratioRow(`${label}: the same with the files' sizes, asked for next`, sized, find, 'find -printf', null),
    ratioRow(`${label}: the same, a reload`, again, find, 'find -printf', null),
  ];
}

const TOKEN = 'bench-token-0123456789abcdef';

// A pult in a process of its own, serving `root` with a known token, keeping its walk in `state`.
async function startProbe(root: string, state: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const probe = spawn(
    process.execPath,
    [fileURLToPath(new URL('./pult-probe.js', import.meta.url)), root, TOKEN, state],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // Told before the port is awaited, so that an exit before it is heard: a wait that nothing can end ends the bench
  // with Node's exit code 13 and no word (a whole run did, once, on the Linux tree).
  const exited = new Promise<void>((resolve) => probe.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    probe.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    probe.once('error', reject);
    probe.once('exit', (code, signal) =>
      reject(new Error(`the pult probe ended (${code ?? signal}) before it listened`)),
    );
  });
  return {
    port,
    stop: () => {
      probe.kill();
      return exited;
    },
  };
}

function getTree(port: number, route: string): Promise<{ ms: number; bytes: number }> {
  const started = epochNow();
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: route, headers: { 'x-deepwork-token': TOKEN } },
      (res) => {
        let bytes = 0;
        res.on('error', reject);
        res.on('aborted', () => reject(new Error(`GET ${route}: the pult ended the answer before its end`)));
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve({ ms: epochNow() - started, bytes })
            : reject(new Error(`GET ${route}: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

// A small folder, removed by the caller.
export function tinyFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-bench-small-'));
  fs.writeFileSync(path.join(folder, 'a.js'), 'export const a = 1;\n');
  fs.mkdirSync(path.join(folder, 'src'));
  fs.writeFileSync(path.join(folder, 'src', 'b.js'), 'export const b = 2;\n');
  return folder;
}
