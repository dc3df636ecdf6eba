// The pult end to end in a real headless Chromium (Debian's, driven by playwright-core). Without a Chromium the
// tests are skipped with a notice; .ci/run installs it and sets DEEPWORK_REQUIRE_BROWSER=1, making absence a failure.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startPult, type Pult } from '../ui/server.ts';
import { launchPult } from '../ui/launch.ts';
import { CODE_LIFE_MS, newCode } from '../ui/security.ts';
import { pultOptions } from './pult-options.ts';
import { createExecutor } from '../reading/executor.ts';
import { createOllamaBridge } from '../bridge/ollama.ts';
import { startFakeBridge, type FakeBridge } from './fake-bridge.ts';
import { artifact, browserSkip, launchBrowser } from './browser.ts';
import { tempFolder, thirtyThousandFiles, trade } from './helpers.ts';

const HOSTILE = [
  'Here is `a.js`, changed:',
  '',
  '```js',
  'const a = 2;',
  '```',
  '',
  '<script>window.pwned = "script"</script>',
  '<img src="x" onerror="window.pwned = \'img\'">',
  "[click me](javascript:window.pwned='link')",
  '',
  '=== FILE: a.js ===',
  '```js',
  'const a = 2;',
  '```',
  '=== END ===',
].join('\n');

// The question a message asks (the last one, after any earlier questions of the conversation).
function questionOf(message: string): string {
  const at = message.lastIndexOf('=== QUESTION ===\n');
  return at === -1 ? '' : (message.slice(at + 17).split('\n')[0] ?? '');
}

describe('the pult in Chromium', { skip: browserSkip }, () => {
  let browser: Browser;
  let pult: Pult;
  let fake: FakeBridge;
  let page: Page;
  const root = tempFolder(
    {
      'a.js': 'const a = 1;\n',
      'b.js': 'const b = 1;\n',
      'src/util.js': 'export const u = 1;\n',
      'src/deep/more.js': 'x\n',
    },
    'my-project-',
  );
  const backupDir = path.join(tempFolder(), 'backup');
  const stateDir = tempFolder();
  const token = 'browser-test-token-0123456789abcdef';
  let port = 0;

  const start = async () => {
    const executor = createExecutor(root, { backupDir });
    const bridge = createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 20_000 });
    pult = await startPult(
      pultOptions({ executor, bridge, host: fake.host, model: 'm', steps: 4, backupDir, stateDir, port, token }),
    );
    port = pult.port;
  };

  before(async () => {
    fake = await startFakeBridge({
      manualClose: true,
      chat: (content) => {
        const question = questionOf(content);
        const asked = content.includes('=== RESULTS OF YOUR REQUESTS AT STEP 1 ===');
        if (question === 'What is a?')
          return asked
            ? { kind: 'reply', text: HOSTILE }
            : { kind: 'slow', ms: 1500, text: 'Let me read it.\n=== NEED: a.js ===' };
        if (question === 'Change both')
          return {
            kind: 'reply',
            text: 'Both:\n=== FILE: a.js ===\nconst a = 3;\n=== END ===\n=== EDIT: b.js ===\n<<<<<<< SEARCH\nconst b = 1;\n=======\nconst b = 3;\n>>>>>>> REPLACE\n=== END ===',
          };
        if (question === 'A new file')
          return {
            kind: 'reply',
            text: `Here:\n=== FILE: src/a-new-file-with-a-rather-long-name-for-a-narrow-screen.js ===\nexport const long = '${'x'.repeat(300)}';\n=== END ===`,
          };
        if (question === 'Take your time') return { kind: 'slow', ms: 15_000, text: 'late' };
        return { kind: 'reply', text: `You asked: ${question}` };
      },
    });
    await start();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US', colorScheme: 'light' });
    await page.goto(pult.url);
    await page.getByText('(4)').waitFor();
    // The sizes come after the tree is drawn.
    await page.locator('#tree .size', { hasText: /^2 files, \d+ B$/ }).waitFor();
    await page.screenshot({ path: artifact('pult-first.png') });
  });
  after(async () => {
    await browser?.close();
    await pult?.close();
    await fake?.close();
  });

  it("loads as native modules of its own origin, each served as JavaScript under the page's CSP, with no console errors", async () => {
    const fresh = await browser.newPage({ locale: 'en-US' });
    try {
      const errors: string[] = [];
      fresh.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      fresh.on('pageerror', (error) => errors.push(error.message));
      const scripts = new Map<string, { status: number; type: string; csp: string }>();
      fresh.on('response', (res) => {
        const url = new URL(res.url());
        if (url.pathname.endsWith('.js'))
          scripts.set(url.pathname, {
            status: res.status(),
            type: res.headers()['content-type'] ?? '',
            csp: res.headers()['content-security-policy'] ?? '',
          });
      });
      const document = await fresh.goto(pult.url);
      await fresh.getByText('(4)').waitFor();
      const csp = document?.headers()['content-security-policy'] ?? '';
      assert.match(csp, /(^|; )script-src 'self'(;|$)/);
      assert.equal(await fresh.locator('script').count(), 1);
      assert.equal(await fresh.locator('script[type="module"][src="/main.js"]').count(), 1);
      // Every module of the page folder, and of the texts it shares with the console (common/strings/) those it
      // uses, and nothing else, is fetched: one page, no module of its own left unused.
      const modules = fs
        .readdirSync(new URL('../ui/page/', import.meta.url))
        .filter((name) => name.endsWith('.js'))
        .map((name) => `/${name}`);
      const shared = fs
        .readdirSync(new URL('../common/strings/', import.meta.url))
        .filter((name) => name.endsWith('.js'))
        .map((name) => `/common/strings/${name}`);
      assert.ok(modules.length > 5, modules.join(', '));
      const fetched = [...scripts.keys()];
      assert.deepEqual(fetched.filter((name) => !name.startsWith('/common/strings/')).sort(), modules.sort());
      // Of the shared texts, the step log's and what it needs; the console's own are served but not fetched.
      const sharedFetched = fetched.filter((name) => name.startsWith('/common/strings/'));
      for (const name of sharedFetched) assert.ok(shared.includes(name), name);
      assert.ok(sharedFetched.includes('/common/strings/steps.js'), sharedFetched.join(', '));
      for (const [name, served] of scripts)
        assert.deepEqual(served, { status: 200, type: 'text/javascript; charset=utf-8', csp }, name);
      assert.deepEqual(errors, []);
      // Only those files, looked up by name: no other file of the folder, nothing outside it, nothing by another spelling.
      for (const other of [
        '/tsconfig.json',
        '/index.html',
        '/Main.js',
        '/main.js/',
        '/..%2fserver.js',
        '/%2e%2e/server.js',
        '/page/main.js',
        '/common/errors.js',
        '/common/strings/',
        '/common/strings/../errors.js',
        '/common/strings/%2e%2e/errors.js',
      ]) {
        const res = await fetch(`http://127.0.0.1:${port}${other}`, { headers: { 'x-deepwork-token': token } });
        assert.equal(res.status, 404, other);
      }
    } finally {
      await fresh.close();
    }
  });

  it('asks with a ticked file, shows the steps live, shows the proposal as a card in the answer, writes it and confirms the undo', async () => {
    await page.getByRole('checkbox', { name: 'a.js', exact: true }).check();
    await page.getByLabel('Question').fill('What is a?');
    await page.getByLabel('Question').press('Control+Enter');

    // Live: the first step is logged and its waiting line counts while the bridge is still thinking.
    await page
      .getByText(
        /Step 1\/4: sending [\d,]+ characters, about [\d,]+ tokens of the [\d,]+ a message may take \(the window holds [\d,]+\)\./,
      )
      .waitFor();
    await page.getByText(/Step 1: waiting \d+ s/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Stop' }).isEnabled(), true);
    assert.equal(
      await page.locator('.log li').evaluateAll((items) => items.every((li) => li.closest('ol') === null)),
      true,
      'the log is not a numbered list',
    );

    const answer = page.locator('#run-1 .answer');
    await answer.waitFor();
    assert.match(fake.chats[0]?.content ?? '', /=== FILES ATTACHED BY THE USER ===\n=== RESULT NEED a\.js/);
    // Prose is sanitised markdown; the FILE block is a card, never markdown.
    assert.equal(await answer.locator('.prose pre code').first().textContent(), 'const a = 2;\n');
    assert.equal(await page.evaluate(() => (globalThis as { pwned?: string }).pwned), undefined);
    assert.equal(await answer.locator('script, img, a[href^="javascript"]').count(), 0);
    assert.match(await answer.innerText(), /<script>window\.pwned = "script"<\/script>/);
    await answer
      .getByText('click me')
      .click()
      .catch(() => {});
    assert.equal(await page.evaluate(() => (globalThis as { pwned?: string }).pwned), undefined);
    assert.doesNotMatch(
      await answer
        .locator('.prose')
        .allInnerTexts()
        .then((t) => t.join('\n')),
      /=== FILE|=== END/,
    );
    const card = answer.locator('.proposal[data-path="a.js"]');
    assert.match(await card.innerText(), /changed\s+a\.js\s+FILE\s+\+1\s+−1/);
    assert.match(await page.locator('#run-1 .summary').innerText(), /1 proposed change/);

    // A small diff is open from the start; each row has the old and new line numbers, the one a narrow screen shows,
    // and the line.
    assert.equal(await page.getByRole('button', { name: 'Diff of a.js' }).getAttribute('aria-expanded'), 'true');
    const rows = await card
      .locator('.diff .line')
      .evaluateAll((lines) => lines.map((l) => [...l.children].map((c) => c.textContent ?? '')));
    assert.deepEqual(
      rows.filter((r) => r[3] !== undefined && !r[3].startsWith('@@')),
      [
        ['1', '', '1', '-const a = 1;'],
        ['', '1', '1', '+const a = 2;'],
      ],
    );
    await page.screenshot({ path: artifact('pult-run.png') });

    await page.getByRole('button', { name: 'Write a.js' }).click();
    await card.getByText(/^Written; the previous version is in /).waitFor();
    assert.equal(await card.locator('.diff').count(), 1, 'the diff stays open after Write');
    assert.equal(fs.readFileSync(path.join(root, 'a.js'), 'utf8'), 'const a = 2;\n');
    const [set] = fs.readdirSync(backupDir);
    assert.ok(set !== undefined);
    assert.equal(fs.readFileSync(path.join(backupDir, set, 'files', 'a.js'), 'utf8'), 'const a = 1;\n');

    await page.getByRole('button', { name: 'Undo this write: 1 file (a.js)' }).click();
    await page.getByText('Undid this write of 1 file: a.js (restored).').waitFor();
    await page.getByRole('button', { name: 'Write a.js' }).waitFor();
    assert.equal(fs.readFileSync(path.join(root, 'a.js'), 'utf8'), 'const a = 1;\n');
  });

  it('continues the conversation with a follow-up, folds the older run, starts a new one, and reopens the saved one', async () => {
    await page.getByLabel('Question').fill('And why?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('#run-2[data-state="answered"]').waitFor();
    const sent = fake.chats.at(-1)?.content ?? '';
    assert.match(
      sent,
      /=== EARLIER QUESTION 1 ===\nWhat is a\?[\s\S]*=== YOUR FINAL ANSWER TO QUESTION 1 ===[\s\S]*=== QUESTION ===\nAnd why\?/,
    );
    assert.equal(
      await page.locator('#run-1').evaluate((d) => Reflect.get(d, 'open')),
      false,
      'the older run is folded',
    );
    assert.equal(await page.locator('#run-2').evaluate((d) => Reflect.get(d, 'open')), true);
    const box = await page.locator('#run-2').boundingBox();
    assert.ok(box !== null && box.y >= 0 && box.y < 900, 'the newest run is scrolled into view');
    assert.match(await page.locator('#conversation-title').innerText(), /What is a\?/);

    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.locator('#conversation-title', { hasText: 'New conversation' }).waitFor();
    assert.equal(await page.locator('.run').count(), 0);
    await page.getByLabel('Question').fill('Something else');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('#run-3[data-state="answered"]').waitFor();
    assert.doesNotMatch(fake.chats.at(-1)?.content ?? '', /What is a\?/);

    const saved = page.locator('#conversations button');
    assert.equal(await saved.count(), 2);
    await saved.filter({ hasText: 'What is a?' }).click();
    await page.locator('#run-2').waitFor();
    assert.equal(await page.locator('.run').count(), 2);
    assert.match(await page.locator('#follow').innerText(), /Ask continues “What is a\?”/);
  });

  it('ticks a folder, keeps the draft and the ticks over a reload, and says what to do with an empty question', async () => {
    await page.getByRole('checkbox', { name: 'a.js', exact: true }).uncheck();
    await page.getByRole('checkbox', { name: 'All files in src', exact: true }).check();
    // The sizes come after the tree is drawn: the count waits for them.
    await page.locator('#selected', { hasText: /^2 files \(\d+ B\) go with the question\.$/ }).waitFor();
    await page.getByRole('button', { name: 'Open folder src' }).click();
    assert.equal(await page.getByRole('checkbox', { name: 'src/util.js' }).isChecked(), true);
    await page.getByRole('checkbox', { name: 'src/util.js' }).uncheck();
    assert.equal(
      await page
        .getByRole('checkbox', { name: 'All files in src', exact: true })
        .evaluate((b) => Reflect.get(b, 'indeterminate')),
      true,
    );
    await page.getByLabel('Question').fill('a draft question');
    await page.reload();
    await page.getByText('(4)').waitFor();
    assert.equal(await page.getByLabel('Question').inputValue(), 'a draft question');
    await page.locator('#selected', { hasText: /^1 file \(2 B\) goes with the question\.$/ }).waitFor();
    await page.getByLabel('Filter').fill('more');
    assert.equal(await page.getByRole('checkbox', { name: 'src/deep/more.js' }).isChecked(), true);
    await page.getByLabel('Filter').fill('');

    await page.getByLabel('Question').fill('   ');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByText('Write a question first').waitFor();
  });

  it('writes all proposals at once, Esc stops a run, and the bridge state follows the bridge chosen', async () => {
    await page.getByLabel('Question').fill('Change both');
    await page.getByRole('button', { name: 'Ask' }).click();
    const run = page.locator('.run[data-state="answered"]').last();
    await run.locator('.summary').waitFor();
    await page.getByRole('button', { name: 'Write all (2)' }).click();
    await run
      .locator('.proposal[data-path="b.js"]')
      .getByText(/^Written;/)
      .waitFor();
    assert.deepEqual(
      ['a.js', 'b.js'].map((f) => fs.readFileSync(path.join(root, f), 'utf8')),
      ['const a = 3;\n', 'const b = 3;\n'],
    );
    await page.screenshot({ path: artifact('pult-proposals.png') });
    // Undo on one card undoes the whole Write: its label and its result say so.
    const undo = run
      .locator('.proposal[data-path="a.js"]')
      .getByRole('button', { name: 'Undo this write: 2 files (a.js, b.js)' });
    assert.equal(await undo.innerText(), 'Undo this write: 2 files');
    await undo.click();
    await run.getByText('Undid this write of 2 files: a.js (restored), b.js (restored).').waitFor();
    assert.deepEqual(
      ['a.js', 'b.js'].map((f) => fs.readFileSync(path.join(root, f), 'utf8')),
      ['const a = 1;\n', 'const b = 1;\n'],
    );

    await page.getByLabel('Question').fill('Take your time');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByText(/waiting \d+ s/).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.run[data-state="stopped"]').waitFor();
    // Why the list counts one question fewer than the thread shows (issue 29).
    await page
      .locator('.run[data-state="stopped"]')
      .getByText(/^Not kept in the conversation: /)
      .waitFor();

    const release = fake.holdTags();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.locator('#bridge-state.checking').waitFor();
    assert.equal(await page.locator('#bridge-state').innerText(), 'checking…');
    release();
    await page.locator('#bridge-state.idle').waitFor();
    assert.match(await page.locator('#bridge-message').innerText(), /not up yet: it starts on the first question/);
    await page.getByLabel('Bridge').selectOption('demo');
    await page.locator('#bridge-state.ready').waitFor();
    assert.match(await page.locator('#bridge-message').innerText(), /The demo bridge answers offline/);
    await page.getByLabel('Bridge').selectOption('configured');
    await page.locator('#bridge-state.idle').waitFor();
  });

  it('says when deepwork has stopped, and reconnects when it is back', async () => {
    await pult.close();
    await page.locator('#banner', { hasText: 'deepwork stopped' }).waitFor();
    assert.match(
      await page.locator('#banner').innerText(),
      /Start it again — run deepwork ui in .* — and this page reconnects by itself/,
    );
    assert.equal(await page.getByRole('button', { name: 'Ask' }).isDisabled(), true);
    assert.equal(await page.locator('#bridge-state').innerText(), 'not running');
    await start();
    await page.locator('#banner').waitFor({ state: 'hidden' });
    assert.equal(await page.getByRole('button', { name: 'Ask' }).isEnabled(), true);
    // The conversation the page showed is reopened from what was saved.
    await page.locator('.run').first().waitFor();
    assert.match(await page.locator('#conversation-title').innerText(), /What is a\?/);
  });

  it('speaks Russian to a Russian browser, switches language, and fits 420 px in dark mode without sideways scrolling', async () => {
    const narrow = await browser.newPage({
      viewport: { width: 420, height: 860 },
      locale: 'ru-RU',
      colorScheme: 'dark',
    });
    await narrow.goto(pult.url);
    await narrow.getByRole('button', { name: 'Спросить' }).waitFor();
    assert.equal(await narrow.locator('html').getAttribute('lang'), 'ru');
    await narrow.getByLabel('Вопрос').fill('A new file');
    await narrow.getByRole('button', { name: 'Спросить' }).click();
    await narrow.locator('.run[data-state="answered"] .proposal').last().waitFor();
    // Small, its diff is open from the start.
    await narrow
      .getByRole('button', { name: 'Изменения в src/a-new-file-with-a-rather-long-name-for-a-narrow-screen.js' })
      .and(narrow.locator('[aria-expanded="true"]'))
      .waitFor();
    assert.match(await narrow.locator('.proposal').last().innerText(), /новый/);
    assert.equal(await narrow.evaluate('document.documentElement.scrollWidth'), 420, 'no sideways scrolling at 420 px');
    assert.equal(
      await narrow.evaluate('getComputedStyle(document.documentElement).backgroundColor'),
      'rgb(22, 24, 27)',
    );
    await narrow.locator('.summary').last().scrollIntoViewIfNeeded();
    await narrow.screenshot({ path: artifact('pult-narrow-dark.png') });
    await narrow.getByLabel('Язык').selectOption('en');
    await narrow.getByRole('button', { name: 'Ask' }).waitFor();
    // The finished run's step log is one line, in the language chosen.
    assert.match(await narrow.locator('.log-line').last().innerText(), /^Step log \(\d+\) · Answer after \d+ step/);
    await narrow.close();
  });

  it('says in Russian what an Undo did with a file the reader changed since and with one it could not put back (the review of issue 24)', async () => {
    const ru = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'ru-RU' });
    try {
      await ru.goto(pult.url);
      await ru.getByRole('button', { name: 'Спросить' }).waitFor();
      await ru.getByLabel('Вопрос').fill('Change both');
      await ru.getByRole('button', { name: 'Спросить' }).click();
      const run = ru.locator('.run[data-state="answered"]').last();
      await run.locator('.summary').waitFor();
      const sets = new Set(fs.readdirSync(backupDir));
      await ru.getByRole('button', { name: 'Записать все (2)' }).click();
      await run
        .locator('.proposal[data-path="b.js"]')
        .getByText(/^Записан;/)
        .waitFor();
      const [set] = fs.readdirSync(backupDir).filter((name) => !sets.has(name));
      assert.ok(set !== undefined);
      // a.js changed by the reader since: left alone. b.js's backup copy gone: it cannot be put back.
      fs.writeFileSync(path.join(root, 'a.js'), 'const a = "mine";\n');
      fs.rmSync(path.join(backupDir, set, 'files', 'b.js'));
      await run
        .locator('.proposal[data-path="a.js"]')
        .getByRole('button', { name: 'Отменить эту запись: 2 файла (a.js, b.js)' })
        .click();
      const notice = run.locator('.notice');
      await notice.waitFor();
      const text = await notice.innerText();
      assert.match(text, /^Запись отменена \(2 файла\): a\.js \(не тронут: .+\), b\.js \(не удалось: .+\)\.$/);
      // The reasons are worded in Russian from the server's codes; only the disk's own error is English, and marked
      // so. Nothing else in the notice is English but the paths.
      assert.match(
        text,
        /a\.js \(не тронут: Вы изменили его после записи, поэтому он остался как у вас; прежняя версия — в /,
      );
      const english = await notice.locator('[lang="en"]').allInnerTexts();
      assert.equal(english.length, 1);
      assert.match(english[0] ?? '', /ENOENT/);
      const rest = english
        .reduce((left, part) => left.replace(part, ''), text)
        .replace(path.join(backupDir, set, 'files', 'a.js'), '')
        .replace(/\b[ab]\.js\b/g, '');
      assert.doesNotMatch(rest, /[A-Za-z]/);
      assert.equal(fs.readFileSync(path.join(root, 'a.js'), 'utf8'), 'const a = "mine";\n');
      assert.equal(fs.readFileSync(path.join(root, 'b.js'), 'utf8'), 'const b = 3;\n');
    } finally {
      await ru.close();
    }
  });
});

describe('the pult in Chromium on a 30,000-file folder', {
  skip: browserSkip,
}, () => {
  let browser: Browser;
  let pult: Pult;
  const root = thirtyThousandFiles('deepwork-big-');

  before(async () => {
    const executor = createExecutor(root);
    pult = await startPult(
      pultOptions({
        executor,
        bridge: createOllamaBridge({ host: 'http://127.0.0.1:9', model: 'm', timeoutMs: 1000 }),
        host: 'http://127.0.0.1:9',
        model: 'm',
        steps: 4,
        backupDir: path.join(root, '..', 'unused-backup'),
        port: 0,
      }),
    );
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await pult?.close();
  });

  it('shows the top folders, fills in their sizes after, opens one on demand and filters down to a deep file', async () => {
    const page = await browser.newPage();
    await page.goto(pult.url);
    await page.getByText('(30,000)').waitFor();
    // Each folder's count is drawn with the tree; its size is filled in when the sizes come.
    await page
      .locator('#tree .size', { hasText: /^1,000 files, 0 B$/ })
      .first()
      .waitFor();
    // Only the top level is drawn at first: thirty folders, no file checkboxes yet.
    assert.equal(await page.locator('#tree button.folder').count(), 30);
    assert.equal(await page.locator('#tree input[data-path]').count(), 0);
    await page.getByRole('button', { name: 'Open folder pkg7' }).click();
    await page.getByRole('button', { name: 'Open folder pkg7/mod3' }).click();
    assert.equal(await page.locator('#tree input[data-path]').count(), 100);
    await page.getByLabel('Filter').fill('pkg29/mod9/file99');
    await page.getByRole('checkbox', { name: 'pkg29/mod9/file99.ts' }).check();
    await page.locator('#selected', { hasText: /^1 file \(\d+ B\) goes with the question\.$/ }).waitFor();
  });
});

describe('a hostile page in the same Chromium', {
  skip: browserSkip,
}, () => {
  let browser: Browser;
  let pult: Pult;
  let hostile: http.Server;
  const root = tempFolder({ 'a.js': 'const a = 1;\n' });
  let asked = 0;

  before(async () => {
    const bridge = { label: 'counting', chat: () => Promise.resolve({ text: `answer ${++asked}` }) };
    pult = await startPult(
      pultOptions({
        executor: createExecutor(root),
        bridge,
        host: 'h',
        model: 'm',
        steps: 2,
        backupDir: path.join(tempFolder(), 'backup'),
        port: 0,
      }),
    );
    // Another site the user has open: a page on another loopback port, so another origin.
    hostile = http.createServer((_req, res) => res.end('<!doctype html><title>evil</title>'));
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    browser = await launchBrowser();
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
    const outcomes = (await page.evaluate(attack)) as string[];
    assert.deepEqual(outcomes.slice(0, 3), ['refused', 'refused', 'refused']);
    const ping = await fetch(`http://127.0.0.1:${pult.port}/api/ping?token=${pult.token}`);
    assert.equal(ping.status, 200);
    const state = (await (await fetch(`http://127.0.0.1:${pult.port}/api/state?token=${pult.token}`)).json()) as {
      runs: unknown[];
    };
    assert.deepEqual(state.runs, []);
    assert.equal(asked, 0);
  });
});

// The page's getComputedStyle, which the Node types the tests compile with do not declare.
type Styles = {
  getComputedStyle: (el: unknown) => { borderStyle: string; borderLeftStyle: string; borderLeftWidth: string };
};

describe('the pult in Chromium: text a model controls', {
  skip: browserSkip,
}, () => {
  let browser: Browser;
  let pult: Pult;
  let fake: FakeBridge;
  let page: Page;
  // Trojan Source (CVE-2021-42574): shown as it is stored, this reads `if (accessLevel != "user") { // Check if admin`.
  const trojan = 'if (accessLevel != "user\u202E \u2066// Check if admin\u2069 \u2066") {';
  const root = tempFolder({ 'access.js': 'let accessLevel = "user";\n', 'b.js': 'const b = 1;\n' });
  const forgedSummary =
    '# 2 proposed changes\n\n- `new` `notes.txt` +1\n- `changed` `b.js` +1 −1\n\n**changed** `.githooks/pre-commit` FILE +1 −1 Write';

  before(async () => {
    fake = await startFakeBridge({
      manualClose: true,
      chat: (content) => {
        const question = questionOf(content);
        if (question.startsWith('Trojan')) {
          return {
            kind: 'reply',
            text: `Here it is\u202E, checked.\n=== FILE: access.js ===\nlet accessLevel = "user";\n${trojan}\n  grant();\n}\n=== END ===\n=== FILE: readme\u202Etxt.js ===\nx\n=== END ===`,
          };
        }
        return {
          kind: 'reply',
          text: `${forgedSummary}\n\n=== FILE: b.js ===\nconst b = 2;\n=== END ===\nThat is all.`,
        };
      },
    });
    pult = await startPult(
      pultOptions({
        executor: createExecutor(root),
        bridge: createOllamaBridge({ host: fake.host, model: 'm', timeoutMs: 20_000 }),
        host: fake.host,
        model: 'm',
        steps: 2,
        backupDir: path.join(tempFolder(), 'backup'),
        port: 0,
      }),
    );
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(pult.url);
    await page.getByText('(2)').waitFor();
  });
  after(async () => {
    await browser?.close();
    await pult?.close();
    await fake?.close();
  });

  it('shows invisible and direction-changing characters as codes in logical order, in the diff, paths, prose and question, and flags the diff line', async () => {
    await page.getByLabel('Question').fill('Trojan\u200B?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const run = page.locator('#run-1[data-state="answered"]');
    await run.waitFor();
    const card = run.locator('.proposal[data-path="access.js"]');
    await card.locator('.diff').waitFor();
    const lines = await card.locator('.diff .line').evaluateAll((rows) =>
      rows.map((row) => ({
        code: row.querySelector('.code')?.textContent ?? '',
        flagged: row.classList.contains('flagged'),
        flag: row.querySelector('.flag')?.getAttribute('aria-label') ?? null,
      })),
    );
    const shown = '+if (accessLevel != "user⟨U+202E⟩ ⟨U+2066⟩// Check if admin⟨U+2069⟩ ⟨U+2066⟩") {';
    assert.deepEqual(
      lines.filter((l) => l.flagged),
      [{ code: shown, flagged: true, flag: 'This line holds invisible or direction-changing characters' }],
    );
    assert.ok(
      lines.some((l) => l.code === '+  grant();' && !l.flagged),
      JSON.stringify(lines),
    );
    assert.match(await card.innerText(), /Holds invisible or direction-changing characters/);
    // The codes are boxes of their own, and no bidirectional control is left on the page to reorder what it shows.
    assert.equal(
      await card
        .locator('.diff .hidden-char')
        .first()
        .evaluate((box) => (globalThis as unknown as Styles).getComputedStyle(box).borderStyle),
      'solid',
    );
    assert.doesNotMatch(await page.locator('body').innerText(), /[\u202A-\u202E\u2066-\u2069\u200B]/);
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: artifact('pult-hidden-characters.png') });

    const shownPath = 'readme⟨U+202E⟩txt.js';
    assert.equal(await run.locator('.proposal').nth(1).locator('.head code').innerText(), shownPath);
    assert.match(await run.locator('.proposal').nth(1).innerText(), /Holds invisible or direction-changing characters/);
    assert.ok((await run.locator('.summary').innerText()).includes(shownPath));
    await run.locator('.log-line').click();
    assert.match(await run.locator('.log').innerText(), /proposes access\.js, readme⟨U\+202E⟩txt\.js\./);
    assert.equal(await run.locator('.prose').innerText(), 'Here it is⟨U+202E⟩, checked.');
    assert.equal(await run.locator('summary h3').innerText(), 'Trojan⟨U+200B⟩?');
    assert.match(await page.locator('#conversations').innerText(), /Trojan⟨U\+200B⟩\?/);
  });

  it("keeps the model's prose apart from deepwork's summary and cards, however it dresses up", async () => {
    await page.getByLabel('Question').fill('Forge');
    await page.getByRole('button', { name: 'Ask' }).click();
    const run = page.locator('#run-2[data-state="answered"]');
    await run.waitFor();
    // Deepwork's summary and cards hold the one real proposal; the forged ones are the model's text, marked as such.
    assert.equal(await run.locator('.summary').count(), 1);
    assert.doesNotMatch(await run.locator('.summary').innerText(), /notes\.txt|pre-commit/);
    assert.deepEqual(
      await run.locator('.proposal').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-path'))),
      ['b.js'],
    );
    const model = run.getByRole('group', { name: 'Written by the model' });
    assert.equal(await model.count(), 2);
    assert.match(await model.first().innerText(), /2 proposed changes[\s\S]*notes\.txt[\s\S]*\.githooks\/pre-commit/);
    assert.equal(
      await run.locator('.prose .summary, .prose .proposal, .prose button, .summary .prose, .proposal .prose').count(),
      0,
    );
    assert.equal(await run.locator('.from-model').innerText(), 'Written by the model');
    const bar = await model.first().evaluate((el) => {
      const style = (globalThis as unknown as Styles).getComputedStyle(el);
      return [style.borderLeftStyle, style.borderLeftWidth];
    });
    assert.deepEqual(bar, ['solid', '3px']);
    await run.scrollIntoViewIfNeeded();
    await page.screenshot({ path: artifact('pult-model-prose.png') });
  });
});

describe('the pult in Chromium opened with a one-time link', {
  skip: browserSkip,
}, () => {
  let browser: Browser;
  const root = tempFolder({ 'a.js': 'const a = 1;\n' }, 'my-project-');
  const stateDir = tempFolder();
  // As `deepwork ui` starts it: the folder's token kept in the state folder, links with one-time codes.
  const launch = (port = 0) =>
    launchPult(
      pultOptions({
        executor: createExecutor(root),
        bridge: createOllamaBridge({ host: 'http://127.0.0.1:9', model: 'm', timeoutMs: 1000 }),
        host: 'http://127.0.0.1:9',
        model: 'm',
        steps: 4,
        backupDir: path.join(stateDir, 'backup'),
        stateDir,
        port,
      }),
    );

  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it('trades its link for the key, keeps neither in the address bar, and reconnects by itself when deepwork is started again', async () => {
    const first = await launch();
    const port = first.pult?.port ?? 0;
    const page = await browser.newPage({ locale: 'en-US' });
    try {
      await page.goto(first.oneTimeUrl());
      await page.getByText('(1)').waitFor();
      assert.equal(new URL(page.url()).search, '', 'no code or token in the address bar');
      await page.reload();
      await page.getByText('(1)').waitFor();
      await first.pult?.close();
      await page.locator('#banner', { hasText: 'deepwork stopped' }).waitFor();
      const again = await launch(port);
      try {
        await page.locator('#banner').waitFor({ state: 'hidden' });
        assert.equal(await page.getByRole('button', { name: 'Ask' }).isEnabled(), true);
        await page.getByLabel('Bridge').selectOption('demo');
        await page.getByLabel('Question').fill('where is const used?');
        await page.getByRole('button', { name: 'Ask' }).click();
        await page.locator('.run[data-state="answered"]').waitFor();
      } finally {
        await again.pult?.close();
      }
    } finally {
      await page.close();
    }
  });

  it('says clearly that its link was used already, and locks out whoever used it first', async () => {
    const launched = await launch();
    const page = await browser.newPage({ locale: 'en-US' });
    try {
      const link = launched.oneTimeUrl();
      const first = await trade(link);
      await page.goto(link);
      const banner = page.locator('#banner', { hasText: 'This link was used already' });
      await banner.waitFor();
      assert.match(
        await banner.innerText(),
        /someone else on this machine may have used it, so deepwork changed its key and locked them out\. Run deepwork ui in the project folder again/,
      );
      assert.equal(new URL(page.url()).search, '');
      assert.equal(await page.getByRole('button', { name: 'Ask' }).isDisabled(), true);
      assert.equal(
        (await fetch(`${launched.url}api/state`, { headers: { 'x-deepwork-token': first } })).status,
        403,
        'the key traded first opens nothing now',
      );
      await page.goto(launched.oneTimeUrl());
      await page.getByText('(1)').waitFor();
    } finally {
      await page.close();
      await launched.pult?.close();
    }
  });

  it('says when its link has expired, and what to do when it has none', async () => {
    const launched = await launch();
    const page = await browser.newPage({ locale: 'en-US' });
    try {
      const pult = launched.pult;
      assert.ok(pult !== undefined);
      await page.goto(`${launched.url}?code=${newCode(pult.token, pult.instance, Date.now() - CODE_LIFE_MS - 1000)}`);
      await page
        .locator('#banner', { hasText: 'This link has expired: a link from deepwork works for two minutes.' })
        .waitFor();
      await page.goto(launched.url);
      await page
        .locator('#banner', {
          hasText: 'This page opens with a link from deepwork. Run deepwork ui in the project folder',
        })
        .waitFor();
    } finally {
      await page.close();
      await launched.pult?.close();
    }
  });

  it('never sends its key to another program that takes the port after deepwork stops', async () => {
    const launched = await launch();
    const pult = launched.pult;
    assert.ok(pult !== undefined);
    const page = await browser.newPage({ locale: 'en-US' });
    try {
      await page.goto(launched.oneTimeUrl());
      await page.getByText('(1)').waitFor();
      const token = pult.token;
      await pult.close();
      await page.locator('#banner', { hasText: 'deepwork stopped' }).waitFor();
      // Another program on the port the page keeps coming back to: it records all it gets.
      const seen: string[] = [];
      let twice = () => {};
      const cameBack = new Promise<void>((resolve) => (twice = resolve));
      const record = (what: string) => {
        seen.push(what);
        if (seen.length >= 2) twice();
      };
      const impostor = http.createServer((req, res) => {
        record(`${req.method ?? ''} ${req.url ?? ''} ${JSON.stringify(req.headers)}`);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ instance: pult.instance, proof: 'guess' }));
      });
      impostor.on('upgrade', (req, socket) => {
        record(`UPGRADE ${req.url ?? ''} ${JSON.stringify(req.headers)}`);
        socket.destroy();
      });
      await new Promise<void>((resolve) => impostor.listen(pult.port, '127.0.0.1', resolve));
      try {
        await cameBack;
        for (const request of seen) assert.ok(!request.includes(token), `the other program got the key: ${request}`);
        await page.locator('#banner', { hasText: "cannot prove it is this page's pult" }).waitFor();
      } finally {
        impostor.closeAllConnections();
        impostor.close();
      }
    } finally {
      await page.close();
    }
  });
});
