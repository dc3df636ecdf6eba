// Whole-process rows: deepwork as the user waits for it, a fresh process from start to answer against a loopback
// bridge, alternated in one loop with its reference (ripgrep, fd, `node -e 0`) so that a change in the machine's load
// hits both sides alike, and reported as ratios. FIND's own cost is a run with the request less the same run without
// it, set against the reference tool's whole process.

import { heading } from '../protocol/wire.ts';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { INSTALL_DIR } from '../common/install.ts';
import { median, processTime, timedRun } from './tools.ts';

const BIN = path.join(INSTALL_DIR, 'bin', 'deepwork.js');

// A loopback Ollama-style bridge in its own process (this one is blocked while it waits for the runs). What it
// replies depends on the question: "FIND a|b" asks FIND of each text, "LIST mask" a LIST, "OUTLINE x" an OUTLINE,
// anything else is answered at once; a message that already holds results is answered.
const BRIDGE = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    // Only POST /api/chat: the model's window is not told (a 404 for /api/show), so the default is used.
    if (req.url !== '/api/chat') {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{"error":"not found"}');
    }
    const message = JSON.parse(body).messages[0].content;
    const heading = ${JSON.stringify(`${heading.question}\n`)};
    const at = message.lastIndexOf(heading);
    const question = at === -1 ? '' : message.slice(at + heading.length).split('\\n')[0];
    let reply = 'The answer.';
    if (!message.includes(${JSON.stringify(heading.results(1).replace(/ 1 ===$/, ''))})) {
      if (question.startsWith('FIND ')) reply = question.slice(5).split('|').map((t) => '=== FIND: ' + t + ' ===').join('\\n');
      else if (question.startsWith('LIST ')) reply = '=== LIST: ' + question.slice(5) + ' ===';
      else if (question.startsWith('OUTLINE ')) reply = '=== OUTLINE: ' + question.slice(8) + ' ===';
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.end(JSON.stringify({ message: { role: 'assistant', content: reply }, done: true }) + '\\n');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

// Loaded before deepwork with --require: the process's peak RSS (all threads) on stderr as it exits.
const RSS_PRELOAD = `process.on('exit', () => require('node:fs').writeSync(2, '\\nmaxrss:' + process.resourceUsage().maxRSS + '\\n'));`;

export type Bridge = { port: string; close: () => void };

export async function startBridge(): Promise<Bridge> {
  const bridge = spawn(process.execPath, ['-e', BRIDGE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    bridge.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    bridge.once('error', reject);
  });
  return { port, close: () => bridge.kill() };
}

// A temporary config whose state and backups go to a temp folder.
function scratchConfig(): { file: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-bench-state-'));
  const file = path.join(dir, 'config.json');
  fs.writeFileSync(file, JSON.stringify({ stateDir: path.join(dir, 'state'), backupDir: path.join(dir, 'backup') }));
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

// Commands measured side by side: every round runs each once, in order; the first round only warms the page cache.
// Medians per command.
export function alternate(commands: Record<string, () => number>, rounds: number): Record<string, number> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let round = -1; round < rounds; round++) {
    for (const [name, run] of Object.entries(commands)) {
      const ms = run();
      if (round >= 0) times[name]?.push(ms);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

export type Deepwork = (question: string, cwd: string) => number;

// deepwork asking `question` in `cwd`, start to answer, against the bridge.
export function deepworkRun(bridge: Bridge, config: string): Deepwork {
  return (question, cwd) =>
    timedRun(
      process.execPath,
      [BIN, question, '--host', `http://127.0.0.1:${bridge.port}`, '--config', config, '--any-folder'],
      cwd,
    ).ms;
}

export type StartTimes = { node: number; version: number; run: number };

// A run with no requests in a small folder, and --version, against `node -e 0`.
export function startTimes(bridge: Bridge, rounds: number): StartTimes {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-bench-small-'));
  fs.writeFileSync(path.join(folder, 'a.js'), 'export const a = 1;\n');
  fs.mkdirSync(path.join(folder, 'src'));
  fs.writeFileSync(path.join(folder, 'src', 'b.js'), 'export const b = 2;\n');
  const config = scratchConfig();
  try {
    const ask = deepworkRun(bridge, config.file);
    const t = alternate(
      {
        node: () => timedRun(process.execPath, ['-e', '0'], folder).ms,
        version: () => timedRun(process.execPath, [BIN, '--version'], folder).ms,
        run: () => ask('Where is a defined?', folder),
      },
      rounds,
    );
    return { node: t.node ?? 0, version: t.version ?? 0, run: t.run ?? 0 };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
    config.remove();
  }
}

export function withConfig<T>(use: (config: string) => T): T {
  const config = scratchConfig();
  try {
    return use(config.file);
  } finally {
    config.remove();
  }
}

// A folder holding one file of `mb` megabytes of code-like lines, without the rare text; removed by the caller.
export function bigFileFolder(mb: number): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-bench-big-'));
  const lines = Array.from(
    { length: 20_000 },
    (_, i) => `  const value${i} = compute(${i}, "some text here", options); // line ${i}`,
  );
  const block = Buffer.from(`${lines.join('\n')}\n`);
  const fd = fs.openSync(path.join(folder, 'huge.log'), 'w');
  try {
    for (let written = 0; written < mb << 20; written += block.length) fs.writeSync(fd, block);
  } finally {
    fs.closeSync(fd);
  }
  return folder;
}

// A folder of `count` small source files in folders of a thousand; removed by the caller.
export function manyFilesFolder(count: number): string {
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const folder = fs.mkdtempSync(path.join(base, 'deepwork-bench-many-'));
  for (let d = 0; d * 1000 < count; d++) {
    const dir = path.join(folder, `pkg${d}`, 'src');
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 1000 && d * 1000 + f < count; f++)
      fs.writeFileSync(path.join(dir, `file${f}.ts`), `export const value${f} = ${d} + ${f};\n// text of file ${f}\n`);
  }
  return folder;
}

// The peak RSS, in MB, of deepwork asking `question` in `cwd` (all its threads), the median of `rounds` runs.
export function peakRss(bridge: Bridge, config: string, question: string, cwd: string, rounds: number): number {
  const preload = path.join(os.tmpdir(), `deepwork-bench-rss-${process.pid}.cjs`);
  fs.writeFileSync(preload, RSS_PRELOAD);
  try {
    const values = Array.from({ length: rounds }, () => {
      const { stderr } = timedRun(
        process.execPath,
        [
          '--require',
          preload,
          BIN,
          question,
          '--host',
          `http://127.0.0.1:${bridge.port}`,
          '--config',
          config,
          '--any-folder',
        ],
        cwd,
      );
      const kb = Number(/maxrss:(\d+)/.exec(stderr)?.[1] ?? Number.NaN);
      return kb / 1024;
    });
    return median(values);
  } finally {
    fs.rmSync(preload, { force: true });
  }
}

export function shell(command: string, cwd: string): number {
  return processTime(command, cwd).ms;
}
