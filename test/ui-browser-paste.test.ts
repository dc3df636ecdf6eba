// The pult's copy-and-paste step in a real headless Chromium (issue 26): the test plays both the person at the page and
// the web chat, copying each message out, putting the chat's reply on the clipboard, pasting it and sending it.
// Without a Chromium these are skipped, as test/ui-browser.test.ts says.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startPult, type Pult } from '../ui/server.ts';
import { pultOptions } from './pult-options.ts';
import { createExecutor } from '../reading/executor.ts';
import { createOllamaBridge } from '../bridge/ollama.ts';
import type { ChatSite } from '../bridge/chat-sites.ts';
import { artifact, browserSkip, launchBrowser } from './browser.ts';
import { tempFolder } from './helpers.ts';

// A pult whose configured bridge is down (nothing listens on port 9), so that copy and paste is what works.
async function pastePult(root: string, chatLimits?: ChatSite): Promise<Pult> {
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
      ...(chatLimits === undefined ? {} : { chatLimits }),
    }),
  );
}

function launch(): Promise<Browser> {
  return launchBrowser();
}

// A page allowed the clipboard, and every reply it sends (POST /api/paste) as sent.
async function pastePage(
  browser: Browser,
  pult: Pult,
  options: { width: number; height: number; locale: string; dark?: boolean },
): Promise<{ context: BrowserContext; page: Page; sent: Array<{ run: number; reply: string; newChat?: boolean }> }> {
  const context = await browser.newContext({
    viewport: { width: options.width, height: options.height },
    locale: options.locale,
    colorScheme: options.dark === true ? 'dark' : 'light',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(pult.url).origin });
  const page = await context.newPage();
  const sent: Array<{ run: number; reply: string; newChat?: boolean }> = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/paste')
      sent.push(JSON.parse(request.postData() ?? '{}'));
  });
  await page.goto(pult.url);
  return { context, page, sent };
}

// The chat's side: its reply put on the clipboard, as its Copy button does.
function chatCopies(page: Page, text: string): Promise<void> {
  return page.evaluate(
    (t) => (globalThis as unknown as { navigator: Clipboardy }).navigator.clipboard.writeText(t),
    text,
  );
}
type Clipboardy = { clipboard: { writeText(text: string): Promise<void>; readText(): Promise<string> } };

function clipboard(page: Page): Promise<string> {
  return page.evaluate('navigator.clipboard.readText()') as Promise<string>;
}

function focused(page: Page): Promise<string> {
  return page.evaluate('document.activeElement?.id ?? ""') as Promise<string>;
}

// Each of these controls, brought to the bottom of the window (where a sticky composer sits), is what a click at its
// centre reaches: nothing covers it.
function covered(page: Page, ids: string[]): Promise<string[]> {
  return page.evaluate(`${JSON.stringify(ids)}.flatMap((id) => {
    const el = document.getElementById(id);
    if (el === null) return [id + ' is missing'];
    el.scrollIntoView({ block: 'end' });
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && el.contains(hit) ? [] : [id + ' is under ' + (hit?.closest('[id]')?.id ?? hit?.tagName)];
  })`) as Promise<string[]>;
}

// Waits until the text box's value holds `text` (`start`: begins with it). The page sets a box's value when it draws
// the run anew, so each change of the page is a moment to look. (Not waitForFunction: it evaluates its predicate as a
// string, which the page's CSP refuses.)
type Dom = {
  setTimeout: (f: () => void, ms: number) => void;
  document: { body: unknown; querySelector(selector: string): { value?: string } | null };
  MutationObserver: new (
    callback: () => void,
  ) => { observe(target: unknown, options: Record<string, boolean>): void; disconnect(): void };
};
function waitForValue(page: Page, selector: string, text: string, start = false): Promise<void> {
  return page.evaluate(
    ([s, t, first]) =>
      new Promise<void>((resolve, reject) => {
        const dom = globalThis as unknown as Dom;
        const value = () => dom.document.querySelector(s)?.value ?? '';
        const holds = () => (first ? value().startsWith(t) : value().includes(t));
        if (holds()) return resolve();
        const observer = new dom.MutationObserver(() => {
          if (!holds()) return;
          observer.disconnect();
          resolve();
        });
        observer.observe(dom.document.body, { childList: true, subtree: true, attributes: true, characterData: true });
        // Not a wait: the failure's message, when the value never comes (as Playwright's own 30 s).
        dom.setTimeout(() => reject(new Error(`${s} still holds ${JSON.stringify(value().slice(0, 200))}`)), 30_000);
      }),
    [selector, text, start] as const,
  );
}

// The step is in full view below the page's sticky header (`top`), or, taller than the window, starts at its top.
async function inView(page: Page, name: string, top: number): Promise<void> {
  const box = await page.getByRole('group', { name }).boundingBox();
  const height = page.viewportSize()?.height ?? 0;
  assert.ok(box !== null, `${name} is drawn`);
  const whole = box.y >= top && box.y + box.height <= height + 1;
  const fromTop = box.height > height - top && box.y >= top && box.y < top + 50;
  assert.ok(whole || fromTop, `${name} is in view: ${JSON.stringify(box)} in a window ${height} px high`);
}

const numbers = (text: string) => Number(text.replace(/[^\d]/g, ''));

describe('the pult in Chromium: the copy-and-paste step', { skip: browserSkip }, () => {
  let browser: Browser;
  let pult: Pult;
  const root = tempFolder({ 'a.js': 'const a = 1;\n', 'src/b.js': 'export const b = 1;\n' }, 'my-project-');

  before(async () => {
    pult = await pastePult(root);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await pult?.close();
  });

  it('offers copy and paste beside the demo when the configured bridge is down', async () => {
    const { context, page } = await pastePage(browser, pult, { width: 1280, height: 900, locale: 'en-US' });
    await page.locator('#bridge-state.down').waitFor();
    const message = page.locator('#bridge-message');
    assert.match(
      await message.innerText(),
      /by copy and paste[^\n]*\nWithout a model, with nothing to start: Copy and paste \(any web chat\) Demo \(not a model\)$/,
    );
    await message.getByRole('button', { name: 'Demo (not a model)' }).waitFor();
    await message.getByRole('button', { name: 'Copy and paste (any web chat)' }).click();
    assert.equal(await page.getByLabel('Bridge').inputValue(), 'paste');
    await page.locator('#bridge-state.ready').waitFor();
    assert.match(await message.innerText(), /You are the bridge/);
    await context.close();
  });

  it('runs a question of several steps in one web chat: numbered steps, what each carries, its size against the chat, the focus where the reply goes', async () => {
    const { context, page, sent } = await pastePage(browser, pult, { width: 1280, height: 900, locale: 'en-US' });
    await page.getByLabel('Bridge').selectOption('paste');
    await page.getByLabel('Question').fill('Change a to 2');
    await page.getByLabel('Question').press('Control+Enter');

    // Step 1: the first message of a chat stands on its own.
    const step1 = page.getByRole('group', { name: 'Step 1 of 4: a message for a new chat' });
    await step1.waitFor();
    await page.locator('#copy-1:enabled').waitFor();
    assert.deepEqual(await step1.locator('ol.paste-steps > li > strong').allInnerTexts(), [
      'Copy the message',
      'Paste the reply',
      'Send the reply',
    ]);
    assert.equal(
      await step1.locator('.carries').innerText(),
      "It stands on its own: the instructions, the folder's tree and the question.",
    );
    const first = await page.getByLabel('Message to copy').inputValue();
    assert.match(first, /=== QUESTION ===\nChange a to 2/);
    const limits1 = await step1.locator('.limits p').allInnerTexts();
    assert.match(
      limits1[0] ?? '',
      /^This message: [\d,]+ characters \(about [\d,]+ tokens\); one message may have up to 60,000 \(DeepSeek\)\.$/,
    );
    assert.equal(numbers((limits1[0] ?? '').split(' characters')[0] ?? ''), first.length);
    assert.equal(
      limits1[1],
      `A new chat starts with this message: about ${first.length.toLocaleString('en-US')} of the 300,000 characters a chat holds (DeepSeek).`,
    );
    assert.equal(await step1.getByRole('button', { name: 'I started a new chat' }).count(), 0);
    // The step is in view with the focus on Copy; the composer is out of its way.
    await inView(page, 'Step 1 of 4: a message for a new chat', 52);
    assert.equal(await focused(page), 'copy-1');
    assert.equal(await page.evaluate("getComputedStyle(document.getElementById('ask-form')).position"), 'static');

    // ① Copy: the message is on the clipboard and the focus in the reply box, so Ctrl+V there takes the chat's reply.
    await page.getByRole('button', { name: 'Copy message' }).click();
    await step1.getByText('Copied.').waitFor();
    assert.equal(await clipboard(page), first);
    assert.equal(await focused(page), 'reply-1');
    const reply1 = 'Let me look.\n=== NEED: a.js ===';
    await chatCopies(page, reply1);
    await page.keyboard.press('Control+V');
    assert.equal(await page.getByLabel("Model's reply").inputValue(), reply1);
    assert.equal(await page.getByLabel('Question').inputValue(), '', 'nothing lands in the Question box');
    await page.keyboard.press('Control+Enter');

    // Step 2, in the same chat: only what is new, and what the chat holds now.
    const step2 = page.getByRole('group', { name: 'Step 2 of 4: a message for the same chat' });
    await step2.waitFor();
    await waitForValue(page, '#message-1', 'RESULT NEED');
    assert.equal(sent.at(-1)?.newChat, undefined);
    await inView(page, 'Step 2 of 4: a message for the same chat', 52);
    assert.equal(await focused(page), 'copy-1', 'the new step has the focus on Copy');
    const second = await page.getByLabel('Message to copy').inputValue();
    assert.match(second, /=== RESULT NEED a\.js: 1 line ===\n1 \| const a = 1;/);
    assert.doesNotMatch(second, /=== QUESTION ===/);
    assert.equal(
      await step2.locator('.carries').innerText(),
      'What is new in it: the results of NEED a.js. The chat holds the rest.',
    );
    const held = first.length + reply1.length;
    const limits2 = await step2.locator('.limits p').allInnerTexts();
    assert.equal(
      limits2[1],
      `The chat holds about ${held.toLocaleString('en-US')} of 300,000 characters (DeepSeek); with this message, about ${(held + second.length).toLocaleString('en-US')}.`,
    );
    assert.equal(await step2.locator('meter').getAttribute('value'), String(held + second.length));
    await page.getByRole('button', { name: 'Copy message' }).click();
    await step2.getByText('Copied.').waitFor();
    assert.equal(await clipboard(page), second);
    assert.equal(await focused(page), 'reply-1');

    // The chat's reply, taken from the clipboard by the page's button.
    await chatCopies(page, 'Here it is with 2:\n=== FILE: a.js ===\nconst a = 2;\n=== END ===');
    await page.getByRole('button', { name: 'Paste from clipboard' }).click();
    await waitForValue(page, '#reply-1', 'Here it is', true);
    assert.equal(await focused(page), 'reply-1');
    await page.screenshot({ path: artifact('pult-paste.png') });

    // The chat says it is full instead of answering: refused by the reply box, and the step waits still.
    await chatCopies(page, 'Превышен лимит длины сообщения');
    await page.getByRole('button', { name: 'Paste from clipboard' }).click();
    await waitForValue(page, '#reply-1', 'Превышен', true);
    await page.getByRole('button', { name: 'Send reply' }).click();
    const refusal = step2.locator('ol.paste-steps > li').nth(1).getByRole('alert');
    await refusal.waitFor();
    assert.match(
      await refusal.innerText(),
      /^That is the chat's notice that it took too much \("Превышен лимит длины сообщения"\)/,
    );
    assert.equal(await focused(page), 'reply-1');
    assert.equal(await step2.count(), 1, 'the step still waits');

    // A new chat: the message that stands on its own is the one to copy, and the reply goes back as a new chat's.
    await step2.getByRole('button', { name: 'I started a new chat' }).click();
    const fresh2 = page.getByRole('group', { name: 'Step 2 of 4: a message for a new chat' });
    await fresh2.waitFor();
    await waitForValue(page, '#message-1', '=== QUESTION ===');
    const standalone = await page.getByLabel('Message to copy').inputValue();
    assert.match(standalone, /=== QUESTION ===\nChange a to 2[\s\S]*=== RESULT NEED a\.js: 1 line ===/);
    assert.equal(
      await fresh2.locator('.carries').innerText(),
      "It stands on its own: the instructions, the folder's tree, the question and what the model has read so far.",
    );
    assert.match(
      await fresh2.locator('.limits').innerText(),
      new RegExp(
        `A new chat starts with this message: about ${standalone.length.toLocaleString('en-US')} of the 300,000`,
      ),
    );
    await fresh2.getByRole('button', { name: 'Back to the same chat' }).waitFor();
    await page.getByRole('button', { name: 'Copy message' }).click();
    await fresh2.getByText('Copied.').waitFor();
    assert.equal(await clipboard(page), standalone);
    const reply2 = 'Where else is it used?\n=== FIND: const ===';
    await chatCopies(page, reply2);
    await page.getByRole('button', { name: 'Paste from clipboard' }).click();
    await waitForValue(page, '#reply-1', 'Where else', true);
    await page.getByRole('button', { name: 'Send reply' }).click();

    // Step 3, in that new chat: it holds the message that stood on its own and its reply.
    const step3 = page.getByRole('group', { name: 'Step 3 of 4: a message for the same chat' });
    await step3.waitFor();
    assert.deepEqual(sent.at(-1), { run: 1, reply: reply2, newChat: true });
    assert.equal(
      await step3.locator('.carries').innerText(),
      'What is new in it: the results of FIND const. The chat holds the rest.',
    );
    const held3 = standalone.length + reply2.length;
    assert.match(
      await step3.locator('.limits').innerText(),
      new RegExp(`The chat holds about ${held3.toLocaleString('en-US')} of 300,000 characters \\(DeepSeek\\)`),
    );
    // A reload keeps the waiting step.
    await page.reload();
    await step3.waitFor();
    await page.locator('#copy-1:enabled').waitFor();
    await page.getByLabel("Model's reply").fill('```\nDone.\n=== FILE: a.js ===\nconst a = 2;\n=== END ===\n```');
    await page.getByLabel("Model's reply").press('Control+Enter');
    await page.getByRole('button', { name: 'Write a.js' }).click();
    await page.getByText(/^Written; the previous version is in /).waitFor();
    assert.equal(fs.readFileSync(path.join(root, 'a.js'), 'utf8'), 'const a = 2;\n');
    assert.equal(await page.locator('.paste').count(), 0);
    assert.equal(await page.evaluate("getComputedStyle(document.getElementById('ask-form')).position"), 'sticky');

    // A follow-up in the same chat sends only its question.
    await page.getByLabel('Question').fill('And b?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const follow = page.getByRole('group', { name: 'Step 1 of 4: a message for the same chat' });
    await follow.waitFor();
    assert.equal(
      await follow.locator('.carries').innerText(),
      'What is new in it: the new question. The chat holds the rest.',
    );
    await waitForValue(page, '#message-2', '=== QUESTION ===\nAnd b?');
    assert.doesNotMatch(await page.getByLabel('Message to copy').inputValue(), /Change a to 2|=== FILES|RESULT/);
    // Below a run with its answer the page scrolls: a sticky composer would sit over the step's lower part.
    assert.deepEqual(await covered(page, ['message-2', 'reply-2', 'send-2']), []);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('#run-2[data-state="stopped"]').waitFor();
    await context.close();
  });

  it('puts a paste made where no text box has the focus into the reply box', async () => {
    const own = await pastePult(tempFolder({ 'a.js': 'const a = 1;\n' }));
    const { context, page } = await pastePage(browser, own, { width: 1280, height: 900, locale: 'en-US' });
    await page.getByLabel('Bridge').selectOption('paste');
    await page.getByLabel('Question').fill('Something');
    await page.getByRole('button', { name: 'Ask' }).click();
    const id = await page.locator('.paste').getAttribute('id');
    await page.locator('.paste button.primary:enabled').first().waitFor();
    // The reader clicks the page's empty space, then pastes.
    await page.mouse.click(5, 880);
    assert.equal(await page.evaluate('document.activeElement === document.body'), true);
    await chatCopies(page, 'An answer.');
    await page.keyboard.press('Control+V');
    assert.equal(await page.locator(`#${id} textarea.reply`).inputValue(), 'An answer.');
    assert.equal(await page.getByLabel('Question').inputValue(), '');
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.run[data-state="stopped"]').last().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send reply' }).count(), 0);
    await context.close();
    await own.close();
  });
});

describe('the pult in Chromium: a web chat nearly full, on a narrow screen in Russian', { skip: browserSkip }, () => {
  let browser: Browser;
  let pult: Pult;
  const root = tempFolder({ 'a.js': 'const a = 1;\n', 'src/b.js': 'export const b = 1;\n' }, 'my-project-');

  before(async () => {
    // A chat that holds little: the first message and a long reply fill it.
    pult = await pastePult(root, { name: 'another chat', messageChars: 60_000, chatChars: 4_000 });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await pult?.close();
  });

  it('folds the tree away during a step at 420 px, and offers the message for a new chat when the same one would be full', async () => {
    const { context, page, sent } = await pastePage(browser, pult, {
      width: 420,
      height: 860,
      locale: 'ru-RU',
      dark: true,
    });
    await page.locator('#bridge-state.down').waitFor();
    await page
      .locator('#bridge-message')
      .getByRole('button', { name: 'Копировать и вставлять (любой веб-чат)' })
      .click();
    // On a narrow screen the tree is folded away once there are runs to read (this pult's earlier ones may be shown).
    const runsShown = (await page.locator('.run').count()) > 0;
    assert.equal(await page.locator('#tree').isVisible(), !runsShown);
    assert.equal(await page.getByRole('button', { name: 'Показать файлы' }).isVisible(), runsShown);
    await page.getByLabel('Вопрос').fill('Поменяй a на 2');
    await page.getByRole('button', { name: 'Спросить' }).click();

    const step1 = page.getByRole('group', { name: 'Шаг 1 из 4: сообщение для нового чата' });
    await step1.waitFor();
    await page.locator('#copy-1:enabled').waitFor();
    // The tree is folded away, and the step is in view.
    assert.equal(await page.locator('#tree').isVisible(), false);
    await page.getByRole('button', { name: 'Показать файлы' }).waitFor();
    await inView(page, 'Шаг 1 из 4: сообщение для нового чата', 0);
    assert.match(
      (await step1.locator('.limits p').allInnerTexts()).join('\n'),
      /^Это сообщение — [\d\s ]+ символ(а|ов)? \(около [\d\s ]+ токен(а|ов)\); одно сообщение вмещает до 60\s000 \(другой чат\)\.\nНовый чат начнётся с этого сообщения: около [\d\s ]+ из 4\s000 символов, которые вмещает чат \(другой чат\)\.$/,
    );
    assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 420, 'no sideways scrolling at 420 px');
    await page.getByRole('button', { name: 'Копировать сообщение' }).click();
    await step1.getByText('Скопировано.').waitFor();
    assert.equal(await focused(page), 'reply-1');
    await chatCopies(page, `Посмотрю файл.\n${'Рассуждение. '.repeat(150)}\n=== NEED: a.js ===`);
    await page.keyboard.press('Control+V');
    await page.keyboard.press('Control+Enter');

    // The same chat would pass what it holds: the step says so, and the message to copy is the one for a new chat.
    const step2 = page.getByRole('group', { name: 'Шаг 2 из 4: сообщение для нового чата' });
    await step2.waitFor();
    await waitForValue(page, '#message-1', '=== QUESTION ===');
    const full = step2.getByRole('alert');
    assert.match(
      await full.innerText(),
      /^Этот чат почти заполнен: в нём около [\d\s ]+ из 4\s000 символов \(другой чат\), и следующее сообщение его переполнит — чат перестанет отвечать или забудет начало\. Поэтому здесь сообщение для нового чата/,
    );
    assert.equal(
      await step2.locator('.carries').innerText(),
      'В нём всё нужное: инструкции, дерево папки, вопрос и то, что модель уже прочитала.',
    );
    await step2.getByRole('button', { name: 'Вернусь в тот же чат' }).waitFor();
    assert.equal(await page.locator('#tree').isVisible(), false);
    assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 420, 'no sideways scrolling at 420 px');
    await page.screenshot({ path: artifact('pult-paste-narrow.png') });

    // The files open again on demand, and by themselves once no step waits.
    await page.getByRole('button', { name: 'Показать файлы' }).click();
    assert.equal(await page.locator('#tree').isVisible(), true);
    await page.getByRole('button', { name: 'Скрыть файлы' }).click();
    assert.equal(await page.locator('#tree').isVisible(), false);
    await page.getByRole('button', { name: 'Копировать сообщение' }).click();
    await step2.getByText('Скопировано.').waitFor();
    await chatCopies(page, 'Готово.\n=== FILE: a.js ===\nconst a = 2;\n=== END ===');
    await page.keyboard.press('Control+V');
    await page.getByRole('button', { name: 'Отправить ответ' }).click();
    await page.getByRole('button', { name: 'Записать a.js' }).waitFor();
    assert.equal(sent.at(-1)?.newChat, true);
    // The step is done; with the run to read, the tree stays folded until asked for.
    assert.equal(await page.locator('#tree').isVisible(), false);
    await page.getByRole('button', { name: 'Показать файлы' }).waitFor();
    await context.close();
  });
});
