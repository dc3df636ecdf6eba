// What every browser test shares: finding a Chromium, the rule for when its absence skips a test and when it fails the
// run, where screenshots go, and starting the browser — bare, or with deepwork's extension in a profile of its own.
// Without a Chromium the browser tests are skipped with a notice; .ci/run installs it and sets
// DEEPWORK_REQUIRE_BROWSER=1, making its absence a failure.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { INSTALL_DIR } from '../common/install.ts';

const CANDIDATES = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];

const executable = CANDIDATES.find((p): p is string => p !== undefined && p !== '' && fs.existsSync(p));

if (executable === undefined) {
  const missing =
    'No Chromium found (looked for /usr/bin/chromium). Install it with `apt-get install -y chromium`, or set CHROMIUM_PATH.';
  if (process.env.DEEPWORK_REQUIRE_BROWSER === '1')
    throw new Error(`${missing} DEEPWORK_REQUIRE_BROWSER=1 makes its absence a failure.`);
  process.stderr.write(`${missing} The browser tests are skipped.\n`);
}

// The `skip` option of a browser test's describe().
export const browserSkip: string | false = executable === undefined ? 'no Chromium on this machine' : false;

// Screenshots go to DEEPWORK_ARTIFACTS when it is set (scripts/screenshots.mjs sets docs/screenshots), else to a temp
// folder: a test run writes nothing into the repository.
export const ARTIFACTS =
  process.env.DEEPWORK_ARTIFACTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-artifacts-'));

// The path a screenshot named `name` is saved to, its folder made.
export function artifact(name: string): string {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}

// The extension as installed beside deepwork.
export const EXTENSION = path.join(INSTALL_DIR, 'extension');

// Quiet: no first-run pages, no background traffic (the tests allow no network beyond loopback).
const QUIET = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: executable ?? '', args: QUIET });
}

// A Chromium with deepwork's extension loaded, in a fresh profile (extensions need a persistent one).
export function launchWithExtension(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-profile-')), {
    executablePath: executable ?? '',
    headless: true,
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
    args: [...QUIET, `--disable-extensions-except=${EXTENSION}`, `--load-extension=${EXTENSION}`],
  });
}
