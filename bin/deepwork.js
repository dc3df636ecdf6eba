#!/usr/bin/env node
// Starts deepwork from any folder: the compiled JavaScript in dist/, which `npm install` builds.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/bundle/deepwork.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(`deepwork: it is not built yet (${fileURLToPath(entry)} is missing). Run "npm install" in deepwork's folder.\n`);
  process.exit(1);
}
const { run } = await import(entry.href);
run(process.argv.slice(2));
