// `npm run screenshots`: the browser tests, with their screenshots of the pult's main states written to
// docs/screenshots for the README (a plain test run writes them to a temp folder).

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const home = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const run = spawnSync(process.execPath, [path.join(home, 'scripts', 'test.mjs'), 'ui-browser'], {
  stdio: 'inherit',
  env: { ...process.env, DEEPWORK_ARTIFACTS: path.join(home, 'docs', 'screenshots'), DEEPWORK_REQUIRE_BROWSER: '1' },
});
process.exit(run.status ?? 1);
