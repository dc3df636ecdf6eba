// The browser extension's strings (the Bridge list's option, its state, the line above a step it works), in English
// and Russian: strings.js joins them into its tables, and a missing or mistyped translation fails `tsc -p ui/page`.

import { fmt } from './language.js';

/** @import { ExtensionMiss, StepPhase } from '../contract.ts' */

export const extensionEn = {
  extensionOption: 'Web chat tab (extension)',
  extAbsent:
    "The deepwork extension is not in this browser. Load the folder extension/ as an unpacked extension (README: The web chat tab), then reload this page. Until then, copy and paste works: it is the extension's fallback.",
  extUnpaired: 'The extension is here, not paired with this pult yet.',
  extPair: 'Pair',
  extAsking: "Confirm the pairing in the extension's window.",
  extRefused: (/** @type {string} */ why) => `Not paired: ${why}. Press Pair to try again.`,
  extNoTab:
    "Paired. Open your chat in a tab of this browser and log in: DeepSeek, ChatGPT, Qwen, Kimi or Gemini in AI Studio, or a site of your sites folder — whose host must also be in the extension's host_permissions (extension/manifest.json, then reload the extension), or its tabs are not seen.",
  extReady: 'Paired. Each step goes to:',
  extFirstFree: 'the first free chat tab',
  extOther: ' (another pult is using it)',
  extAutomatic: 'Press Send too (automatic)',
  extProblem: (/** @type {string} */ file, /** @type {string} */ problem) => `${file} is not used: ${problem}`,
  // The line above a step the extension works; `where` is the site and the tab's title.
  extPhase: (/** @type {StepPhase} */ phase, /** @type {number} */ chars) =>
    /** @satisfies {Record<StepPhase, string>} */ ({
      opening: 'opening a new chat…',
      typing: 'putting the message into the chat…',
      'waiting-send': "the message is in the chat's input: press Send there.",
      answering: chars > 0 ? `the chat is answering: ${fmt(chars)} characters so far.` : 'the chat is answering…',
      reading: 'taking the reply…',
      missed: 'missed.',
    })[phase],
  extOrPaste: 'Or copy and paste this step yourself, below.',
  extMissed: 'Copy and paste this step instead, below: the message is ready.',
  extMiss: (/** @type {ExtensionMiss} */ m) => {
    const sel = m.selector === undefined ? '' : ` (selector ${m.selector})`;
    return /** @satisfies {Record<ExtensionMiss['kind'], string>} */ ({
      absent: 'the extension is not connected to this pult',
      'no-tab': 'no chat tab is open in this browser',
      'tab-busy': "the chat tab is busy with another pult's question",
      'tab-gone':
        m.detail === 'reloaded'
          ? 'the chat tab was reloaded or left during the step'
          : 'the chat tab was closed or left the chat',
      'no-access': "the extension may not reach that site: add it to the extension's host_permissions and reload it",
      'logged-out': `the chat shows its log-in page${sel}: log in, then copy and paste this step`,
      'no-input': `the input box was not found${sel}`,
      'not-typed': `the message did not go into the input box${sel}`,
      'no-send': `the Send button was not found or stayed disabled${sel}`,
      'no-reply': `the chat did not begin answering${m.detail === undefined ? '' : ` within ${m.detail} s`}${sel}`,
      'not-settled': `the reply never settled${sel}`,
      'too-large':
        m.detail !== undefined && /^\d+$/.test(m.detail)
          ? `the reply is too large (${fmt(Number(m.detail))} characters)`
          : `the chat says the message is too long${m.detail === undefined ? '' : ` ("${m.detail}")`}: start a new chat with the message that stands on its own, or lower pasteMaxChars`,
      'bad-selector': `a selector of the site is not valid CSS${sel}: fix it in the sites folder`,
      refused: 'the pairing was refused',
      failed: `it failed${m.detail === undefined ? '' : ` (${m.detail})`}`,
    })[m.kind];
  },
};

/** @type {typeof extensionEn} */
export const extensionRu = {
  extensionOption: 'Вкладка веб-чата (расширение)',
  extAbsent:
    'Расширения deepwork в этом браузере нет. Загрузите папку extension/ как распакованное расширение (README: The web chat tab) и перезагрузите страницу. А пока работает копирование и вставка: к ней расширение и отступает.',
  extUnpaired: 'Расширение есть, но с этим пультом ещё не связано.',
  extPair: 'Связать',
  extAsking: 'Подтвердите связь в окне расширения.',
  extRefused: (/** @type {string} */ why) => `Не связано: ${why}. Нажмите «Связать» ещё раз.`,
  extNoTab:
    'Связано. Откройте свой чат во вкладке этого браузера и войдите: DeepSeek, ChatGPT, Qwen, Kimi или Gemini в AI Studio, или сайт из вашей папки sites — но его адрес должен быть и в host_permissions расширения (extension/manifest.json, затем перезагрузите расширение), иначе его вкладок не видно.',
  extReady: 'Связано. Каждый шаг идёт в:',
  extFirstFree: 'первую свободную вкладку чата',
  extOther: ' (её занял другой пульт)',
  extAutomatic: 'Нажимать и «Отправить» (автоматически)',
  extProblem: (/** @type {string} */ file, /** @type {string} */ problem) => `${file} не используется: ${problem}`,
  extPhase: (/** @type {StepPhase} */ phase, /** @type {number} */ chars) =>
    /** @satisfies {Record<StepPhase, string>} */ ({
      opening: 'открываю новый чат…',
      typing: 'вставляю сообщение в чат…',
      'waiting-send': 'сообщение в поле ввода чата: нажмите там «Отправить».',
      answering: chars > 0 ? `чат отвечает: пока ${fmt(chars)} символов.` : 'чат отвечает…',
      reading: 'забираю ответ…',
      missed: 'не вышло.',
    })[phase],
  extOrPaste: 'Или скопируйте и вставьте этот шаг сами, ниже.',
  extMissed: 'Скопируйте и вставьте этот шаг вместо этого, ниже: сообщение готово.',
  extMiss: (/** @type {ExtensionMiss} */ m) => {
    const sel = m.selector === undefined ? '' : ` (селектор ${m.selector})`;
    return /** @satisfies {Record<ExtensionMiss['kind'], string>} */ ({
      absent: 'расширение не подключено к этому пульту',
      'no-tab': 'в этом браузере не открыта вкладка чата',
      'tab-busy': 'вкладка чата занята вопросом другого пульта',
      'tab-gone':
        m.detail === 'reloaded'
          ? 'вкладку чата перезагрузили или увели во время шага'
          : 'вкладку чата закрыли или увели из чата',
      'no-access':
        'расширению нельзя на этот сайт: добавьте его в host_permissions расширения и перезагрузите расширение',
      'logged-out': `чат показывает страницу входа${sel}: войдите, а этот шаг скопируйте и вставьте`,
      'no-input': `поле ввода не найдено${sel}`,
      'not-typed': `сообщение не попало в поле ввода${sel}`,
      'no-send': `кнопка «Отправить» не найдена или не включилась${sel}`,
      'no-reply': `чат не начал отвечать${m.detail === undefined ? '' : ` за ${m.detail} с`}${sel}`,
      'not-settled': `ответ так и не устоялся${sel}`,
      'too-large':
        m.detail !== undefined && /^\d+$/.test(m.detail)
          ? `ответ слишком велик (${fmt(Number(m.detail))} символов)`
          : `чат пишет, что сообщение слишком длинное${m.detail === undefined ? '' : ` («${m.detail}»)`}: начните новый чат с самостоятельным сообщением или уменьшите pasteMaxChars`,
      'bad-selector': `селектор сайта — не CSS${sel}: исправьте его в папке sites`,
      refused: 'связь отклонена',
      failed: `не удалось${m.detail === undefined ? '' : ` (${m.detail})`}`,
    })[m.kind];
  },
};
