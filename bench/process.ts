// Whole-process rows: deepwork as the user waits for it, a fresh process from start to answer, alternated in one
// loop with `node -e 0` (the floor any Node program starts from), reported as ratios.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { INSTALL_DIR } from '../common/install.ts';
import { median } from './tools.ts';

const BIN = path.join(INSTALL_DIR, 'bin', 'deepwork.js');

// A loopback Ollama-style bridge in its own process (this one is blocked while it waits for the runs): every chat is
// answered at once with a reply that has no requests.
const BRIDGE = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.end(JSON.stringify({ message: { role: 'assistant', content: 'The answer.' }, done: true }) + '\\n');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

export type ProcessTimes = { node: number; version: number; run: number };

export async function processTimes(runs: number): Promise<ProcessTimes> {
  const bridge = spawn(process.execPath, ['-e', BRIDGE], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      bridge.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
      bridge.once('error', reject);
    });
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-bench-small-'));
    fs.writeFileSync(path.join(folder, 'a.js'), 'export const a = 1;\n');
    fs.mkdirSync(path.join(folder, 'src'));
    fs.writeFileSync(path.join(folder, 'src', 'b.js'), 'export const b = 2;\n');
    const config = path.join(folder, '..', `${path.basename(folder)}.json`);
    fs.writeFileSync(config, JSON.stringify({ stateDir: `${folder}-state`, backupDir: `${folder}-backup` }));
    const timed = (args: string[]): number => {
      const started = process.hrtime.bigint();
      const result = spawnSync(process.execPath, args, { cwd: folder, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
      return ms;
    };
    const times: { node: number[]; version: number[]; run: number[] } = { node: [], version: [], run: [] };
    // One untimed round first: the files come into the page cache for all three alike.
    for (let i = -1; i < runs; i++) {
      const node = timed(['-e', '0']);
      const version = timed([BIN, '--version']);
      const run = timed([BIN, 'Where is a defined?', '--host', `http://127.0.0.1:${port}`, '--config', config]);
      if (i < 0) continue;
      times.node.push(node);
      times.version.push(version);
      times.run.push(run);
    }
    for (const p of [folder, `${folder}-state`, `${folder}-backup`, config]) fs.rmSync(p, { recursive: true, force: true });
    return { node: median(times.node), version: median(times.version), run: median(times.run) };
  } finally {
    bridge.kill();
  }
}
