// The browser extension (extension/) loaded into a real headless Chromium (a persistent profile, --load-extension), with
// the pult and local replicas of the chat sites (test/chat-replica.ts): pairing as a person does it, a question of
// several steps with no copying (automatic and assisted), each miss turning the step into copy and paste with the
// pult saying what missed, Stop, a reload of the chat tab mid-step, two pults with two chat tabs, and a chat page that
// looks for the token. Without a Chromium these are skipped, as test/ui-browser.test.ts says.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startPult, type Pult } from '../ui/server.ts';
import { pultOptions } from './pult-options.ts';
import { createExecutor } from '../reading/executor.ts';
import { createOllamaBridge } from '../bridge/ollama.ts';
import { INSTALL_DIR } from '../common/install.ts';
import { tempFolder } from './helpers.ts';
import { startReplica, type Replica, type VariantName } from './chat-replica.ts';

const executable = ['/usr/bin/chromium', '/usr/bin/chromium-browser', process.env.CHROMIUM_PATH ?? '']
  .filter((p) => p !== '')
  .find((p) => fs.existsSync(p));
const skip = executable === undefined ? 'no Chromium on this machine' : false;
const ARTIFACTS = process.env.DEEPWORK_ARTIFACTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-artifacts-'));
const EXTENSION = path.join(INSTALL_DIR, 'extension');

// The sites folder for the replicas: one file per replica, written as a user would from looking at its page.
function writeSites(dir: string, replica: Replica): void {
  const times = { steadySeconds: 0.5, startSeconds: 5, answerMinutes: 1 };
  const site = (v: VariantName, name: string, fields: Record<string, unknown>) =>
    fs.writeFileSync(
      path.join(dir, `replica-${v}.json`),
      JSON.stringify({ name, match: [`${replica.url(v)}*`], newChat: replica.url(v), ...times, ...fields }),
    );
  site('ds', 'Replica DeepSeek', {
    input: 'textarea#chat-input',
    send: 'div[role="button"].send-btn[aria-disabled="false"]',
    busy: '.stop-btn',
    reply: '.ds-markdown',
  });
  site('gpt', 'Replica ChatGPT', {
    input: '#prompt-textarea',
    send: 'button[data-testid="send-button"]',
    busy: 'button[data-testid="stop-button"]',
    reply: '[data-message-author-role="assistant"] .markdown',
  });
  site('loggedout', 'Replica logged out', {
    input: 'textarea#chat-input',
    send: '.send',
    busy: '.busy',
    reply: '.answer',
    loggedOut: 'input[type="password"]',
  });
  site('notice', 'Replica notice', {
    input: 'textarea#chat-input',
    send: '.send',
    busy: '.busy',
    reply: '.answer',
    notice: '.notices .notice',
  });
  site('endless', 'Replica endless', {
    input: 'textarea#chat-input',
    send: '.send',
    busy: '.busy',
    reply: '.answer',
    ...times,
    answerMinutes: 0.05,
  });
}

async function newPult(stateDir: string, sitesDir: string): Promise<Pult> {
  const root = tempFolder({ 'a.js': 'const a = 1;\nexport default a;\n', 'b.js': 'import a from "./a.js";\n' });
  const backupDir = path.join(tempFolder(), 'backup');
  return startPult(
    pultOptions({
      executor: createExecutor(root, { backupDir }),
      bridge: createOllamaBridge({ host: 'http://127.0.0.1:9', model: 'm', timeoutMs: 1000 }),
      host: 'http://127.0.0.1:9',
      model: 'm',
      steps: 4,
      backupDir,
      port: 0,
      stateDir,
      sitesDir,
    }),
  );
}

// Pairs the pult's page with the extension as a person does: Pair in the pult, Pair in the extension's window.
async function pair(context: BrowserContext, page: Page): Promise<void> {
  await page.getByLabel('Bridge').selectOption('extension');
  const confirm = context.waitForEvent('page', (p) => p.url().startsWith('chrome-extension://'));
  await page.locator('#ext-pair').click();
  const window = await confirm;
  await window.getByRole('button', { name: 'Pair' }).click();
  await page.locator('#bridge-state.ready, #bridge-state.idle:not(:has(#ext-pair))').first().waitFor();
  await page.locator('#bridge-message:not(:has(#ext-pair))').waitFor();
}

async function ask(page: Page, question: string): Promise<void> {
  await page.getByLabel('Question').fill(question);
  await page.getByLabel('Question').press('Control+Enter');
}

describe('the web chat tab as a bridge, in Chromium with the extension', { skip }, () => {
  let context: BrowserContext;
  let replica: Replica;
  let pult: Pult;
  const sitesDir = tempFolder();
  const stateDir = tempFolder();
  before(async () => {
    replica = await startReplica();
    writeSites(sitesDir, replica);
    pult = await newPult(stateDir, sitesDir);
    context = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), 'deepwork-profile-')), {
      executablePath: executable ?? '',
      headless: true,
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        `--disable-extensions-except=${EXTENSION}`,
        `--load-extension=${EXTENSION}`,
      ],
    });
  });
  after(async () => {
    await context?.close();
    await pult?.close();
    await replica?.close();
  });

  it('pairs, then works a question of several steps in the chat tab with no copying (automatic)', async () => {
    const chat = await context.newPage();
    await chat.goto(replica.url('ds'));
    const page = await context.newPage();
    await page.goto(pult.url);
    await pair(context, page);
    await page.locator('#ext-tab').waitFor();
    await page.locator('#ext-automatic').check();
    await page.screenshot({ path: path.join(ARTIFACTS, 'pult-extension-ready.png') });
    replica.answers.set('ds', [
      'I need to read the file first.\n\n=== NEED: a.js ===',
      'The value is set here:\n\n```js\nconst a = 1;\n```\n\nSo `a` is **1** (a.js:1).',
    ]);
    await ask(page, 'What is a?');
    await page.locator('details.run[data-state="answered"]').waitFor({ timeout: 60_000 });
    const answer = await page.locator('details.run').last().innerText();
    assert.match(answer, /So a is 1/);
    assert.equal(replica.sent.length, 2);
    assert.match(replica.sent[0]?.text ?? '', /What is a\?/);
    assert.match(replica.sent[1]?.text ?? '', /a\.js/);
    assert.doesNotMatch(replica.sent[1]?.text ?? '', /What is a\?/, 'the second message carries only what is new');
    await page.close();
    await chat.close();
  });
});
