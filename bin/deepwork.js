#!/usr/bin/env node
// Starts deepwork from any folder. The sources are TypeScript; tsx runs them on every Node version from 20 on
// (Node's own type stripping does not work for packages installed under node_modules).
import { register } from 'tsx/esm/api';

register();
const { run } = await import(new URL('../deepwork.ts', import.meta.url).href);
run(process.argv.slice(2));
