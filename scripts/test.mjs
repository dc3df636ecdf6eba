// npm test's runner: the compiled test files, dist/test/*.test.js, through node's test runner. Listed here rather
// than by a shell glob so that it works the same under cmd.exe; arguments narrow it to files whose name holds them.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), 'dist', 'test');
const wanted = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((name) => name.endsWith('.test.js') && (wanted.length === 0 || wanted.some((w) => name.includes(w))))
  .sort()
  .map((name) => path.join(dir, name));
if (files.length === 0) {
  process.stderr.write(
    `No test files in ${dir}${wanted.length > 0 ? ` matching ${wanted.join(', ')}` : ''}. Run npm run build first.\n`,
  );
  process.exit(1);
}
// A line per file and a summary, every failure in full (scripts/summary-reporter.mjs); DEEPWORK_TEST_REPORTER names
// another of node's reporters (tap, spec, dot) or a file of one.
const chosen = process.env.DEEPWORK_TEST_REPORTER;
const reporter =
  chosen === undefined || chosen === '' ? new URL('./summary-reporter.mjs', import.meta.url).href : chosen;
// A test that hangs fails after five minutes, named, and the run goes on. (--test-force-exit, which would end a file
// held open by a handle its tests left, also cuts the reporter's summary and failures short in Node.js 20; a file that
// hangs so is the one after the last line printed.)
const bounds = ['--test-timeout=300000'];
const run = spawnSync(process.execPath, ['--test', ...bounds, `--test-reporter=${reporter}`, ...files], {
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
