// The model, as the benchmark plays it: a loopback Ollama-style bridge in a process of its own, which answers the
// window's question (`/api/show`) as Ollama does, thinks as long as each question says, and notes when each request
// arrived and when the last byte of each reply left. deepwork's share of a step is then measured where the user waits
// for it: from the reply's last byte to the next request's arrival, timestamped in the bridge.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { INSTALL_DIR } from '../common/install.ts';
import { heading } from '../protocol/wire.ts';

const BIN = path.join(INSTALL_DIR, 'bin', 'deepwork.js');

// A question is `<ms> <what>`: the model thinks `ms` before each reply; `FIND a|b` asks FIND of each text, `LIST mask`
// a LIST, `OUTLINE target` an OUTLINE, anything else is answered at once. A message that already holds results is
// answered. Each chat request is logged as a line: when it arrived (its body's end) and when its reply's last byte was
// handed to the socket, in ms since the epoch (performance.timeOrigin + now(), the same clock in every process of the
// machine).
const BRIDGE = `
const http = require('node:http');
const fs = require('node:fs');
const log = process.argv[1];
const now = () => performance.timeOrigin + performance.now();
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const arrived = now();
    if (req.url === '/api/show') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ model_info: { 'general.architecture': 'bench', 'bench.context_length': 131072 } }));
    }
    if (req.url !== '/api/chat') {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{"error":"not found"}');
    }
    const message = JSON.parse(body).messages[0].content;
    const heading = ${JSON.stringify(`${heading.question}\n`)};
    const at = message.lastIndexOf(heading);
    const asked = /^(\\d+) (.*)$/.exec(at === -1 ? '' : message.slice(at + heading.length).split('\\n')[0]) ?? [];
    const delay = Number(asked[1] ?? 0);
    const question = asked[2] ?? '';
    let reply = 'The answer.';
    if (!message.includes(${JSON.stringify(heading.results(1).replace(/ 1 ===$/, ''))})) {
      if (question.startsWith('FIND ')) reply = question.slice(5).split('|').map((t) => '=== FIND: ' + t + ' ===').join('\\n');
      else if (question.startsWith('LIST ')) reply = '=== LIST: ' + question.slice(5) + ' ===';
      else if (question.startsWith('OUTLINE ')) reply = '=== OUTLINE: ' + question.slice(8) + ' ===';
    }
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(JSON.stringify({ message: { role: 'assistant', content: reply }, done: true }) + '\\n', () => {
        fs.appendFileSync(log, JSON.stringify({ arrived, replied: now() }) + '\\n');
      });
    }, delay);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

// Loaded before deepwork with --require: the process's peak RSS (all threads) on stderr as it exits.
const RSS_PRELOAD = `process.on('exit', () => require('node:fs').writeSync(2, '\\nmaxrss:' + process.resourceUsage().maxRSS + '\\n'));`;

// `config`: the config every run shares, whose state folder keeps what a run leaves for the next (the walk, the map's
// cache), as a person asking again and again in one folder has it. `coldConfig()`: a config whose state folder is new,
// so that a run keeps nothing from earlier ones, as a first question in a folder has it; the one made before is removed.
export type Bridge = {
  port: string;
  log: string;
  preload: string;
  config: string;
  coldConfig: () => string;
  close: () => void;
};

// The bridge, its log, the RSS preload and a config whose state and backups go to a temp folder.
export async function startBridge(): Promise<Bridge> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-bench-bridge-'));
  const log = path.join(dir, 'log.ndjson');
  const preload = path.join(dir, 'rss.cjs');
  const config = path.join(dir, 'config.json');
  fs.writeFileSync(log, '');
  fs.writeFileSync(preload, RSS_PRELOAD);
  fs.writeFileSync(config, JSON.stringify({ stateDir: path.join(dir, 'state'), backupDir: path.join(dir, 'backup') }));
  const cold = path.join(dir, 'cold.json');
  let colds = 0;
  const coldConfig = () => {
    fs.rmSync(path.join(dir, `cold-state-${colds}`), { recursive: true, force: true });
    colds++;
    const stateDir = path.join(dir, `cold-state-${colds}`);
    fs.writeFileSync(cold, JSON.stringify({ stateDir, backupDir: path.join(dir, 'backup') }));
    return cold;
  };
  const bridge = spawn(process.execPath, ['-e', BRIDGE, log], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    bridge.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    bridge.once('error', reject);
    bridge.once('exit', (code, signal) =>
      reject(new Error(`the bench's bridge ended (${code ?? signal}) before it listened`)),
    );
  });
  return {
    port,
    log,
    preload,
    config,
    coldConfig,
    close: () => {
      bridge.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// One run as the user waits for it. `first`: from the start of the process to the first message's arrival (start-up,
// the walk and the tree); `gap`: from the first reply's last byte to the next message's arrival (deepwork's share of
// step 2), undefined for a run of one step; `total`: the process's whole life; `rssMb`: its peak RSS, when asked.
export type Timed = { first: number; gap: number | undefined; total: number; rssMb: number | undefined };

export const epochNow = (): number => performance.timeOrigin + performance.now();

// deepwork asking `question` (`<ms> <what>`, see BRIDGE) in `cwd`, start to end, timed in the bridge; with `config`,
// that config rather than the shared one.
export function timedAsk(bridge: Bridge, question: string, cwd: string, rss = false, config = bridge.config): Timed {
  fs.writeFileSync(bridge.log, '');
  const args = [BIN, question, '--host', `http://127.0.0.1:${bridge.port}`, '--config', config, '--any-folder'];
  const started = epochNow();
  const run = spawnSync(process.execPath, rss ? ['--require', bridge.preload, ...args] : args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const ended = epochNow();
  if (run.status !== 0) throw new Error(`deepwork ${question} failed (${run.status}): ${run.stderr}`);
  const steps = fs
    .readFileSync(bridge.log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { arrived: number; replied: number });
  const [one, two] = steps;
  if (one === undefined) throw new Error(`deepwork ${question}: no request reached the bridge`);
  const kb = Number(/maxrss:(\d+)/.exec(run.stderr)?.[1] ?? Number.NaN);
  return {
    first: one.arrived - started,
    gap: two === undefined ? undefined : two.arrived - one.replied,
    total: ended - started,
    rssMb: rss ? kb / 1024 : undefined,
  };
}
