// The browser extension (extension/) loaded into a real headless Chromium (a persistent profile, --load-extension), with
// the pult and local replicas of the chat sites (test/chat-replica.ts): pairing as a person does it, a question of
// several steps with no copying (automatic and assisted), each miss turning the step into copy and paste with the
// pult saying what missed, Stop, a reload of the chat tab mid-step, two pults with two chat tabs, and a chat page that
// looks for the token. Without a Chromium these are skipped, as test/ui-browser.test.ts says.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { startPult, type Pult } from '../ui/server.ts';
import { pultOptions } from './pult-options.ts';
import { createExecutor } from '../reading/executor.ts';
import { createOllamaBridge } from '../bridge/ollama.ts';
import { artifact, browserSkip, launchWithExtension } from './browser.ts';
import { tempFolder } from './helpers.ts';
import { startReplica, type Replica, type VariantName } from './chat-replica.ts';

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

// A pult on a folder of two files. The folders are made by the caller: in a describe's body or a test, where the
// temp folders' cleanup belongs (made in a before hook, they would be gone before the tests).
async function newPult(folders: {
  root: string;
  stateDir: string;
  sitesDir: string;
  backupDir: string;
}): Promise<Pult> {
  const { root, stateDir, sitesDir, backupDir } = folders;
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
  const popup = await confirm;
  await popup.getByRole('button', { name: 'Pair' }).click();
  await page.locator('#bridge-state.ready, #bridge-state.idle:not(:has(#ext-pair))').first().waitFor();
  await page.locator('#bridge-message:not(:has(#ext-pair))').waitFor();
}

// New conversation, and its answer taken by the page before anything else is asked: an answer that came after the
// next question's run would show the empty conversation again.
async function newConversation(page: Page): Promise<void> {
  const button = page.locator('#new-conversation');
  // Disabled while a question runs (wait for it to end) and when there is no conversation yet (nothing to do).
  if (await page.locator('#stop:enabled').count()) await page.locator('#stop:disabled').waitFor();
  if (await button.isDisabled()) return;
  const answered = page.waitForResponse((r) => r.url().endsWith('/api/conversation/new'));
  await button.click();
  await answered;
}

async function ask(page: Page, question: string): Promise<void> {
  await page.getByLabel('Question').fill(question);
  await page.getByLabel('Question').press('Control+Enter');
}

describe('the web chat tab as a bridge, in Chromium with the extension', { skip: browserSkip }, () => {
  let context: BrowserContext;
  let replica: Replica;
  let pult: Pult;
  const sitesDir = tempFolder();
  const folders = () => ({
    root: tempFolder({ 'a.js': 'const a = 1;\nexport default a;\n', 'b.js': 'import a from "./a.js";\n' }),
    stateDir: tempFolder(),
    sitesDir,
    backupDir: path.join(tempFolder(), 'backup'),
  });
  const first = folders();
  before(async () => {
    replica = await startReplica();
    writeSites(sitesDir, replica);
    pult = await newPult(first);
    context = await launchWithExtension();
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
    await page.screenshot({ path: artifact('pult-extension-ready.png') });
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
    assert.match(replica.sent[1]?.text ?? '', /1 \| const a = 1;/, 'the second message carries a.js as NEED read it');
    assert.doesNotMatch(replica.sent[1]?.text ?? '', /What is a\?/, 'the second message carries only what is new');
    await page.close();
    await chat.close();
  });

  it('puts the message into the chat and waits for the person to press Send (assisted), then takes the reply', async () => {
    const chat = await context.newPage();
    await chat.goto(replica.url('ds'));
    const page = await context.newPage();
    await page.goto(pult.url);
    await page.getByLabel('Bridge').selectOption('extension');
    await page.locator('#ext-automatic').uncheck();
    await newConversation(page);
    replica.answers.set('ds', ['Nothing to read: **b.js** imports a.']);
    await ask(page, 'What does b.js import?');
    const line = page.locator('.ext-step');
    await line.filter({ hasText: 'press Send there' }).waitFor();
    assert.match(
      await line.innerText(),
      /^Replica DeepSeek \(«Replica ds»\): the message is in the chat's input: press Send there\./,
    );
    assert.match(await chat.locator('textarea#chat-input').inputValue(), /What does b\.js import\?/);
    await page.screenshot({ path: artifact('pult-extension-waiting.png') });
    await chat.locator('.send-btn').click();
    await page.locator('details.run[data-state="answered"]').last().waitFor({ timeout: 60_000 });
    assert.match(await page.locator('details.run').last().innerText(), /Nothing to read: b\.js imports a\./);
    await page.close();
    await chat.close();
  });

  it('turns each miss into the copy-and-paste step with the message ready, and says what missed', async () => {
    const cases: Array<{ variant: VariantName; said: RegExp; automatic: boolean }> = [
      {
        variant: 'loggedout',
        said: /the chat shows its log-in page \(selector input\[type="password"\]\)/,
        automatic: true,
      },
      {
        variant: 'notice',
        said: /the chat says the message is too long \("Превышен лимит длины сообщения/,
        automatic: true,
      },
      { variant: 'endless', said: /the reply never settled \(selector \.busy\)/, automatic: true },
    ];
    const page = await context.newPage();
    await page.goto(pult.url);
    await page.getByLabel('Bridge').selectOption('extension');
    await page.locator('#ext-automatic').check();
    for (const c of cases) {
      const chat = await context.newPage();
      await chat.goto(replica.url(c.variant));
      await page.locator('#ext-tab option', { hasText: 'Replica ' }).first().waitFor({ state: 'attached' });
      await newConversation(page);
      await ask(page, `Question for ${c.variant}`);
      const missed = page.locator('.ext-step.missed');
      await missed.waitFor({ timeout: 30_000 });
      assert.match(await missed.innerText(), c.said, c.variant);
      assert.match(await page.getByLabel('Message to copy').inputValue(), new RegExp(`Question for ${c.variant}`));
      if (c.variant === 'endless') await page.screenshot({ path: artifact('pult-extension-missed.png') });
      await page.getByRole('button', { name: 'Stop' }).click();
      await page.locator('details.run[data-state="stopped"]').last().waitFor();
      await chat.close();
    }
    await page.close();
  });

  it('takes a fixed site file at the next step: a wrong input selector misses, the corrected one works', async () => {
    const file = path.join(sitesDir, 'replica-gpt.json');
    const good = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, good.replace('#prompt-textarea', '#no-such-input'));
    const chat = await context.newPage();
    await chat.goto(replica.url('gpt'));
    const page = await context.newPage();
    await page.goto(pult.url);
    await page.getByLabel('Bridge').selectOption('extension');
    await page.locator('#ext-automatic').check();
    await newConversation(page);
    await ask(page, 'First try');
    const missed = page.locator('.ext-step.missed');
    await missed.waitFor({ timeout: 30_000 });
    assert.match(
      await missed.innerText(),
      /^Replica ChatGPT \(«Replica gpt»\): the input box was not found \(selector #no-such-input\)\./,
    );
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('details.run[data-state="stopped"]').last().waitFor();
    fs.writeFileSync(file, good);
    replica.answers.set('gpt', ['Here:\n\n```ts\nexport const x = `y`;\n```\n\nDone.']);
    await newConversation(page);
    await ask(page, 'Second try');
    await page.locator('details.run[data-state="answered"]').last().waitFor({ timeout: 60_000 });
    assert.match(replica.sent.at(-1)?.text ?? '', /Second try/, 'typed into the contenteditable box');
    const code = await page.locator('details.run').last().locator('pre').innerText();
    assert.equal(code.trim(), 'export const x = `y`;', 'the code block came back fenced, without its Copy button');
    await page.close();
    await chat.close();
  });

  it('lets the step go on Stop, and turns a reload of the chat tab mid-step into copy and paste', async () => {
    const chat = await context.newPage();
    await chat.goto(replica.url('ds'));
    const page = await context.newPage();
    await page.goto(pult.url);
    await page.getByLabel('Bridge').selectOption('extension');
    await page.locator('#ext-automatic').uncheck();
    await newConversation(page);
    await ask(page, 'Stop me');
    await page.locator('.ext-step', { hasText: 'press Send there' }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('details.run[data-state="stopped"]').last().waitFor();

    await newConversation(page);
    await ask(page, 'Reload me');
    await page.locator('.ext-step', { hasText: 'press Send there' }).waitFor();
    await chat.reload();
    const missed = page.locator('.ext-step.missed');
    await missed.waitFor();
    assert.match(await missed.innerText(), /the chat tab was reloaded or left during the step/);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('details.run[data-state="stopped"]').last().waitFor();
    await page.close();
    await chat.close();
  });

  it('serves two pults from two chat tabs at once, each in the tab chosen for it', async () => {
    const second = await newPult(folders());
    try {
      const chatA = await context.newPage();
      await chatA.goto(replica.url('ds'));
      const chatB = await context.newPage();
      await chatB.goto(replica.url('ds'));
      const page1 = await context.newPage();
      await page1.goto(pult.url);
      const page2 = await context.newPage();
      await page2.goto(second.url);
      await page2.getByLabel('Bridge').selectOption('extension');
      await page2.locator('#ext-pair').waitFor();
      await page2.screenshot({ path: artifact('pult-extension-unpaired.png') });
      await pair(context, page2);
      for (const [page, index] of [
        [page1, 1],
        [page2, 2],
      ] as const) {
        await page.getByLabel('Bridge').selectOption('extension');
        await page.locator('#ext-tab option').nth(2).waitFor({ state: 'attached' });
        await page.locator('#ext-tab').selectOption({ index });
        await page.locator('#ext-automatic').check();
        await newConversation(page);
      }
      replica.answers.set('ds', ['Answer one.', 'Answer two.']);
      await ask(page1, 'From pult one');
      await ask(page2, 'From pult two');
      await page1.locator('details.run[data-state="answered"]').last().waitFor({ timeout: 60_000 });
      await page2.locator('details.run[data-state="answered"]').last().waitFor({ timeout: 60_000 });
      const answers = [
        await page1.locator('details.run').last().innerText(),
        await page2.locator('details.run').last().innerText(),
      ];
      assert.ok(answers.some((a) => a.includes('Answer one.')) && answers.some((a) => a.includes('Answer two.')));
      for (const p of [page1, page2, chatA, chatB]) await p.close();
    } finally {
      await second.close();
    }
  });

  it('shows its state and a miss on a narrow screen, dark, in Russian', async () => {
    const chat = await context.newPage();
    await chat.goto(replica.url('endless'));
    const page = await context.newPage();
    await page.setViewportSize({ width: 420, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(pult.url);
    await page.locator('#lang').selectOption('ru');
    await page.getByLabel('Кто отвечает').selectOption('extension');
    await page.locator('#ext-automatic').check();
    await page.screenshot({ path: artifact('pult-extension-ready-narrow-ru.png') });
    await newConversation(page);
    await page.locator('#question').fill('Что такое a?');
    await page.locator('#question').press('Control+Enter');
    // This question's run: earlier tests' runs on the same pult may still be in the page, drawn in English.
    const missed = page.locator('details.run').last().locator('.ext-step.missed');
    await missed.waitFor({ timeout: 30_000 });
    assert.match(
      await missed.innerText(),
      /^Replica endless \(«Replica endless»\): ответ так и не устоялся \(селектор \.busy\)\./,
    );
    await missed.scrollIntoViewIfNeeded();
    await page.screenshot({ path: artifact('pult-extension-missed-narrow-ru.png') });
    await page.locator('#stop').click();
    await page.locator('details.run[data-state="stopped"]').last().waitFor();
    await page.locator('#lang').selectOption('en');
    await page.close();
    await chat.close();
  });

  it('never shows a chat page the token, and a page that poses as the pult gets no pairing without the person', async () => {
    assert.ok(replica.probes.length > 0);
    for (const probe of replica.probes) assert.ok(!probe.includes(pult.token), 'a chat page saw the pult token');
    const chat = await context.newPage();
    await chat.goto(replica.url('ds'));
    const confirm = context.waitForEvent('page', (p) => p.url().startsWith('chrome-extension://'));
    // The page's own script, as a hostile chat page would: listens for the answer, and hands a code of its own.
    const answer = chat.evaluate(`new Promise((resolve) => {
      window.addEventListener('message', (e) => e.data?.type === 'deepwork-paired' && resolve(e.data.answer));
      window.postMessage({ type: 'deepwork-pair', code: 'c'.repeat(24) }, location.origin);
    })`);
    const popup = await confirm;
    // The page event comes as the window opens, before confirm.js has filled in where it pairs with: read once it has.
    await popup.locator('#where', { hasText: '127.0.0.1:' }).waitFor();
    assert.match(await popup.locator('#where').innerText(), new RegExp(`127\\.0\\.0\\.1:${replica.port}$`));
    await popup.getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(await answer, { ok: false, error: 'refused' });
    assert.equal(replica.upgrades(), 0);
    await chat.close();
  });
});
