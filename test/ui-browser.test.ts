// The pult end to end in a real headless Chromium (Debian's, driven by playwright-core). Without a Chromium the
// tests are skipped with a notice; .ci/run installs it and sets DEEPWORK_REQUIRE_BROWSER=1, making absence a failure.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startPult, type Pult } from '../ui/server.ts';
import { pultOptions } from './pult-options.ts';
import { createExecutor } from '../reading/execute.ts';
import { createOllamaBridge } from '../bridge/ollama.ts';
import { startFakeBridge, type FakeBridge } from './fake-bridge.ts';
import { tempFolder, thirtyThousandFiles } from './helpers.ts';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const executable = CANDIDATES.find((p): p is string => p !== undefined && p !== '' && fs.existsSync(p));
// Screenshots go to DEEPWORK_ARTIFACTS when it is set, else to a temp folder: a test run writes nothing into the repository.
const ARTIFACTS = process.env.DEEPWORK_ARTIFACTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-artifacts-'));
const required = process.env.DEEPWORK_REQUIRE_BROWSER === '1';

if (executable === undefined) {
  const missing = 'No Chromium found (looked for /usr/bin/chromium). Install it with `apt-get install -y chromium`, or set CHROMIUM_PATH.';
  if (required) throw new Error(`${missing} DEEPWORK_REQUIRE_BROWSER=1 makes its absence a failure.`);
  process.stderr.write(`${missing} The browser tests are skipped.\n`);
}

const HOSTILE = [
  'Here is `a.js`, changed:',
  '',
  '```js',
  'const a = 2;',
  '```',
  '',
  '<script>window.pwned = "script"</script>',
  '<img src="x" onerror="window.pwned = \'img\'">',
  '[click me](javascript:window.pwned=\'link\')',
  '',
  '=== FILE: a.js ===',
  '```js',
  'const a = 2;',
  '```',
  '=== END ===',
].join('\n');

describe('the pult in Chromium', { skip: executable === undefined ? 'no Chromium on this machine' : false }, () => {
  let browser: Browser;
  let pult: Pult;
  let fake: FakeBridge;
  let page: Page;
  const root = tempFolder({ 'a.js': 'const a = 1;\n', 'src/util.js': 'export const u = 1;\n' });
  const backupDir = path.join(tempFolder(), 'backup');

  before(async () => {
    fake = await startFakeBridge({
      manualClose: true,
      chat: (_content, i) => (i === 0 ? { kind: 'slow', ms: 1500, text: 'Let me read it.\n=== NEED: a.js ===' } : { kind: 'reply', text: HOSTILE }),
    });
    const executor = createExecutor(root, { backupDir });
    const bridge = createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 10_000 });
    pult = await startPult(pultOptions({ executor, bridge, host: fake.host, model: 'm', steps: 4, backupDir, port: 0 }));
    browser = await chromium.launch({
      executablePath: executable ?? '',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage();
    await page.goto(pult.url);
  });
  after(async () => {
    await browser?.close();
    await pult?.close();
    await fake?.close();
  });

  it('asks with a ticked file, shows the steps live, renders the answer inert, and writes the file with a backup', async () => {
    await page.getByRole('checkbox', { name: 'a.js', exact: true }).check();
    await page.getByLabel('Question').fill('What is a?');
    await page.getByLabel('Question').press('Control+Enter');

    // Live: the first step is logged and its waiting line counts while the bridge is still thinking.
    await page.getByText(/Step 1\/4: sending [\d,]+ characters, about [\d,]+ tokens of [\d,]+\./).waitFor();
    await page.getByText(/Step 1: waiting \d+ s/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Stop' }).isEnabled(), true);

    const answer = page.locator('.answer');
    await answer.waitFor();
    assert.match(fake.chats[0]?.content ?? '', /=== FILES ATTACHED BY THE USER ===\n=== RESULT NEED a\.js/);
    assert.equal(await answer.locator('pre code').first().textContent(), 'const a = 2;\n');
    assert.equal(await page.evaluate(() => (globalThis as { pwned?: string }).pwned), undefined);
    assert.equal(await answer.locator('script, img, a[href^="javascript"]').count(), 0);
    assert.match(await answer.innerText(), /<script>window\.pwned = "script"<\/script>/);
    await answer.getByText('click me').click().catch(() => {});
    assert.equal(await page.evaluate(() => (globalThis as { pwned?: string }).pwned), undefined);

    await page.getByText('Diff').click();
    assert.match(await page.locator('pre.diff').innerText(), /-const a = 1;\n\+const a = 2;/);

    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'pult.png'), fullPage: true });

    await page.getByRole('button', { name: 'Write a.js' }).click();
    await page.getByText(/^written; previous version in /).waitFor();
    assert.equal(fs.readFileSync(path.join(root, 'a.js'), 'utf8'), 'const a = 2;\n');
    const [set] = fs.readdirSync(backupDir);
    assert.ok(set !== undefined);
    assert.equal(fs.readFileSync(path.join(backupDir, set, 'files', 'a.js'), 'utf8'), 'const a = 1;\n');

    await page.getByRole('button', { name: /^Undo/ }).click();
    await page.getByRole('button', { name: 'Write a.js' }).waitFor();
    assert.equal(fs.readFileSync(path.join(root, 'a.js'), 'utf8'), 'const a = 1;\n');
  });

  it('keeps earlier questions on the page and filters the file tree', async () => {
    await page.getByLabel('Filter').fill('util');
    assert.deepEqual(await page.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => b.getAttribute('aria-label'))), ['src/util.js']);
    await page.getByLabel('Filter').fill('');
    await page.getByRole('button', { name: 'Open folder src' }).click();
    await page.getByRole('checkbox', { name: 'src/util.js' }).waitFor();

    await page.getByLabel('Bridge').selectOption('demo');
    await page.getByLabel('Question').fill('where is util?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('#run-2[data-state="answered"]').waitFor();
    assert.equal(await page.locator('article.run').count(), 2);
    assert.match(await page.locator('#run-2').innerText(), /demo bridge \(not a model\)/);
    assert.match(await page.locator('#run-1 h3').innerText(), /What is a\?/);
  });

  it('shows the bridge state at the top: idle, as the fake bridge has no model up', async () => {
    // The check is held in flight: the page must not show the previous state meanwhile.
    const release = fake.holdTags();
    await page.getByRole('button', { name: 'Check the bridge' }).click();
    await page.locator('#bridge-state.checking').waitFor();
    assert.equal(await page.locator('#bridge-state').innerText(), 'checking…');
    release();
    await page.locator('#bridge-state.idle').waitFor();
    assert.equal(await page.locator('#bridge-state').innerText(), 'idle');
    assert.match(await page.locator('#bridge-message').innerText(), /not up yet; it starts on the first question/);
  });
});

describe('the pult in Chromium on a 30,000-file folder', { skip: executable === undefined ? 'no Chromium on this machine' : false }, () => {
  let browser: Browser;
  let pult: Pult;
  const root = thirtyThousandFiles('deepwork-big-');

  before(async () => {
    const executor = createExecutor(root);
    pult = await startPult(pultOptions({ executor, bridge: createOllamaBridge({ host: 'http://127.0.0.1:9', model: 'm', timeoutMs: 1000 }), host: 'http://127.0.0.1:9', model: 'm', steps: 4, backupDir: path.join(root, '..', 'unused-backup'), port: 0 }));
    browser = await chromium.launch({ executablePath: executable ?? '', args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  });
  after(async () => {
    await browser?.close();
    await pult?.close();
  });

  it('shows the top folders, opens one on demand and filters down to a deep file', async () => {
    const page = await browser.newPage();
    await page.goto(pult.url);
    await page.getByText('(30,000)').waitFor();
    // Only the top level is drawn at first: thirty folders, no file checkboxes yet.
    assert.equal(await page.locator('#tree button.folder').count(), 30);
    assert.equal(await page.getByRole('checkbox').count(), 0);
    await page.getByRole('button', { name: 'Open folder pkg7' }).click();
    await page.getByRole('button', { name: 'Open folder pkg7/mod3' }).click();
    assert.equal(await page.getByRole('checkbox').count(), 100);
    await page.getByLabel('Filter').fill('pkg29/mod9/file99');
    await page.getByRole('checkbox', { name: 'pkg29/mod9/file99.ts' }).check();
    assert.match(await page.locator('#selected').innerText(), /1 file goes with the question: pkg29\/mod9\/file99\.ts/);
  });
});


describe('a hostile page in the same Chromium (hardening issue 9)', { skip: executable === undefined ? 'no Chromium on this machine' : false }, () => {
  let browser: Browser;
  let pult: Pult;
  let hostile: http.Server;
  const root = tempFolder({ 'a.js': 'const a = 1;\n' });
  let asked = 0;

  before(async () => {
    const bridge = { label: 'counting', chat: () => Promise.resolve(`answer ${++asked}`) };
    pult = await startPult(pultOptions({ executor: createExecutor(root), bridge, host: 'h', model: 'm', steps: 2, backupDir: path.join(tempFolder(), 'backup'), port: 0 }));
    // Another site the user has open: a page on another loopback port, so another origin.
    hostile = http.createServer((_req, res) => res.end('<!doctype html><title>evil</title>'));
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    browser = await chromium.launch({ executablePath: executable ?? '', args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  });
  after(async () => {
    await browser?.close();
    await pult?.close();
    hostile?.close();
  });

  it('cannot end the pult or start a run, whatever it sends', async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(hostile.address() as AddressInfo).port}/`);
    // The page's script as text: what a hostile site would run (and not rewritten by the TypeScript loader).
    const attack = `(async (port) => {
      const socket = (url) => new Promise((resolve) => {
        let ws;
        try { ws = new WebSocket(url); } catch (error) { return resolve('throws ' + error); }
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('refused');
      });
      const tries = [
        await socket('ws://127.0.0.1:' + port + '//[x'),
        await socket('ws://127.0.0.1:' + port + '/ws'),
        await socket('ws://127.0.0.1:' + port + '/ws?token=guess'),
      ];
      const post = async (type) => {
        try {
          const res = await fetch('http://127.0.0.1:' + port + '/api/ask', { method: 'POST', mode: 'no-cors', headers: { 'content-type': type }, body: '{"question":"pwn","demo":true}' });
          return 'status ' + res.status;
        } catch { return 'blocked'; }
      };
      tries.push(await post('text/plain'), await post('application/json'));
      return tries;
    })(${pult.port})`;
    const outcomes = await page.evaluate(attack) as string[];
    assert.deepEqual(outcomes.slice(0, 3), ['refused', 'refused', 'refused']);
    const ping = await fetch(`http://127.0.0.1:${pult.port}/api/ping?token=${pult.token}`);
    assert.equal(ping.status, 200);
    const state = await (await fetch(`http://127.0.0.1:${pult.port}/api/state?token=${pult.token}`)).json() as { runs: unknown[] };
    assert.deepEqual(state.runs, []);
    assert.equal(asked, 0);
  });
});
