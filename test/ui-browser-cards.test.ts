// The pult's cards as issue 29 asked for them, in a real headless Chromium: each judged against the file as it is now,
// buttons that say what they do, an Undo's report by its card, diffs that can be read at 420 px, and the server's
// sentences in the page's language. Without a Chromium these are skipped, as test/ui-browser.test.ts says.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startPult, type Pult } from '../ui/server.ts';
import { pultOptions } from './pult-options.ts';
import { createExecutor } from '../reading/executor.ts';
import { createOllamaBridge } from '../bridge/ollama.ts';
import { startFakeBridge, type FakeBridge } from './fake-bridge.ts';
import { checkBridge } from '../bridge/check.ts';
import { artifact, browserSkip, launchBrowser } from './browser.ts';
import { tempFolder } from './helpers.ts';

const LONG = `${'lorem ipsum '.repeat(12)}old ${'dolor sit '.repeat(8)}`;

// What the fake model answers to each question.
const REPLIES: Record<string, string> = {
  'Edit c': 'Here:\n=== EDIT: c.js ===\n<<<<<<< SEARCH\nlet c = 2;\n=======\nlet c = 3;\n>>>>>>> REPLACE\n=== END ===',
  'Make two':
    'Two:\n=== FILE: n.md ===\nnew\n=== END ===\n=== EDIT: d.js ===\n<<<<<<< SEARCH\nconst d = 1;\n=======\nconst d = 2;\n>>>>>>> REPLACE\n=== END ===',
  'Part of it':
    'Two pairs:\n=== EDIT: p.js ===\n<<<<<<< SEARCH\nconst p = 1;\n=======\nconst p = 2;\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nconst q = 9;\n=======\nconst q = 3;\n>>>>>>> REPLACE\n=== END ===',
  'Long line': `One word:\n=== EDIT: e.js ===\n<<<<<<< SEARCH\n\tconst e = "${LONG}";\n=======\n\tconst e = "${LONG.replace('old', 'new')}";\n>>>>>>> REPLACE\n=== END ===`,
};

// The page's getComputedStyle, in a function run in the page (this file is compiled without the DOM's types).
type Styled = typeof globalThis & { getComputedStyle: (e: unknown) => { display: string; tabSize: string } };

function questionOf(message: string): string {
  const at = message.lastIndexOf('=== QUESTION ===\n');
  return at === -1 ? '' : (message.slice(at + 17).split('\n')[0] ?? '');
}

describe('the pult in Chromium: cards as issue 29 asked', { skip: browserSkip }, () => {
  let browser: Browser;
  let pult: Pult;
  let fake: FakeBridge;
  const configFile = path.join(tempFolder(), 'config.json');
  const root = tempFolder({
    'c.js': 'let c = 1;\n',
    'd.js': 'const d = 1;\n',
    'p.js': 'const p = 1;\nconst q = 1;\n',
    'e.js': `function e() {\n\tconst e = "${LONG}";\n}\n`,
    'src/deep/x.js': 'x\n',
  });

  before(async () => {
    fake = await startFakeBridge({
      manualClose: true,
      chat: (content) => ({ kind: 'reply', text: REPLIES[questionOf(content)] ?? 'No.' }),
    });
    const backupDir = path.join(tempFolder(), 'backup');
    const bridgeOf = (host: string, model: string) => createOllamaBridge({ host, model, timeoutMs: 20_000 });
    pult = await startPult(
      pultOptions({
        executor: createExecutor(root, { backupDir }),
        bridge: createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 20_000 }),
        host: fake.host,
        model: 'm',
        // One step: the loop does not ask the model again after an EDIT that misses.
        steps: 1,
        backupDir,
        port: 0,
        // As deepwork.ts does it, with the config file in a temp folder.
        reconfigure: (host, model) => {
          fs.writeFileSync(configFile, JSON.stringify({ deepseekHost: host, deepseekModel: model }));
          return Promise.resolve({ bridge: bridgeOf(host, model), check: () => checkBridge(host, model), host, model });
        },
      }),
    );
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await pult?.close();
    await fake?.close();
  });

  async function ask(page: Page, question: string, button = 'Ask') {
    await page.getByRole('button', { name: button }).waitFor();
    await page.getByRole('textbox').first().fill(question);
    await page.getByRole('button', { name: button }).click();
    // Each test asks its own question: its run is the one titled so.
    const run = page.locator('.run[data-state="answered"]', { has: page.locator('h3', { hasText: question }) });
    await run.waitFor();
    return run;
  }

  it('judges a card against the file as it is now whenever the page is looked at, not as it was at the answer', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    try {
      await page.goto(pult.url);
      const card = (await ask(page, 'Edit c')).locator('.proposal[data-path="c.js"]');
      await card.locator('.badge.failed').waitFor();
      assert.match(await card.locator('.reason').innerText(), /EDIT, pair 1[,:].*the SEARCH matches no lines/);

      // The reader fixes the file and comes back to the page: the card is judged again, and can be written.
      fs.writeFileSync(path.join(root, 'c.js'), 'let c = 2;\n');
      await page.evaluate("window.dispatchEvent(new Event('focus'))");
      await card.locator('.badge.changed').waitFor();
      await card.getByRole('button', { name: 'Write c.js' }).waitFor();

      // And again after a reload: never the card as it was remembered.
      fs.writeFileSync(path.join(root, 'c.js'), 'let c = 1;\n');
      await page.reload();
      await page.locator('.proposal[data-path="c.js"] .badge.failed').waitFor();
    } finally {
      await page.close();
    }
  });

  it("labels the set's Write by what is left, says a new file has no previous version, and keeps an Undo's report by its card", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    try {
      await page.goto(pult.url);
      const run = await ask(page, 'Make two');
      const all = run.getByRole('button', { name: 'Write all (2)' });
      assert.equal(await all.getAttribute('class'), 'primary', "the set's Write is the primary action");
      const fresh = run.locator('.proposal[data-path="n.md"]');
      assert.equal(await fresh.getByRole('button', { name: 'Write n.md' }).getAttribute('class'), 'secondary');
      assert.match(await run.locator('.proposal[data-path="d.js"] .counts').innerText(), /^\+1 −1$/);
      assert.equal(await fresh.locator('.counts').innerText(), '+1', 'no −0 for a new file');

      await fresh.getByRole('button', { name: 'Write n.md' }).click();
      await fresh.getByText('Written: a new file. Undo removes it.').waitFor();
      assert.doesNotMatch(await fresh.innerText(), /previous version/);
      // One of two written: the set's Write stays, for the rest.
      await run.getByRole('button', { name: 'Write the rest (1)' }).waitFor();

      await fresh.getByRole('button', { name: 'Undo this write: 1 file (n.md)' }).click();
      await fresh.getByText('Undid this write of 1 file: n.md (removed).').waitFor();
      assert.equal(fs.existsSync(path.join(root, 'n.md')), false);
      assert.equal(
        await run.locator('.answer > .notice').count(),
        0,
        'the report is by its card, not under the answer',
      );

      // A later Write takes the stale report away: it would contradict the cards.
      await run.getByRole('button', { name: 'Write all (2)' }).click();
      await run.locator('.proposal[data-path="d.js"] .badge.written').waitFor();
      await fresh.locator('.badge.written').waitFor();
      assert.equal(await run.locator('.notice').count(), 0);
      assert.equal(fs.readFileSync(path.join(root, 'd.js'), 'utf8'), 'const d = 2;\n');
    } finally {
      await page.close();
    }
  });

  it('holds back a file whose EDIT kept only some pairs, says which were left out, and writes it on Write anyway', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    try {
      await page.goto(pult.url);
      const card = (await ask(page, 'Part of it')).locator('.proposal[data-path="p.js"]');
      await card.locator('.reason').waitFor();
      assert.match(
        await card.locator('.reason').innerText(),
        /^Part of the change: pair 2 of an EDIT's 2 did not apply and the model sent nothing more for this file; read its diff, then use Write anyway to write it/,
      );
      await page.screenshot({ path: artifact('pult-card-partial.png') });
      assert.equal(fs.readFileSync(path.join(root, 'p.js'), 'utf8'), 'const p = 1;\nconst q = 1;\n');
      await card.getByRole('button', { name: 'Write p.js anyway' }).click();
      await card.locator('.badge.written').waitFor();
      assert.equal(fs.readFileSync(path.join(root, 'p.js'), 'utf8'), 'const p = 2;\nconst q = 1;\n');
    } finally {
      await page.close();
    }
  });

  it('shows a long changed line whole at 420 px, its changed word marked, with one number column, in Russian', async () => {
    const page = await browser.newPage({ viewport: { width: 420, height: 860 }, locale: 'ru-RU', colorScheme: 'dark' });
    try {
      await page.goto(pult.url);
      // The bridge's state in the page's language, from the server's code.
      await page.locator('#bridge-message', { hasText: 'отвечает' }).waitFor();
      assert.doesNotMatch(await page.locator('#bridge-message').innerText(), /answers/);

      const run = await ask(page, 'Long line', 'Спросить');
      const diff = run.locator('.proposal[data-path="e.js"] .diff');
      await diff.waitFor();
      assert.deepEqual(await diff.locator('mark').allInnerTexts(), ['old', 'new']);
      const fits = await diff.evaluate((d) => d.scrollWidth <= d.clientWidth);
      assert.equal(fits, true, 'the long line wraps inside the card');
      assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 420);
      const shown = await diff
        .locator('.line.del > .n')
        .evaluateAll((cells) => cells.filter((c) => (globalThis as Styled).getComputedStyle(c).display !== 'none'))
        .then((cells) => cells.length);
      assert.equal(shown, 1, 'one number column');
      assert.deepEqual(
        await diff.locator('.line.del > .n.one').allInnerTexts(),
        ['2'],
        "the removed line's own number",
      );
      assert.equal(await diff.evaluate((d) => (globalThis as Styled).getComputedStyle(d).tabSize), '4');
      // With a run to read, the tree folds away on a narrow screen; the conversations stay in sight.
      assert.equal(await page.locator('#tree').isVisible(), false);
      assert.equal(await page.locator('#conversations').isVisible(), true);
      await page.getByRole('button', { name: 'Показать файлы' }).click();
      assert.equal(await page.locator('#tree').isVisible(), true);
      await page.getByRole('button', { name: 'Скрыть файлы' }).click();
      // The question is said once: by its run, not again as the conversation's title above it.
      assert.equal(await page.locator('#conversation-heading').isVisible(), false);
      await diff.scrollIntoViewIfNeeded();
      await page.screenshot({ path: artifact('pult-cards-420-ru-dark.png') });
    } finally {
      await page.close();
    }
  });

  it('keeps a file ticked from the filter in sight when the filter is cleared', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    try {
      await page.goto(pult.url);
      await page.getByLabel('Filter').fill('deep/x');
      await page.getByRole('checkbox', { name: 'src/deep/x.js', exact: true }).check();
      await page.getByLabel('Filter').fill('');
      // Its folders are opened: the tick the reader just made is not hidden in a closed folder.
      assert.equal(await page.getByRole('checkbox', { name: 'src/deep/x.js', exact: true }).isChecked(), true);
      assert.equal(await page.getByRole('checkbox', { name: 'src/deep/x.js', exact: true }).isVisible(), true);
    } finally {
      await page.close();
    }
  });

  it('names the configured bridge short with the whole URL on hover, and changes its host and model from the header', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    try {
      await page.goto(pult.url);
      const port = new URL(fake.host).port;
      const option = page.locator('#bridge-choice option[value="configured"]');
      await page.locator('#bridge-state.idle').waitFor();
      assert.equal(await option.innerText(), `m · 127.0.0.1:${port}`);
      assert.equal(await option.getAttribute('title'), `m · ${fake.host}`);

      await page.getByRole('button', { name: 'Change…' }).click();
      assert.equal(await page.getByLabel('Host', { exact: true }).inputValue(), fake.host);
      await page.getByLabel('Host', { exact: true }).fill('ftp://x');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('The host “ftp://x” is not an http:// or https:// address.', { exact: false }).waitFor();
      assert.equal(fs.existsSync(configFile), false, 'nothing saved');

      // Nothing listens on port 9: the new bridge is down, and the state says where.
      await page.getByLabel('Host', { exact: true }).fill('127.0.0.1:9');
      await page.getByLabel('Model', { exact: true }).fill('other');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('#bridge-form').waitFor({ state: 'hidden' });
      assert.equal(await option.innerText(), 'other · 127.0.0.1:9');
      await page.locator('#bridge-state.down').waitFor();
      assert.match(await page.locator('#bridge-message').innerText(), /^Nothing answers at http:\/\/127\.0\.0\.1:9 /);
      assert.deepEqual(JSON.parse(fs.readFileSync(configFile, 'utf8')), {
        deepseekHost: 'http://127.0.0.1:9',
        deepseekModel: 'other',
      });
      await page.screenshot({ path: artifact('pult-bridge-changed.png') });
    } finally {
      await page.close();
    }
  });
});
