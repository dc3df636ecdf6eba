// The build, run by `npm install` (the `prepare` script), `npm test` and `npm run bench`; nothing is transpiled at
// run time.
// 1. tsc compiles the TypeScript sources file by file into dist/ (the sources' layout, `.ts` imports rewritten to
//    `.js`): what the tests import.
// 2. Rollup joins that output into dist/bundle/ — the command line's entry, a chunk per command (commands/) and per
//    lazily loaded client, the search worker and the parser's worker — which is what bin/deepwork.js runs: fewer module files to find, read and link at every start.
//    Packages stay external. Rollup's WebAssembly build is used: no native binary, no install script (esbuild, which
//    tsx brought, has one that npm warns about on every install).
// 3. The files the code reads at run time go beside the code that reads them (`new URL(..., import.meta.url)`).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from '@rollup/wasm-node';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');
const bundleDir = path.join(dist, 'bundle');

// dist/ is made again from nothing, but for the bundle's chunks. A deepwork still running — the pult, a run whose model
// is thinking — loads a command's chunk when it is first used, by the name it was built with: a build meanwhile (`npm
// install` after a pull, `npm test`) took it away, and a run with --apply ended in "ENOENT … apply-BfHLRLX-.cjs" as it
// was about to write. A chunk's name holds its content's hash, so an old one is the old code whole; those this build
// does not write again are removed once they are a day old.
const KEEP_OLD_CHUNKS_MS = 24 * 60 * 60 * 1000;
const CHUNK = /-[\w-]{8}\.(cjs|js)(\.v8)?$/;
const oldChunks = fs.existsSync(bundleDir) ? fs.readdirSync(bundleDir).filter((name) => CHUNK.test(name)) : [];
for (const name of fs.existsSync(dist) ? fs.readdirSync(dist) : []) {
  if (name !== 'bundle') fs.rmSync(path.join(dist, name), { recursive: true, force: true });
}
for (const name of fs.existsSync(bundleDir) ? fs.readdirSync(bundleDir) : []) {
  if (!CHUNK.test(name)) fs.rmSync(path.join(bundleDir, name), { recursive: true, force: true });
}
// typescript's package exports no path to its command line; it sits where npm puts the package.
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (compiled.status !== 0) {
  process.stderr.write('deepwork: the build failed (tsc above says why).\n');
  process.exit(compiled.status ?? 1);
}

const external = (id) => !id.startsWith('.') && !path.isAbsolute(id);
const onwarn = (warning) => {
  throw new Error(`deepwork: the bundle step warned: ${warning.message}`);
};
// The command line as CommonJS: Node 20 loads it much faster than the same code as ES modules (measured here: a run
// with no requests 1.65× `node -e 0` against 2.3×). Dynamic imports become requires, still made only when needed,
// those of Node's own modules included: bin/code-cache.js compiles the files as scripts, which have no import().
const cli = await rollup({ input: { deepwork: path.join(dist, 'deepwork.js') }, external, onwarn });
const written = new Set();
const wrote = ({ output }) => {
  for (const file of output) written.add(file.fileName);
};
wrote(
  await cli.write({
    dir: bundleDir,
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: '[name]-[hash].cjs',
    dynamicImportInCjs: false,
  }),
);
await cli.close();
// The search worker, which reading/search/finder.ts starts from `./worker.js` beside itself: one ES module file.
const worker = await rollup({ input: { worker: path.join(dist, 'reading', 'search', 'worker.js') }, external, onwarn });
wrote(
  await worker.write({ dir: bundleDir, format: 'es', entryFileNames: '[name].js', chunkFileNames: 'worker-[hash].js' }),
);
await worker.close();
// The parser's worker, which reading/outline/parsers.ts starts from `./parse-worker.js` beside itself (OUTLINE, the map).
const parser = await rollup({
  input: { 'parse-worker': path.join(dist, 'reading', 'outline', 'parse-worker.js') },
  external,
  onwarn,
});
wrote(
  await parser.write({ dir: bundleDir, format: 'es', entryFileNames: '[name].js', chunkFileNames: 'parse-[hash].js' }),
);
// The chunks of earlier builds, with their code caches, once a day old.
const now = Date.now();
for (const name of oldChunks) {
  if (written.has(name.replace(/\.v8$/, ''))) continue;
  const file = path.join(bundleDir, name);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat !== undefined && now - stat.mtimeMs > KEEP_OLD_CHUNKS_MS) fs.rmSync(file, { force: true });
}
await parser.close();

// The page: its HTML, its style and every module of its script (ui/server.ts serves each .js of the folder by name).
const PAGE = [
  'index.html',
  'style.css',
  ...fs
    .readdirSync(path.join(root, 'ui', 'page'))
    .filter((name) => name.endsWith('.js'))
    .sort(),
];
// The texts the page shares with the console, as they are written (tsc re-prints them): the page imports them from
// ../../common/strings/, which ui/server.ts serves from beside the code.
const STRINGS = fs
  .readdirSync(path.join(root, 'common', 'strings'))
  .filter((name) => name.endsWith('.js'))
  .sort();
const ASSETS = [
  ['protocol/instructions.md', ['protocol/instructions.md', 'bundle/instructions.md']],
  ...PAGE.map((name) => [`ui/page/${name}`, [`ui/page/${name}`, `bundle/page/${name}`]]),
  ...STRINGS.map((name) => [`common/strings/${name}`, [`common/strings/${name}`]]),
];
for (const [source, targets] of ASSETS) {
  for (const target of targets) {
    fs.mkdirSync(path.dirname(path.join(dist, target)), { recursive: true });
    fs.copyFileSync(path.join(root, source), path.join(dist, target));
  }
}
