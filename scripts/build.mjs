// The build: TypeScript sources compiled file by file into dist/ (the layout of the sources, `.ts` imports rewritten
// to `.js`), and the files the code reads at run time copied beside the code that reads them. Run by `npm install`
// (the `prepare` script) and by `npm test`; nothing is transpiled at run time.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');
const ASSETS = ['protocol/instructions.md', 'ui/page/index.html', 'ui/page/style.css', 'ui/page/app.js'];

fs.rmSync(dist, { recursive: true, force: true });
// typescript's package exports no path to its command line; it sits where npm puts the package.
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (compiled.status !== 0) {
  process.stderr.write('deepwork: the build failed (tsc above says why).\n');
  process.exit(compiled.status ?? 1);
}
for (const asset of ASSETS) {
  const target = path.join(dist, asset);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(path.join(root, asset), target);
}
