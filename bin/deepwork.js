#!/usr/bin/env node
// Starts deepwork from any folder: the compiled command line in dist/bundle/, which `npm install` builds. CommonJS, as
// bin/package.json says, and so is what it loads: Node starts a CommonJS entry about 10 ms sooner than an ES module,
// whose loader it would set up first (see scripts/build.mjs). Its files compile from V8's code cache (./code-cache.js).
// The young generation is kept at its first size rather than grown (up to 16 MB): a folder's walk makes an object
// per entry that lives the whole run, and each scavenge of a grown young generation copied tens of thousands of them
// again (on 200,000 files, scavenges of 20-54 ms before the first message). Measured in fresh processes, alternated:
// the walk and the map before the first message 0.80x the time on 200,000 files and 0.88x on the npm corpus, peak RSS
// 10 MB less; a FIND's common text after a reply at once 1.11x, and a run with no requests 1.06x, since Node's own
// modules then compile without its code cache (a flag set changes the hash V8 checks it by). The flag is read each
// time the young generation would grow, so setting it here, before anything grows, is enough.
require('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
const { existsSync } = require('node:fs');
const path = require('node:path');

const entry = path.join(__dirname, '..', 'dist', 'bundle', 'deepwork.cjs');
if (!existsSync(entry)) {
  process.stderr.write(
    `deepwork: it is not built yet (${entry} is missing). Run "npm install" in deepwork's folder.\n`,
  );
  process.exit(1);
}
require('./code-cache.js').useCodeCache(path.dirname(entry));
require(entry).run(process.argv.slice(2));
