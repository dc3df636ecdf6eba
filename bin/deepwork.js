#!/usr/bin/env node
// Starts deepwork from any folder: the compiled command line in dist/bundle/, which `npm install` builds. It is
// CommonJS because Node loads that faster than ES modules (see scripts/build.mjs).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../dist/bundle/deepwork.cjs', import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write(
    `deepwork: it is not built yet (${entry} is missing). Run "npm install" in deepwork's folder.\n`,
  );
  process.exit(1);
}
createRequire(import.meta.url)(entry).run(process.argv.slice(2));
