#!/usr/bin/env node
// Starts deepwork from any folder: the compiled command line in dist/bundle/, which `npm install` builds. CommonJS, as
// bin/package.json says, and so is what it loads: Node starts a CommonJS entry about 10 ms sooner than an ES module,
// whose loader it would set up first (see scripts/build.mjs). Its files compile from V8's code cache (./code-cache.js).
// The young generation is kept at its first size rather than grown (up to 16 MB): a folder's walk makes an object
// per entry that lives the whole run, and each scavenge of a grown young generation copied tens of thousands of them
// again (on 200,000 files, scavenges of 20-54 ms before the first message). Measured in fresh processes, alternated:
// the walk and the map before the first message 0.80x the time on 200,000 files and 0.88x on the npm corpus, peak RSS
// 10 MB less. The flag is read each time the young generation would grow, so setting it here, before anything grows,
// is enough.
// `deepwork --version` alone is answered here, from package.json, before anything else loads: the preloads, the code
// cache and the bundle made it 18 ms over Node's own start (1.64x `node -e 0`, issue 30) to print one line. Any other
// use of the flag (with --json, --lang, a question) goes through the command line as the rest do.
const argv = process.argv.slice(2);
const version = argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v') ? ownVersion() : undefined;
if (version !== undefined) process.stdout.write(`deepwork ${version}\n`);
else start();

// The version in deepwork's package.json; undefined when it cannot be read, and the command line says so its way.
function ownVersion() {
  try {
    const { version } = require('../package.json');
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

function start() {
  // A flag set changes the hash V8 checks code caches by, and Node compiles its own modules from a cache built into it:
  // those a run goes on to load are loaded before the flag. Loaded after it, they cost a run with no requests 14 ms
  // (alternated, 21 rounds: 196 -> 182 ms, the same as with no flag at all); loaded here, a command that uses few
  // of them (help, undo) pays about 5 ms for the rest.
  for (const name of ['node:crypto', 'node:http', 'node:module', 'node:os', 'node:perf_hooks', 'node:tty', 'node:vm']) {
    require(name);
  }
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
  require(entry).run(argv);
}
