// The extension on a chat page it was not tuned to (test/chat-replica-stranger.ts): a site file written as a person
// writes one after inspecting the page, then a question of two steps (a NEED, then the answer) asked through the pult,
// automatic and assisted. The reply must be the answer's own text — not the thinking before it, not the person's own
// message echoed in a turn of the same shape — with its code block fenced again and without the header bar's words.
// Without a Chromium this is skipped, as test/ui-browser.test.ts says.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { startPult, type Pult } from '../ui/server.ts';
import { pultOptions } from './pult-options.ts';
import { createExecutor } from '../reading/executor.ts';
import { createOllamaBridge } from '../bridge/ollama.ts';
import { artifact, browserSkip, launchWithExtension } from './browser.ts';
import { tempFolder } from './helpers.ts';
import { startStranger, type Stranger } from './chat-replica-stranger.ts';

const FIRST = 'I need to read the file first.\n\n=== NEED: a.js ===';
const FINAL = [
  'The value is set here:',
  '```js\nconst a = 1;\nexport default a;\n```',
  '- `a` is **1** (a.js:1)\n- b.js imports it',
  '| name | value |\n|---|---|\n| a | 1 |',
].join('\n\n');

describe('the extension works a page it was not tuned to', { skip: browserSkip }, () => {
  let context: BrowserContext;
  let lumen: Stranger;
  let pult: Pult;
  const sitesDir = tempFolder();
  const root = tempFolder({ 'a.js': 'const a = 1;\nexport default a;\n', 'b.js': 'import a from "./a.js";\n' });
  const stateDir = tempFolder();
  const backupDir = path.join(tempFolder(), 'backup');
  // As a person writes it from the page's inspector: the box, the button by its label, the answer's body.
  const writeSite = (over: Record<string, unknown>) =>
    fs.writeFileSync(
      path.join(sitesDir, 'lumen.json'),
      JSON.stringify({
        name: 'Lumen',
        match: [`${lumen.url}*`],
        newChat: lumen.url,
        input: 'div[role="textbox"][contenteditable="true"]',
        send: 'button[aria-label="Send message"]',
        busy: 'button[aria-label="Stop generating"]',
        reply: '.turn .markdown.prose',
        steadySeconds: 1,
        ...over,
      }),
    );
  before(async () => {
    lumen = await startStranger();
    writeSite({});
    pult = await startPult(
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
    context = await launchWithExtension();
  });
  after(async () => {
    await context?.close();
    await pult?.close();
    await lumen?.close();
  });

  async function ask(page: Page, question: string): Promise<void> {
    await page.getByLabel('Question').fill(question);
    await page.getByLabel('Question').press('Control+Enter');
  }

  // The answer as the pult shows it: the chat's own words, rendered from the markdown the extension read back.
  async function answered(page: Page): Promise<void> {
    await page.locator('details.run[data-state="answered"]').last().waitFor({ timeout: 60_000 });
    const run = page.locator('details.run').last().locator('.answer');
    const text = await run.innerText();
    assert.match(text, /The value is set here:/);
    assert.doesNotMatch(
      text,
      /Let me think|Thought for|Copy code|Good response/,
      'only the answer, not what is around it',
    );
    assert.equal((await run.locator('pre').innerText()).trim(), 'const a = 1;\nexport default a;');
    assert.equal(await run.locator('li').count(), 2);
    assert.deepEqual(await run.locator('td').allInnerTexts(), ['a', '1'], 'the table is a table again');
  }

  it('pairs, and answers a question of two steps in the chat tab (automatic)', async () => {
    const chat = await context.newPage();
    await chat.goto(lumen.url);
    const page = await context.newPage();
    try {
      await page.goto(pult.url);
      await page.getByLabel('Bridge').selectOption('extension');
      const confirm = context.waitForEvent('page', (p) => p.url().startsWith('chrome-extension://'));
      await page.locator('#ext-pair').click();
      await (await confirm).getByRole('button', { name: 'Pair' }).click();
      await page.locator('#ext-tab option', { hasText: 'Lumen' }).waitFor({ state: 'attached' });
      await page.locator('#ext-automatic').check();
      lumen.answers.push(FIRST, FINAL);
      await ask(page, 'What is a?');
      await answered(page);
      assert.equal(lumen.sent.length, 2);
      assert.match(lumen.sent[0] ?? '', /=== QUESTION ===\nWhat is a\?\n/, 'the lines sent as written, none doubled');
      assert.match(lumen.sent[1] ?? '', /\n1 \| const a = 1;\n2 \| export default a;\n/);
      await page.screenshot({ path: artifact('pult-extension-stranger.png') });
    } finally {
      await page.close();
      await chat.close();
    }
  });

  it('waits for the person to press Send at each step (assisted), and takes each reply once it is whole', async () => {
    const chat = await context.newPage();
    await chat.goto(lumen.url);
    const page = await context.newPage();
    let release = () => {};
    try {
      await page.goto(pult.url);
      await page.getByLabel('Bridge').selectOption('extension');
      await page.locator('#ext-automatic').uncheck();
      await page.locator('#new-conversation').click();
      lumen.answers.push(FIRST, FINAL);
      const sent = lumen.sent.length;
      await ask(page, 'And what is a now?');
      const send = chat.locator('button[aria-label="Send message"]');
      for (let step = 1; step <= 2; step++) {
        await page.locator('.ext-step', { hasText: 'press Send there' }).waitFor();
        // The model is slow to begin: once Send is pressed the pult says so, not "press Send there" still.
        release = lumen.hold();
        await send.click();
        await page.locator('.ext-step', { hasText: 'the chat is answering' }).waitFor({ timeout: 10_000 });
        release();
        if (step === 1) await page.locator('.ext-step', { hasText: 'press Send there' }).waitFor({ state: 'detached' });
      }
      await answered(page);
      assert.equal(lumen.sent.length, sent + 2);
    } finally {
      release();
      await page.close();
      await chat.close();
    }
  });

  // The person's busy selector misses (the page's Stop button is labelled in another language, say) and the model is
  // slow to begin: the person's own message, drawn in a turn the reply selector also matches, stands still for longer
  // than steadySeconds. It is not the reply.
  it("does not take the person's own message for the reply while the model is slow to begin", async () => {
    writeSite({ busy: 'button[aria-label="Остановить"]' });
    lumen.firstWordMs = 2500;
    const chat = await context.newPage();
    await chat.goto(lumen.url);
    const page = await context.newPage();
    try {
      await page.goto(pult.url);
      await page.getByLabel('Bridge').selectOption('extension');
      await page.locator('#ext-automatic').check();
      await page.locator('#new-conversation').click();
      lumen.answers.push(FINAL);
      await ask(page, 'What is a, slowly?');
      await answered(page);
    } finally {
      lumen.firstWordMs = 0;
      writeSite({});
      await page.close();
      await chat.close();
    }
  });

  // A site of the sites folder whose host the extension may not read: its tabs' addresses are hidden from the
  // extension, so no tab is seen at all — the pult says why it may be, not only to open the chat.
  it('says, when no chat tab is seen, that a site of the sites folder needs host_permissions', async () => {
    const other = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>chat'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
    const { port } = other.address() as AddressInfo;
    writeSite({ match: [`http://127.0.0.2:${port}/*`] });
    const chat = await context.newPage();
    const page = await context.newPage();
    try {
      await chat.goto(`http://127.0.0.2:${port}/`);
      await page.goto(pult.url);
      await page.getByLabel('Bridge').selectOption('extension');
      const said = page.locator('#bridge-message', { hasText: 'Open your chat' });
      await said.waitFor();
      assert.match(await said.innerText(), /host_permissions \(extension\/manifest\.json, then reload the extension\)/);
    } finally {
      writeSite({});
      await page.close();
      await chat.close();
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
