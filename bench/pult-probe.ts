// Run by the benchmark in a fresh process: a pult serving the folder named first, with the token named second, on a
// free port, which it prints; it serves until it is ended. As `deepwork ui` does, it keeps the walk in a state folder,
// named third (the bench keeps it across the rounds of one row: a session in a folder an earlier session opened), and
// closes its executor as it ends.

import { createExecutor } from '../reading/executor.ts';
import { startPult } from '../ui/server.ts';
import { createDemoBridge } from '../bridge/demo.ts';
import { walkStore } from '../saved/walk-cache.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [root = '.', token = '', kept] = process.argv.slice(2);
const state = fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-bench-pult-'));
process.on('exit', () => fs.rmSync(state, { recursive: true, force: true }));
// The backup folder where the walk is kept: a guarded place, in the key a kept walk is made under, so the same each
// session, as deepwork ui's is.
const backupDir = path.join(kept ?? state, 'backup');
const executor = createExecutor(root, {
  backupDir,
  ...(kept === undefined ? {} : { walkStore: (r: string) => walkStore(kept, r) }),
});
process.on('SIGTERM', () => {
  void executor.close().then(() => process.exit(0));
});
const pult = await startPult({
  executor,
  bridge: createDemoBridge(),
  demo: createDemoBridge,
  check: () => Promise.resolve({ kind: 'demo' } as never),
  stateDir: state,
  host: 'http://127.0.0.1:9',
  model: 'none',
  steps: 8,
  backupDir,
  port: 0,
  token,
});
process.stdout.write(`${pult.port}\n`);
