#!/usr/bin/env node
// Starts deepwork from any folder: the compiled command line in dist/bundle/, which `npm install` builds. CommonJS, as
// bin/package.json says, and so is what it loads: Node starts a CommonJS entry about 10 ms sooner than an ES module,
// whose loader it would set up first (see scripts/build.mjs). Its files compile from V8's code cache (./code-cache.js).
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
