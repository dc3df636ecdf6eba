// @ts-check
// The pult's page: the folder's files, the conversation run by run as it happens, the answers with their proposed
// changes as cards, and the folder's saved conversations. Everything from a model's reply is put in as text; the
// prose of an answer is HTML from the server's markdown renderer, which keeps raw HTML as text, and the page's CSP
// runs no script but this one. All text goes in through visible(), which shows invisible and direction-changing
// characters as codes. Every string the page shows is in STRINGS, in English and Russian.

/** @typedef {{ path: string, status: string, added: number, removed: number, written: boolean, reason?: string, diff?: string, base?: string, backupSet?: string }} FileView */
/** @typedef {{ kind: 'sending', step: number, steps: number, chars: number, tokens: number, budget: number, dropped: number } | { kind: 'replied', step: number, steps: number, chars: number, ms: number, requests: string[], files: string[] } | { kind: 'answered-requests', step: number, steps: number, requests: number, chars: number } | { kind: 'warning', step: number, steps: number, message: string } | { kind: 'done', steps: number, stop: string } | { kind: 'not-saved', where: string, reason: string }} LogEntry */
/** @typedef {{ kind: 'prose', html: string } | { kind: 'proposal', path: string, block: 'file' | 'edit', complete: boolean }} AnswerPart */
/** @typedef {{ step: number, since: number, received: number, thinking: number, paste?: { chars: number, tokens: number, warning?: string } }} Waiting */
/** @typedef {{ id: number, conversation: string, question: string, attached: string[], bridge: string, state: string, reopened: boolean, log: LogEntry[], waiting?: Waiting, parts?: AnswerPart[], stop?: string, error?: string, files: FileView[], hiddenIn: string[] }} RunView */
/** @typedef {{ id: string, title: string, time: string, questions: number }} ConversationInfo */
/** @typedef {{ name: string, path: string, dirs: Map<string, Folder>, files: Array<{ name: string, path: string, size: number }>, count: number, bytes: number }} Folder */
/** @typedef {{ state: string, message: string }} Check */

// ---- strings ----

/** @param {number} n @param {string} one @param {string} few @param {string} many */
function ruPlural(n, one, few, many) {
  const ten = n % 10;
  const hundred = n % 100;
  if (ten === 1 && hundred !== 11) return one;
  if (ten >= 2 && ten <= 4 && (hundred < 12 || hundred > 14)) return few;
  return many;
}

const STRINGS = {
  en: {
    bridge: 'Bridge', check: 'Check', checking: 'checking…', language: 'Language', files: 'Files', filter: 'Filter',
    filterHint: 'part of a path', treeLabel: 'Project files', conversations: 'Conversations', question: 'Question',
    questionHint: 'Where is it decided that an answer is complete? (Ctrl+Enter asks, Esc stops)', steps: 'Steps',
    ask: 'Ask', stop: 'Stop', newConversation: 'New conversation', newConversationTitle: 'New conversation',
    emptyRuns: 'Ask a question about this folder. The model reads the files it needs; nothing is written until you press Write.',
    emptyQuestion: 'Write a question first: what should the model find out, explain or change?',
    noConversations: 'None yet: each question you ask starts or continues one.',
    ready: 'ready', idle: 'idle', down: 'down', gone: 'not running',
    demoState: 'The demo bridge answers offline: it searches for the question\'s words, it is not a model.',
    downHint: 'To try deepwork without a model, choose the demo bridge in the Bridge list.',
    goneBanner: (/** @type {string} */ root) => `deepwork stopped. Start it again — run deepwork ui in ${root}, or drop the folder on start-deepwork.cmd — and this page reconnects by itself.`,
    notRunning: 'deepwork is not running, so this was not done. Start it again; this page reconnects by itself.',
    // How a page got in, or why not (see "the key" below). Links live two minutes: CODE_LIFE_MS in ui/security.ts.
    linkUsed: 'This link was used already: a link from deepwork lets one page in, once. If that was not you, someone else on this machine may have used it, so deepwork changed its key and locked them out. Run deepwork ui in the project folder again (or drop the folder on start-deepwork.cmd) for a new link.',
    linkExpired: 'This link has expired: a link from deepwork works for two minutes. Run deepwork ui in the project folder again (or drop the folder on start-deepwork.cmd) for a new one.',
    linkUnknown: 'This link is not this pult\'s: it was made for an earlier run of deepwork, or it was changed. Run deepwork ui in the project folder again (or drop the folder on start-deepwork.cmd) for a new one.',
    noLink: 'This page opens with a link from deepwork. Run deepwork ui in the project folder (or drop the folder on start-deepwork.cmd): it opens the pult with a one-time link.',
    foreignPult: 'Something answers on this page\'s port that cannot prove it is this page\'s pult: deepwork changed its key, or another program took the port. This page sends it nothing. Run deepwork ui in the project folder for a new link.',
    rekeyed: 'A link to this pult was used a second time, so someone else on this machine may have had it: deepwork changed its key and let every page go, this one too. Run deepwork ui in the project folder for a new link.',
    noneTicked: 'No files ticked: the model asks for what it needs.',
    ticked: (/** @type {number} */ n, /** @type {string} */ size) => `${n === 1 ? '1 file' : `${fmt(n)} files`} (${size}) go with the question.`,
    overBudget: (/** @type {number} */ chars, /** @type {number} */ paths) => ` That is past what one step sends (${fmt(chars)} characters, ${fmt(paths)} files): the model gets the first ones and asks again for the rest. Untick some.`,
    folderBox: (/** @type {string} */ p) => `All files in ${p}`, openFolder: (/** @type {string} */ p) => `Open folder ${p}`, closeFolder: (/** @type {string} */ p) => `Close folder ${p}`,
    fileCount: (/** @type {number} */ n) => (n === 1 ? '1 file' : `${fmt(n)} files`),
    more: (/** @type {number} */ n) => `… ${fmt(n)} more; type more of the path`,
    continues: (/** @type {string} */ title) => `Ask continues “${title}”: the model gets its questions and answers.`,
    questions: (/** @type {number} */ n) => (n === 1 ? '1 question' : `${n} questions`),
    withFiles: (/** @type {string} */ files) => `; with ${files}`, reopened: 'from a saved conversation',
    stepSending: (/** @type {Extract<LogEntry, { kind: 'sending' }>} */ e) => `Step ${e.step}/${e.steps}: sending ${fmt(e.chars)} characters, about ${fmt(e.tokens)} tokens of ${fmt(e.budget)}${e.dropped > 0 ? `; ${e.dropped} earlier result${e.dropped === 1 ? '' : 's'} dropped to fit` : ''}.`,
    stepReplied: (/** @type {Extract<LogEntry, { kind: 'replied' }>} */ e) => `Step ${e.step}/${e.steps}: reply of ${fmt(e.chars)} characters in ${duration(e.ms)}; ${e.requests.length > 0 ? `asks ${e.requests.join('; ')}` : 'no requests: the answer'}${e.files.length > 0 ? `; proposes ${e.files.join(', ')}` : ''}.`,
    stepAnswered: (/** @type {Extract<LogEntry, { kind: 'answered-requests' }>} */ e) => `Step ${e.step}/${e.steps}: answered ${e.requests} request${e.requests === 1 ? '' : 's'} with ${fmt(e.chars)} characters.`,
    stepWarning: (/** @type {Extract<LogEntry, { kind: 'warning' }>} */ e) => `Step ${e.step}/${e.steps}: ${e.message}`,
    done: (/** @type {Extract<LogEntry, { kind: 'done' }>} */ e) => `Answer after ${e.steps} step${e.steps === 1 ? '' : 's'}${e.stop === 'answered' ? '' : e.stop === 'steps' ? ': the steps ran out' : ': the model repeated its requests'}.`,
    notSaved: (/** @type {Extract<LogEntry, { kind: 'not-saved' }>} */ e) => `The run could not be kept in ${e.where} (${e.reason}); deepwork apply will not find it.`,
    waiting: (/** @type {Waiting} */ w) => `Step ${w.step}: waiting ${Math.max(0, Math.round((Date.now() - w.since) / 1000))} s${w.thinking > 0 ? `, thinking, ${fmt(w.thinking)} characters` : ''}${w.received > 0 ? `, ${fmt(w.received)} characters so far` : ''}…`,
    stopped: 'Stopped.',
    status: (/** @type {string} */ s) => ({ new: 'new', changed: 'changed', 'held back': 'held back', incomplete: 'incomplete', refused: 'refused', failed: 'failed', unchanged: 'unchanged', written: 'written' })[s] ?? s,
    proposals: (/** @type {number} */ n) => (n === 1 ? '1 proposed change' : `${n} proposed changes`),
    writeAll: (/** @type {number} */ n) => `Write all (${n})`, write: 'Write', writeAnyway: 'Write anyway',
    writeLabel: (/** @type {string} */ p) => `Write ${p}`, writeAnywayLabel: (/** @type {string} */ p) => `Write ${p} anyway`,
    diff: 'Diff', hideDiff: 'Hide diff', diffLabel: (/** @type {string} */ p) => `Diff of ${p}`, undo: (/** @type {number} */ n) => `Undo this write: ${n} file${n === 1 ? '' : 's'}`, undoLabel: (/** @type {number} */ n, /** @type {string} */ list) => `Undo this write: ${n} file${n === 1 ? '' : 's'} (${list})`,
    written: (/** @type {string} */ set) => `Written; the previous version is in ${set}.`,
    undone: (/** @type {number} */ n, /** @type {string} */ list) => `Undid this write of ${n} file${n === 1 ? '' : 's'}: ${list}.`, nothingUndone: 'Nothing to put back: no file of that set was written.',
    action: (/** @type {string} */ a) => ({ restored: 'restored', removed: 'removed', left: 'left alone', skipped: 'left alone' })[a] ?? a,
    cutCard: 'The reply ended before this block\'s END line: it is never written.',
    elsewhere: 'Proposed at an earlier step', notKept: 'Proposed in an earlier session; only the folder\'s last run can still be written.',
    partOf: (/** @type {number} */ i, /** @type {number} */ n) => `part ${i} of ${n} for this file`,
    fileBlock: 'FILE', editBlock: 'EDIT',
    pasteOption: 'Copy and paste (any web chat)',
    pasteState: 'You are the bridge: each message is copied into any web chat, and its reply pasted back here. No service to start.',
    pasteStep: (/** @type {number} */ step, /** @type {number} */ chars, /** @type {number} */ tokens) => `Step ${step}: copy this message into the web chat (${fmt(chars)} characters, about ${fmt(tokens)} tokens).`,
    pasteHow: 'A new chat for each question or the same chat both work: every message holds the whole conversation. Paste the model\'s whole reply below (the chat\'s Copy button copies it).',
    copyMessage: 'Copy message', copied: 'Copied.', copyFallback: 'The browser did not allow the clipboard: the message is selected, press Ctrl+C.',
    messageLabel: 'Message to copy', loading: 'Loading…', replyLabel: "Model's reply", sendReply: 'Send reply',
    hiddenChar: 'An invisible or direction-changing character, shown as its code',
    hiddenLine: 'This line holds invisible or direction-changing characters',
    hiddenNote: 'Holds invisible or direction-changing characters: each is shown as a boxed code (⟨U+…⟩), and the diff marks the lines that hold them.',
    fromModel: 'Written by the model',
  },
  ru: {
    bridge: 'Мост', check: 'Проверить', checking: 'проверка…', language: 'Язык', files: 'Файлы', filter: 'Фильтр',
    filterHint: 'часть пути', treeLabel: 'Файлы проекта', conversations: 'Беседы', question: 'Вопрос',
    questionHint: 'Где решается, что ответ готов? (Ctrl+Enter — спросить, Esc — остановить)', steps: 'Шаги',
    ask: 'Спросить', stop: 'Стоп', newConversation: 'Новая беседа', newConversationTitle: 'Новая беседа',
    emptyRuns: 'Задайте вопрос об этой папке. Модель сама читает нужные файлы; ничего не записывается, пока вы не нажмёте «Записать».',
    emptyQuestion: 'Сначала напишите вопрос: что модели выяснить, объяснить или изменить?',
    noConversations: 'Пока нет: каждый вопрос начинает или продолжает беседу.',
    ready: 'готов', idle: 'ждёт', down: 'недоступен', gone: 'не запущен',
    demoState: 'Демо-мост отвечает без сети: он ищет слова вопроса, это не модель.',
    downHint: 'Чтобы попробовать deepwork без модели, выберите демо-мост в списке «Мост».',
    goneBanner: (/** @type {string} */ root) => `deepwork остановлен. Запустите его снова — deepwork ui в ${root} или перетащите папку на start-deepwork.cmd, — и страница подключится сама.`,
    notRunning: 'deepwork не запущен, поэтому это не сделано. Запустите его снова; страница подключится сама.',
    linkUsed: 'Эта ссылка уже использована: ссылка от deepwork впускает одну страницу, один раз. Если это были не вы, её мог использовать кто-то другой на этом компьютере, поэтому deepwork сменил ключ и закрыл ему доступ. Запустите deepwork ui в папке проекта снова (или перетащите папку на start-deepwork.cmd), чтобы получить новую ссылку.',
    linkExpired: 'Срок этой ссылки истёк: ссылка от deepwork действует две минуты. Запустите deepwork ui в папке проекта снова (или перетащите папку на start-deepwork.cmd), чтобы получить новую.',
    linkUnknown: 'Эта ссылка не от этого пульта: она сделана для прежнего запуска deepwork или изменена. Запустите deepwork ui в папке проекта снова (или перетащите папку на start-deepwork.cmd), чтобы получить новую.',
    noLink: 'Эта страница открывается по ссылке от deepwork. Запустите deepwork ui в папке проекта (или перетащите папку на start-deepwork.cmd): он откроет пульт по одноразовой ссылке.',
    foreignPult: 'На порту этой страницы отвечает кто-то, кто не может доказать, что он её пульт: deepwork сменил ключ или порт занят другой программой. Страница ничего ему не отправляет. Запустите deepwork ui в папке проекта, чтобы получить новую ссылку.',
    rekeyed: 'Ссылку на этот пульт использовали второй раз, значит, она могла быть у кого-то ещё на этом компьютере: deepwork сменил ключ и отключил все страницы, и эту тоже. Запустите deepwork ui в папке проекта, чтобы получить новую ссылку.',
    noneTicked: 'Файлы не отмечены: модель сама попросит нужные.',
    ticked: (/** @type {number} */ n, /** @type {string} */ size) => `${fmt(n)} ${ruPlural(n, 'файл', 'файла', 'файлов')} (${size}) уйдут с вопросом.`,
    overBudget: (/** @type {number} */ chars, /** @type {number} */ paths) => ` Это больше, чем отправляется за шаг (${fmt(chars)} символов, ${fmt(paths)} файлов): модель получит первые и попросит остальные снова. Снимите часть отметок.`,
    folderBox: (/** @type {string} */ p) => `Все файлы в ${p}`, openFolder: (/** @type {string} */ p) => `Открыть папку ${p}`, closeFolder: (/** @type {string} */ p) => `Закрыть папку ${p}`,
    fileCount: (/** @type {number} */ n) => `${fmt(n)} ${ruPlural(n, 'файл', 'файла', 'файлов')}`,
    more: (/** @type {number} */ n) => `… ещё ${fmt(n)}; уточните путь`,
    continues: (/** @type {string} */ title) => `«Спросить» продолжит беседу «${title}»: модель получит её вопросы и ответы.`,
    questions: (/** @type {number} */ n) => `${n} ${ruPlural(n, 'вопрос', 'вопроса', 'вопросов')}`,
    withFiles: (/** @type {string} */ files) => `; с файлами ${files}`, reopened: 'из сохранённой беседы',
    stepSending: (/** @type {Extract<LogEntry, { kind: 'sending' }>} */ e) => `Шаг ${e.step}/${e.steps}: отправка ${fmt(e.chars)} ${ruPlural(e.chars, 'символа', 'символов', 'символов')}, около ${fmt(e.tokens)} токенов из ${fmt(e.budget)}${e.dropped > 0 ? `; убрано ранних результатов: ${e.dropped}` : ''}.`,
    stepReplied: (/** @type {Extract<LogEntry, { kind: 'replied' }>} */ e) => `Шаг ${e.step}/${e.steps}: ответ из ${fmt(e.chars)} ${ruPlural(e.chars, 'символа', 'символов', 'символов')} за ${duration(e.ms)}; ${e.requests.length > 0 ? `просит ${e.requests.join('; ')}` : 'запросов нет: это ответ'}${e.files.length > 0 ? `; предлагает ${e.files.join(', ')}` : ''}.`,
    stepAnswered: (/** @type {Extract<LogEntry, { kind: 'answered-requests' }>} */ e) => `Шаг ${e.step}/${e.steps}: выполнено запросов: ${e.requests}, ${fmt(e.chars)} ${ruPlural(e.chars, 'символ', 'символа', 'символов')}.`,
    stepWarning: (/** @type {Extract<LogEntry, { kind: 'warning' }>} */ e) => `Шаг ${e.step}/${e.steps}: ${e.message}`,
    done: (/** @type {Extract<LogEntry, { kind: 'done' }>} */ e) => `Ответ за ${e.steps} ${ruPlural(e.steps, 'шаг', 'шага', 'шагов')}${e.stop === 'answered' ? '' : e.stop === 'steps' ? ': шаги кончились' : ': модель повторила запросы'}.`,
    notSaved: (/** @type {Extract<LogEntry, { kind: 'not-saved' }>} */ e) => `Запуск не сохранён в ${e.where} (${e.reason}); deepwork apply его не найдёт.`,
    waiting: (/** @type {Waiting} */ w) => `Шаг ${w.step}: ожидание ${Math.max(0, Math.round((Date.now() - w.since) / 1000))} с${w.thinking > 0 ? `, размышляет, ${fmt(w.thinking)} символов` : ''}${w.received > 0 ? `, получено ${fmt(w.received)} символов` : ''}…`,
    stopped: 'Остановлено.',
    status: (/** @type {string} */ s) => ({ new: 'новый', changed: 'изменён', 'held back': 'придержан', incomplete: 'неполный', refused: 'отказано', failed: 'ошибка', unchanged: 'без изменений', written: 'записан' })[s] ?? s,
    proposals: (/** @type {number} */ n) => `${n} ${ruPlural(n, 'предложенное изменение', 'предложенных изменения', 'предложенных изменений')}`,
    writeAll: (/** @type {number} */ n) => `Записать все (${n})`, write: 'Записать', writeAnyway: 'Записать всё равно',
    writeLabel: (/** @type {string} */ p) => `Записать ${p}`, writeAnywayLabel: (/** @type {string} */ p) => `Записать ${p} всё равно`,
    diff: 'Изменения', hideDiff: 'Скрыть изменения', diffLabel: (/** @type {string} */ p) => `Изменения в ${p}`, undo: (/** @type {number} */ n) => `Отменить эту запись: ${n} ${ruPlural(n, 'файл', 'файла', 'файлов')}`, undoLabel: (/** @type {number} */ n, /** @type {string} */ list) => `Отменить эту запись: ${n} ${ruPlural(n, 'файл', 'файла', 'файлов')} (${list})`,
    written: (/** @type {string} */ set) => `Записан; прежняя версия в ${set}.`,
    undone: (/** @type {number} */ n, /** @type {string} */ list) => `Запись отменена (${n} ${ruPlural(n, 'файл', 'файла', 'файлов')}): ${list}.`, nothingUndone: 'Возвращать нечего: ни один файл этого набора не записан.',
    action: (/** @type {string} */ a) => ({ restored: 'восстановлен', removed: 'удалён', left: 'не тронут', skipped: 'не тронут' })[a] ?? a,
    cutCard: 'Ответ оборвался до строки END этого блока: он не будет записан.',
    elsewhere: 'Предложено на одном из прежних шагов', notKept: 'Предложено в прошлом сеансе; записать можно только последний запуск папки.',
    partOf: (/** @type {number} */ i, /** @type {number} */ n) => `часть ${i} из ${n} для этого файла`,
    fileBlock: 'FILE', editBlock: 'EDIT',
    pasteOption: 'Копировать и вставлять (любой веб-чат)',
    pasteState: 'Мост — вы: каждое сообщение копируется в любой веб-чат, а его ответ вставляется сюда. Запускать ничего не нужно.',
    pasteStep: (/** @type {number} */ step, /** @type {number} */ chars, /** @type {number} */ tokens) => `Шаг ${step}: скопируйте это сообщение в веб-чат (${fmt(chars)} ${ruPlural(chars, 'символ', 'символа', 'символов')}, около ${fmt(tokens)} токенов).`,
    pasteHow: 'Можно открывать новый чат для каждого вопроса или продолжать тот же: каждое сообщение содержит всю беседу. Вставьте ниже весь ответ модели (его копирует кнопка «Копировать» в чате).',
    copyMessage: 'Копировать сообщение', copied: 'Скопировано.', copyFallback: 'Браузер не дал доступа к буферу обмена: сообщение выделено, нажмите Ctrl+C.',
    messageLabel: 'Сообщение для копирования', loading: 'Загрузка…', replyLabel: 'Ответ модели', sendReply: 'Отправить ответ',
    hiddenChar: 'Невидимый или меняющий направление текста символ, показан своим кодом',
    hiddenLine: 'В этой строке есть невидимые или меняющие направление текста символы',
    hiddenNote: 'Содержит невидимые или меняющие направление текста символы: каждый показан кодом в рамке (⟨U+…⟩), а строки с ними отмечены в изменениях.',
    fromModel: 'Написано моделью',
  },
};

/** @typedef {keyof typeof STRINGS.en} Key */
/** @type {'en' | 'ru'} */
let lang = 'en';

/** @template {Key} K @param {K} key @returns {(typeof STRINGS.en)[K]} */
function t(key) {
  const table = /** @type {Record<string, unknown>} */ (STRINGS[lang]);
  return /** @type {(typeof STRINGS.en)[K]} */ (table[key] ?? STRINGS.en[key]);
}

/** @param {number} n */
function fmt(n) {
  return n.toLocaleString(lang === 'ru' ? 'ru-RU' : 'en-US');
}

/** @param {number} ms */
function duration(ms) {
  const unit = lang === 'ru' ? { ms: 'мс', s: 'с', min: 'мин' } : { ms: 'ms', s: 's', min: 'min' };
  if (ms < 1000) return `${Math.round(ms)} ${unit.ms}`;
  if (ms < 60_000) return `${(ms / 1000).toLocaleString(lang === 'ru' ? 'ru-RU' : 'en-US', { maximumFractionDigits: 1 })} ${unit.s}`;
  return `${Math.floor(ms / 60_000)} ${unit.min} ${Math.round((ms % 60_000) / 1000)} ${unit.s}`;
}

/** @param {number} bytes */
function size(bytes) {
  const [b, kb, mb] = lang === 'ru' ? ['Б', 'КБ', 'МБ'] : ['B', 'KB', 'MB'];
  return bytes < 1024 ? `${bytes} ${b}` : bytes < 1024 * 1024 ? `${fmt(Math.round(bytes / 1024))} ${kb}` : `${(bytes / 1048576).toLocaleString(lang === 'ru' ? 'ru-RU' : 'en-US', { maximumFractionDigits: 1 })} ${mb}`;
}

// ---- state ----

// The pult's token, once this page has it (see "the key" below).
let token = '';
/** @type {Set<string>} */
const selected = new Set();
/** @type {Map<number, RunView>} */
const runs = new Map();
/** @type {Map<number, boolean>} the folded state a reader chose per run */
const folded = new Map();
/** @type {Set<string>} open diffs, by run and path */
const openDiffs = new Set();
/** @type {Map<number, string>} a confirmation shown under a run (what Undo put back) */
const notices = new Map();
/** @type {Map<string, string>} the messages waiting to be copied, by run and step */
const pasteMessages = new Map();
/** @type {Map<number, string>} what has been pasted as a reply so far, by run */
const pasteDrafts = new Map();
/** @type {Map<number, string>} what became of Copy or Send, by run */
const pasteNotes = new Map();
/** @type {Folder} */
let rootFolder = { name: '', path: '', dirs: new Map(), files: [], count: 0, bytes: 0 };
/** @type {string[]} */
let allPaths = [];
/** @type {Map<string, number>} */
const sizes = new Map();
let root = '';
let rootName = '';
let limits = { needChars: 200_000, needPaths: 100 };
/** @type {string | undefined} */
let current;
/** @type {ConversationInfo[]} */
let conversations = [];
/** @type {Check | undefined} */
let lastCheck;
let instance = '';
let connected = false;
let latestShown = 0;

/** @param {string} id */
function $(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`no #${id}`);
  return el;
}

/**
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @param {Array<Node | string>} [children]
 */
function h(tag, attrs = {}, children = []) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const child of children) el.append(typeof child === 'string' ? visible(child) : child);
  return el;
}

// ---- text shown as it is stored ----

// Characters that are not shown, or that change how the text around them is shown: C0 and C1 controls (tab and
// newline aside) and Unicode's format characters (Cf). Among them the bidirectional embeddings, overrides, isolates
// and marks of Trojan Source (CVE-2021-42574, https://trojansource.codes): `"user` U+202E ` ` U+2066 `// Check if
// admin` U+2069 ` ` U+2066 `"` reads as `"user" // Check if admin`. Also zero-width spaces and joiners, word joiners,
// the soft hyphen, a BOM, tag characters.
const HIDDEN = /(?![\t\n])[\p{Cc}\p{Cf}]/gu;
const HAS_HIDDEN = /(?![\t\n])[\p{Cc}\p{Cf}]/u;

/** @param {string} text */
function hasHidden(text) {
  return HAS_HIDDEN.test(text);
}

// Text from outside as nodes: each hidden character as a boxed code such as ⟨U+202E⟩, so the text reads in the order
// it is stored and nothing in it hides. Every text the page shows goes through here: h() and setText() call it, and
// the answer's prose is walked through it (showHiddenIn).
/** @param {string} text @returns {Node} */
function visible(text) {
  if (!hasHidden(text)) return document.createTextNode(text);
  const out = document.createDocumentFragment();
  let at = 0;
  for (const match of text.matchAll(HIDDEN)) {
    const index = match.index ?? 0;
    if (index > at) out.append(text.slice(at, index));
    const box = document.createElement('span');
    box.className = 'hidden-char';
    box.title = t('hiddenChar');
    box.textContent = `⟨U+${(match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
    out.append(box);
    at = index + match[0].length;
  }
  if (at < text.length) out.append(text.slice(at));
  return out;
}

/** @param {HTMLElement} el @param {string} text */
function setText(el, text) {
  el.replaceChildren(visible(text));
}

// The text nodes under `root` (the answer's prose as the server rendered it), with their hidden characters shown.
/** @param {Node} root */
function showHiddenIn(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  /** @type {Text[]} */
  const found = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    if (hasHidden(node.nodeValue ?? '')) found.push(/** @type {Text} */ (node));
  }
  for (const node of found) node.replaceWith(visible(node.data));
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * @param {'GET' | 'POST'} method
 * @param {string} route
 * @param {unknown} [body]
 * @returns {Promise<unknown>}
 */
async function api(method, route, body) {
  // Until the server on this port has proven it is this page's pult, the token is not sent.
  if (!proven) throw new Error(locked ? t('noLink') : t('notRunning'));
  let res;
  try {
    res = await fetch(route, {
      method,
      headers: { 'x-deepwork-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    gone();
    throw new Error(t('notRunning'));
  }
  /** @type {unknown} */
  const value = await res.json().catch(() => undefined);
  if (!res.ok) {
    const error = isRecord(value) && typeof value.error === 'string' ? value.error : `HTTP ${res.status}`;
    throw new Error(error);
  }
  return value;
}

/** @param {unknown} error */
function showError(error) {
  const text = error instanceof Error ? error.message : String(error);
  const hint = $('ask-hint');
  setText(hint, text);
  hint.hidden = false;
}

// ---- drafts: the question and the ticked files survive a reload ----

function draftKey() {
  return `deepwork.draft:${root}`;
}

function saveDraft() {
  if (root === '') return;
  const question = /** @type {HTMLTextAreaElement} */ ($('question')).value;
  const bridge = /** @type {HTMLSelectElement} */ ($('bridge-choice')).value;
  try {
    localStorage.setItem(draftKey(), JSON.stringify({ question, files: [...selected], bridge }));
  } catch {
    // Storage full or refused: the draft is a convenience.
  }
}

function restoreDraft() {
  /** @type {unknown} */
  let value;
  try {
    value = JSON.parse(localStorage.getItem(draftKey()) ?? 'null');
  } catch {
    value = null;
  }
  if (!isRecord(value)) return;
  const box = /** @type {HTMLTextAreaElement} */ ($('question'));
  if (typeof value.question === 'string' && box.value === '') box.value = value.question;
  if (Array.isArray(value.files)) for (const f of value.files) if (typeof f === 'string' && sizes.has(f)) selected.add(f);
}

// The bridge chosen before a reload (the demo, or copy and paste), when the page offers it still.
function restoreBridge() {
  try {
    const value = /** @type {unknown} */ (JSON.parse(localStorage.getItem(draftKey()) ?? 'null'));
    const choice = /** @type {HTMLSelectElement} */ ($('bridge-choice'));
    if (isRecord(value) && typeof value.bridge === 'string' && [...choice.options].some((o) => o.value === value.bridge)) choice.value = value.bridge;
  } catch {
    // No draft: the configured bridge.
  }
}

// ---- the file tree ----

/** @param {Array<[string, number]>} files */
function buildTree(files) {
  /** @type {Folder} */
  const top = { name: '', path: '', dirs: new Map(), files: [], count: 0, bytes: 0 };
  for (const [path, bytes] of files) {
    const parts = path.split('/');
    let folder = top;
    folder.count++;
    folder.bytes += bytes;
    for (const part of parts.slice(0, -1)) {
      let next = folder.dirs.get(part);
      if (next === undefined) {
        next = { name: part, path: folder.path === '' ? part : `${folder.path}/${part}`, dirs: new Map(), files: [], count: 0, bytes: 0 };
        folder.dirs.set(part, next);
      }
      folder = next;
      folder.count++;
      folder.bytes += bytes;
    }
    folder.files.push({ name: parts.at(-1) ?? path, path, size: bytes });
  }
  return top;
}

/** @param {string} folderPath */
function filesUnder(folderPath) {
  const prefix = `${folderPath}/`;
  return allPaths.filter((p) => p.startsWith(prefix));
}

/** @param {string} path @param {string} label @param {number} bytes */
function fileItem(path, label, bytes) {
  const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'aria-label': path, 'data-path': path }));
  box.checked = selected.has(path);
  box.addEventListener('change', () => {
    if (box.checked) selected.add(path);
    else selected.delete(path);
    afterTicking();
  });
  return h('li', { role: 'treeitem' }, [h('div', { class: 'row' }, [box, h('label', {}, [label]), h('span', { class: 'size' }, [size(bytes)])])]);
}

/** @param {Folder} dir @param {HTMLInputElement} box */
function showFolderBox(dir, box) {
  const under = filesUnder(dir.path);
  const ticked = under.filter((p) => selected.has(p)).length;
  box.checked = ticked > 0 && ticked === under.length;
  box.indeterminate = ticked > 0 && ticked < under.length;
}

/** @param {Folder} folder */
function folderList(folder) {
  const list = h('ul', { role: 'group' });
  for (const dir of [...folder.dirs.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const children = h('ul', { role: 'group', hidden: '' });
    const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'aria-label': t('folderBox')(dir.path), 'data-folder': dir.path }));
    showFolderBox(dir, box);
    box.addEventListener('change', () => {
      for (const p of filesUnder(dir.path)) {
        if (box.checked) selected.add(p);
        else selected.delete(p);
      }
      afterTicking();
    });
    const toggle = h('button', { type: 'button', class: 'folder', 'aria-expanded': 'false', 'aria-label': t('openFolder')(dir.path) }, [`▸ ${dir.name}/`]);
    let filled = false;
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      const item = toggle.closest('li');
      if (open && !filled) {
        item?.querySelector(':scope > ul')?.replaceWith(folderList(dir));
        filled = true;
      }
      const shown = /** @type {HTMLElement | null | undefined} */ (item?.querySelector(':scope > ul'));
      if (shown) shown.hidden = !open;
      toggle.setAttribute('aria-expanded', String(open));
      toggle.setAttribute('aria-label', (open ? t('closeFolder') : t('openFolder'))(dir.path));
      setText(toggle, `${open ? '▾' : '▸'} ${dir.name}/`);
    });
    const sizeText = `${t('fileCount')(dir.count)}, ${size(dir.bytes)}`;
    list.append(h('li', { role: 'treeitem' }, [h('div', { class: 'row' }, [box, toggle, h('span', { class: 'size' }, [sizeText])]), children]));
  }
  for (const file of folder.files) list.append(fileItem(file.path, file.name, file.size));
  return list;
}

function showTree() {
  const filter = /** @type {HTMLInputElement} */ ($('filter')).value.trim().toLowerCase();
  const tree = $('tree');
  if (filter === '') {
    tree.replaceChildren(folderList(rootFolder));
    return;
  }
  const matches = allPaths.filter((p) => p.toLowerCase().includes(filter));
  const list = h('ul', { role: 'group' }, matches.slice(0, 300).map((p) => fileItem(p, p, sizes.get(p) ?? 0)));
  const more = matches.length > 300 ? [h('p', { class: 'small muted' }, [t('more')(matches.length - 300)])] : [];
  tree.replaceChildren(list, ...more);
}

function afterTicking() {
  showSelected();
  for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#tree input[data-folder]'))) {
    const dir = folderAt(box.dataset.folder ?? '');
    if (dir !== undefined) showFolderBox(dir, box);
  }
  for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#tree input[data-path]'))) box.checked = selected.has(box.dataset.path ?? '');
  saveDraft();
}

/** @param {string} path */
function folderAt(path) {
  let folder = rootFolder;
  for (const part of path.split('/')) {
    const next = folder.dirs.get(part);
    if (next === undefined) return undefined;
    folder = next;
  }
  return folder;
}

function showSelected() {
  const el = $('selected');
  if (selected.size === 0) {
    el.textContent = t('noneTicked');
    el.classList.remove('over');
    return;
  }
  const bytes = [...selected].reduce((sum, p) => sum + (sizes.get(p) ?? 0), 0);
  const over = bytes > limits.needChars || selected.size > limits.needPaths;
  el.textContent = t('ticked')(selected.size, size(bytes)) + (over ? t('overBudget')(limits.needChars, limits.needPaths) : '');
  el.classList.toggle('over', over);
}

// ---- runs ----

/** @param {LogEntry} e */
function logLine(e) {
  switch (e.kind) {
    case 'sending': return t('stepSending')(e);
    case 'replied': return t('stepReplied')(e);
    case 'answered-requests': return t('stepAnswered')(e);
    case 'warning': return t('stepWarning')(e);
    case 'done': return t('done')(e);
    case 'not-saved': return t('notSaved')(e);
  }
}

// A unified diff as rows: the old and new line numbers beside each line, and whether the line holds hidden characters.
// A CR ending a line is the line end of a CRLF file, and a BOM starting line 1 the file's own: neither is hidden text.
/** @param {string} diff @returns {Array<{ cls: string, left: string, right: string, text: string, hidden: boolean }>} */
function diffRows(diff) {
  const rows = [];
  let oldLine = 0;
  let newLine = 0;
  for (const raw of diff.split('\n')) {
    if (raw.startsWith('---') || raw.startsWith('+++') || raw.startsWith('Index:') || raw.startsWith('====') || raw === '') continue;
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    let cls = '';
    let left = '';
    let right = '';
    if (hunk !== null) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      cls = 'hunk';
    } else if (line.startsWith('+')) {
      cls = 'add';
      right = String(newLine++);
    } else if (line.startsWith('-')) {
      cls = 'del';
      left = String(oldLine++);
    } else if (line.startsWith('\\')) {
      cls = 'hunk';
    } else {
      left = String(oldLine++);
      right = String(newLine++);
    }
    if ((left === '1' || right === '1') && line[1] === '\uFEFF') line = line.slice(0, 1) + line.slice(2);
    rows.push({ cls, left, right, text: line, hidden: hasHidden(line) });
  }
  return rows;
}

// The diff's rows; a line holding hidden characters is marked, and shows them as codes as all text does.
/** @param {string} diff @param {string} label */
function diffView(diff, label) {
  const view = h('div', { class: 'diff', role: 'region', 'aria-label': label });
  for (const row of diffRows(diff)) {
    const cells = [h('span', { class: 'n' }, [row.left]), h('span', { class: 'n' }, [row.right]), h('span', { class: 'code' }, [row.text])];
    if (row.hidden) cells.unshift(h('span', { class: 'flag', role: 'img', title: t('hiddenLine'), 'aria-label': t('hiddenLine') }, ['⚠']));
    view.append(h('div', { class: `line ${row.cls}${row.hidden ? ' flagged' : ''}` }, cells));
  }
  return view;
}

/** @param {FileView} file */
function writable(file) {
  return !file.written && (file.status === 'new' || file.status === 'changed' || file.status === 'held back');
}

/** @param {FileView} file */
function countsOf(file) {
  if (file.status === 'new') return h('span', { class: 'counts' }, [h('span', { class: 'add' }, [`+${file.added}`])]);
  if (file.status === 'changed' || file.status === 'held back') return h('span', { class: 'counts' }, [h('span', { class: 'add' }, [`+${file.added}`]), ' ', h('span', { class: 'del' }, [`−${file.removed}`])]);
  return h('span');
}

/** @param {RunView} run @param {string} path @param {Extract<AnswerPart, { kind: 'proposal' }> | undefined} part @param {string} extra */
function proposalCard(run, path, part, extra) {
  const file = run.files.find((f) => f.path === path);
  const status = file === undefined ? (part !== undefined && !part.complete ? 'incomplete' : 'unknown') : file.written ? 'written' : file.status;
  const kind = part === undefined ? '' : part.block === 'edit' ? t('editBlock') : t('fileBlock');
  const card = h('div', { class: `proposal ${status.split(' ')[0] ?? ''}`, 'data-path': path });
  const head = h('div', { class: 'head' }, [h('span', { class: `badge ${status.split(' ')[0] ?? ''}` }, [t('status')(status)]), h('code', {}, [path])]);
  if (kind !== '') head.append(h('span', { class: 'muted small' }, [kind]));
  if (file !== undefined) head.append(countsOf(file));
  if (extra !== '') head.append(h('span', { class: 'muted small' }, [extra]));
  const actions = h('span', { class: 'actions' });
  head.append(actions);
  card.append(head);
  if (file === undefined) {
    card.append(h('p', { class: 'reason' }, [part !== undefined && !part.complete ? t('cutCard') : t('notKept')]));
    return card;
  }
  const key = `${run.id}:${path}`;
  if (file.diff !== undefined && file.diff !== '') {
    const open = openDiffs.has(key);
    const toggle = h('button', { type: 'button', 'aria-expanded': String(open), 'aria-label': t('diffLabel')(path) }, [open ? t('hideDiff') : t('diff')]);
    toggle.addEventListener('click', () => {
      if (openDiffs.has(key)) openDiffs.delete(key);
      else openDiffs.add(key);
      showRun(run);
    });
    actions.append(toggle);
  }
  if (writable(file)) {
    const force = file.status === 'held back';
    const write = h('button', { type: 'button', class: 'primary', 'aria-label': (force ? t('writeAnywayLabel') : t('writeLabel'))(path) }, [force ? t('writeAnyway') : t('write')]);
    write.addEventListener('click', () => void api('POST', '/api/write', { run: run.id, path, base: file.base ?? '', force }).catch(showError));
    actions.append(write);
  }
  if (file.reason !== undefined) card.append(h('p', { class: 'reason' }, [file.reason]));
  // Said on the card, not only in the diff: the reader may write it without opening the diff.
  if (hasHidden(path) || run.hiddenIn.includes(path) || (file.diff !== undefined && diffRows(file.diff).some((row) => row.hidden))) {
    card.append(h('p', { class: 'reason hidden-note', role: 'note' }, [t('hiddenNote')]));
  }
  if (file.written) {
    const set = file.backupSet?.split(/[\\/]/).pop();
    // Undo puts back the whole set this file's Write made: the button says how many files that is.
    const together = run.files.filter((f) => f.written && f.backupSet === file.backupSet).map((f) => f.path);
    const undo = h('button', { type: 'button', 'aria-label': t('undoLabel')(together.length, together.join(', ')) }, [t('undo')(together.length)]);
    undo.addEventListener('click', () => void undoSet(run, set, together.length));
    card.append(h('p', { class: 'reason written' }, [t('written')(file.backupSet ?? ''), ' ', undo]));
  }
  if (openDiffs.has(key) && file.diff !== undefined) card.append(diffView(file.diff, t('diffLabel')(path)));
  return card;
}

/** @param {RunView} run @param {string | undefined} set @param {number} files */
async function undoSet(run, set, files) {
  try {
    const report = /** @type {{ files: Array<{ path: string, action: string, reason?: string }> }} */ (await api('POST', '/api/undo', set === undefined ? {} : { set }));
    const list = report.files.map((f) => `${f.path} (${t('action')(f.action)}${f.reason === undefined ? '' : `: ${f.reason}`})`).join(', ');
    notices.set(run.id, list === '' ? t('nothingUndone') : t('undone')(files, list));
    const shown = runs.get(run.id);
    if (shown !== undefined) showRun(shown);
  } catch (error) {
    showError(error);
  }
}

/** @param {RunView} run */
function summaryView(run) {
  const ready = run.files.filter(writable).filter((f) => f.status !== 'held back');
  const items = run.files.map((f) => h('li', {}, [h('span', { class: `badge ${(f.written ? 'written' : f.status).split(' ')[0] ?? ''}` }, [t('status')(f.written ? 'written' : f.status)]), ' ', h('code', {}, [f.path]), ' ', countsOf(f)]));
  const box = h('div', { class: 'summary', role: 'group', 'aria-label': t('proposals')(run.files.length) }, [h('strong', {}, [t('proposals')(run.files.length)]), h('ul', {}, items)]);
  if (ready.length > 1) {
    const all = h('button', { type: 'button', class: 'primary' }, [t('writeAll')(ready.length)]);
    all.addEventListener('click', () => {
      /** @type {Record<string, string>} */
      const files = {};
      for (const f of ready) files[f.path] = f.base ?? '';
      void api('POST', '/api/write', { run: run.id, files }).catch(showError);
    });
    box.append(all);
  }
  return box;
}

/** @param {RunView} run */
function answerView(run) {
  const answer = h('div', { class: 'answer' });
  const parts = run.parts ?? [];
  const perPath = new Map();
  for (const p of parts) if (p.kind === 'proposal') perPath.set(p.path, (perPath.get(p.path) ?? 0) + 1);
  const seen = new Map();
  for (const part of parts) {
    if (part.kind === 'prose') {
      // The model's text is set apart from deepwork's cards and summary: a bar beside it, and a caption over the first.
      if (answer.querySelector('.prose') === null) answer.append(h('p', { class: 'from-model small muted' }, [t('fromModel')]));
      const prose = h('div', { class: 'prose', role: 'group', 'aria-label': t('fromModel') });
      prose.innerHTML = part.html;
      showHiddenIn(prose);
      answer.append(prose);
    } else {
      const i = (seen.get(part.path) ?? 0) + 1;
      seen.set(part.path, i);
      const n = perPath.get(part.path) ?? 1;
      answer.append(proposalCard(run, part.path, part, n > 1 ? t('partOf')(i, n) : ''));
    }
  }
  // Files proposed at an earlier step of the run, not in the final answer.
  const others = run.files.filter((f) => !perPath.has(f.path));
  if (others.length > 0) {
    answer.append(h('h4', { class: 'muted small' }, [t('elsewhere')]));
    for (const f of others) answer.append(proposalCard(run, f.path, undefined, ''));
  }
  return answer;
}

// A copy-and-paste step: the message with its Copy button, and the box for the reply.
/** @param {RunView} run @param {number} step @param {{ chars: number, tokens: number, warning?: string }} paste */
function pasteView(run, step, paste) {
  const key = `${run.id}:${step}`;
  const message = pasteMessages.get(key);
  if (message === undefined) {
    void api('GET', `/api/paste?run=${run.id}`).then((v) => {
      if (isRecord(v) && typeof v.message === 'string') {
        pasteMessages.set(key, v.message);
        const shown = runs.get(run.id);
        if (shown !== undefined) showRun(shown);
      }
    }, showError);
  }
  const text = /** @type {HTMLTextAreaElement} */ (h('textarea', { class: 'message', readonly: '', rows: '5', 'aria-label': t('messageLabel') }));
  text.value = message ?? t('loading');
  const copy = h('button', { type: 'button', class: 'primary' }, [t('copyMessage')]);
  copy.addEventListener('click', () => {
    const done = () => {
      pasteNotes.set(run.id, t('copied'));
      const shown = runs.get(run.id);
      if (shown !== undefined) showRun(shown);
    };
    const fallback = () => {
      text.focus();
      text.select();
      note.textContent = t('copyFallback');
    };
    if (message === undefined) return;
    if (navigator.clipboard === undefined) return fallback();
    navigator.clipboard.writeText(message).then(done, fallback);
  });
  const note = h('span', { class: 'small muted', role: 'status' }, [pasteNotes.get(run.id) ?? '']);
  const reply = /** @type {HTMLTextAreaElement} */ (h('textarea', { id: `reply-${run.id}`, rows: '6' }));
  reply.value = pasteDrafts.get(run.id) ?? '';
  reply.addEventListener('input', () => pasteDrafts.set(run.id, reply.value));
  const send = h('button', { type: 'button', class: 'primary' }, [t('sendReply')]);
  const sendReply = () => {
    void api('POST', '/api/paste', { run: run.id, reply: reply.value }).then(() => {
      pasteDrafts.delete(run.id);
      pasteNotes.delete(run.id);
    }, (error) => {
      pasteNotes.set(run.id, error instanceof Error ? error.message : String(error));
      const shown = runs.get(run.id);
      if (shown !== undefined) showRun(shown);
    });
  };
  send.addEventListener('click', sendReply);
  reply.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      sendReply();
    }
  });
  const parts = [h('p', {}, [h('strong', {}, [t('pasteStep')(step, paste.chars, paste.tokens)])])];
  if (paste.warning !== undefined) parts.push(h('p', { class: 'hint', role: 'alert' }, [paste.warning]));
  parts.push(h('div', { class: 'row' }, [copy, note]), text, h('p', { class: 'small muted' }, [t('pasteHow')]),
    h('label', { for: `reply-${run.id}` }, [t('replyLabel')]), reply, h('div', { class: 'row' }, [send]));
  return h('div', { class: 'paste', role: 'group', 'aria-label': t('pasteStep')(step, paste.chars, paste.tokens) }, parts);
}

/** @param {RunView} run */
function runView(run) {
  const log = h('ul', { class: 'log' }, run.log.map((e) => h('li', e.kind === 'warning' ? { class: 'warning' } : {}, [logLine(e)])));
  if (run.waiting !== undefined && run.waiting.paste === undefined) log.append(h('li', { class: 'waiting' }, [t('waiting')(run.waiting)]));
  const meta = run.reopened ? t('reopened') : `${run.bridge}${run.attached.length > 0 ? t('withFiles')(run.attached.join(', ')) : ''}`;
  const body = h('div', { class: 'body' }, [h('p', { class: 'meta' }, [meta])]);
  if (run.log.length > 0 || run.waiting !== undefined) body.append(log);
  if (run.waiting?.paste !== undefined) body.append(pasteView(run, run.waiting.step, run.waiting.paste));
  if (run.state === 'answered' && run.files.length > 0) body.append(summaryView(run));
  if (run.parts !== undefined) body.append(answerView(run));
  if (run.state === 'stopped') body.append(h('p', { class: 'error' }, [t('stopped')]));
  if (run.error !== undefined) body.append(h('p', { class: 'error', role: 'alert' }, [run.error]));
  const notice = notices.get(run.id);
  if (notice !== undefined) body.append(h('p', { class: 'notice', role: 'status' }, [notice]));
  const summary = h('summary', {}, [h('h3', {}, [run.question])]);
  const details = /** @type {HTMLDetailsElement} */ (h('details', { class: 'run', id: `run-${run.id}`, 'data-state': run.state }, [summary, body]));
  details.open = !(folded.get(run.id) ?? run.id !== newestId());
  // Only the reader's own folding is remembered (a click or Enter on the summary), not the page's.
  summary.addEventListener('click', () => folded.set(run.id, details.open));
  return details;
}

function newestId() {
  let newest = 0;
  for (const run of runs.values()) if (run.conversation === current && run.id > newest) newest = run.id;
  return newest;
}

/** @param {RunView} run */
function showRun(run) {
  const fresh = !runs.has(run.id);
  runs.set(run.id, run);
  if (run.conversation !== current) return;
  const view = runView(run);
  const old = document.getElementById(`run-${run.id}`);
  if (old === null) $('runs').append(view);
  else old.replaceWith(view);
  if (fresh && run.id === newestId() && run.id > latestShown) {
    latestShown = run.id;
    // The newest run in view, the ones before it folded unless the reader opened them.
    for (const other of runs.values()) {
      if (other.id === run.id || other.conversation !== current || folded.has(other.id)) continue;
      const el = /** @type {HTMLDetailsElement | null} */ (document.getElementById(`run-${other.id}`));
      if (el !== null) el.open = false;
    }
    view.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }
  showButtons();
}

function showRuns() {
  const list = [...runs.values()].filter((r) => r.conversation === current).sort((a, b) => a.id - b.id);
  $('runs').replaceChildren(...list.map(runView));
  $('empty').hidden = list.length > 0;
  showButtons();
}

function showButtons() {
  const running = [...runs.values()].some((r) => r.state === 'running');
  /** @type {HTMLButtonElement} */ ($('ask')).disabled = running || !connected;
  /** @type {HTMLButtonElement} */ ($('stop')).disabled = !running || !connected;
  /** @type {HTMLButtonElement} */ ($('new-conversation')).disabled = running || current === undefined;
  $('empty').hidden = [...runs.values()].some((r) => r.conversation === current);
}

// ---- conversations ----

function showConversations() {
  const info = conversations.find((c) => c.id === current);
  const first = [...runs.values()].filter((r) => r.conversation === current).sort((a, b) => a.id - b.id)[0];
  const title = info?.title ?? first?.question;
  setText($('conversation-title'), title ?? t('newConversationTitle'));
  setText($('follow'), title === undefined ? '' : t('continues')(title));
  const list = $('conversations');
  if (conversations.length === 0) {
    list.replaceChildren(h('li', { class: 'small muted' }, [t('noConversations')]));
  } else {
    list.replaceChildren(...conversations.map((c) => {
      const when = new Date(c.time).toLocaleString(lang === 'ru' ? 'ru-RU' : 'en-US', { dateStyle: 'medium', timeStyle: 'short' });
      const button = h('button', { type: 'button', 'aria-current': String(c.id === current) }, [h('span', { class: 'title' }, [c.title]), h('span', { class: 'when' }, [`${when} · ${t('questions')(c.questions)}`])]);
      button.addEventListener('click', () => void api('POST', '/api/conversation/open', { id: c.id }).then((v) => takeConversations(v)).catch(showError));
      return h('li', {}, [button]);
    }));
  }
  showButtons();
}

/** @param {unknown} value */
function takeConversations(value) {
  if (!isRecord(value) || !Array.isArray(value.list)) return;
  const changed = (typeof value.current === 'string' ? value.current : undefined) !== current;
  current = typeof value.current === 'string' ? value.current : undefined;
  conversations = /** @type {ConversationInfo[]} */ (value.list);
  if (changed) showRuns();
  showConversations();
}

// ---- the bridge ----

function showState() {
  const demo = /** @type {HTMLSelectElement} */ ($('bridge-choice')).value === 'demo';
  const pill = $('bridge-state');
  const message = $('bridge-message');
  if (!connected) {
    pill.textContent = t('gone');
    pill.className = 'state gone';
    message.textContent = '';
    return;
  }
  if (demo) {
    pill.textContent = t('ready');
    pill.className = 'state ready';
    message.textContent = t('demoState');
    return;
  }
  if (/** @type {HTMLSelectElement} */ ($('bridge-choice')).value === 'paste') {
    pill.textContent = t('ready');
    pill.className = 'state ready';
    message.textContent = t('pasteState');
    return;
  }
  if (lastCheck === undefined) {
    pill.textContent = t('checking');
    pill.className = 'state checking';
    message.textContent = '';
    return;
  }
  const state = lastCheck.state === 'ready' || lastCheck.state === 'idle' || lastCheck.state === 'down' ? lastCheck.state : 'down';
  pill.textContent = t(state);
  pill.className = `state ${state}`;
  setText(message, lastCheck.message + (state === 'down' ? ` ${t('downHint')}` : ''));
}

async function check() {
  // Until the answer comes, nothing on the page says ready, idle or down.
  lastCheck = undefined;
  showState();
  try {
    lastCheck = /** @type {Check} */ (await api('GET', '/api/check'));
  } catch (error) {
    lastCheck = { state: 'down', message: error instanceof Error ? error.message : String(error) };
  }
  showState();
}

// ---- the key: a one-time link traded for the token, which goes only to a server that proves it holds it ----

// deepwork opens and prints links with a one-time code, never the token (a command line is readable by every user of
// the machine, a screen by whoever sees it). The page trades the code for the token once, keeps it for this tab
// (sessionStorage: a reload keeps it, other tabs and sites do not see it) and takes the code out of the address bar.
// Before the token goes anywhere, whatever answers on the port proves it holds it: a pult that stopped may leave its
// port to another program, and a page that reconnects by itself would otherwise hand that program the token.
const TOKEN_KEY = 'deepwork.token';
let proven = false;
let locked = false;

/** @returns {Promise<{ kind: 'token' } | { kind: 'refused', reason: 'used' | 'expired' | 'unknown' | 'none' }>} */
async function takeToken() {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const given = params.get('token');
  // Neither the code nor a token stays in the address bar, in the history, or in what a reload sends.
  if (code !== null || given !== null) history.replaceState(null, '', '/');
  /** @param {string} value */
  const keep = (value) => {
    token = value;
    try {
      sessionStorage.setItem(TOKEN_KEY, value);
    } catch {
      // Not kept: this tab works until it is reloaded.
    }
    return /** @type {const} */ ({ kind: 'token' });
  };
  if (given !== null) return keep(given);
  if (code !== null) {
    /** @type {unknown} */
    let value;
    let ok = false;
    try {
      const res = await fetch('/api/exchange', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
      ok = res.ok;
      value = await res.json().catch(() => undefined);
    } catch {
      throw new Error(t('notRunning'));
    }
    if (ok && isRecord(value) && typeof value.token === 'string') return keep(value.token);
    const reason = isRecord(value) && (value.reason === 'used' || value.reason === 'expired') ? value.reason : 'unknown';
    return { kind: 'refused', reason };
  }
  let kept = null;
  try {
    kept = sessionStorage.getItem(TOKEN_KEY);
  } catch {
    // No storage: as good as none kept.
  }
  return kept === null || kept === '' ? { kind: 'refused', reason: 'none' } : keep(kept);
}

/** @param {Uint8Array} bytes */
function base64url(bytes) {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

// Asks whatever answers on this port to prove it holds the token: an HMAC of a fresh challenge keyed by the token, as
// `proofOf` in ui/security.ts makes it. 'down': nothing answers.
/** @returns {Promise<'ours' | 'foreign' | 'down'>} */
async function prove() {
  const challenge = base64url(crypto.getRandomValues(new Uint8Array(18)));
  let res;
  try {
    res = await fetch(`/api/prove?challenge=${challenge}`, { cache: 'no-store' });
  } catch {
    return 'down';
  }
  try {
    const value = /** @type {unknown} */ (await res.json());
    if (!isRecord(value) || typeof value.instance !== 'string' || typeof value.proof !== 'string') return 'foreign';
    const encoder = new TextEncoder();
    const key = await crypto.subtle.importKey('raw', encoder.encode(token), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`deepwork pult proof\n${value.instance}\n${challenge}`));
    return base64url(new Uint8Array(mac)) === value.proof ? 'ours' : 'foreign';
  } catch {
    return 'foreign';
  }
}

// The page cannot go on: it says why and what to do, and stops reconnecting.
/** @param {string} text */
function lockOut(text) {
  locked = true;
  proven = false;
  connected = false;
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Nothing kept.
  }
  const banner = $('banner');
  banner.textContent = text;
  banner.hidden = false;
  showState();
  showButtons();
}

// ---- the connection: deepwork gone, and back ----

let goneTimer = 0;
function gone() {
  if (!connected) return;
  connected = false;
  showState();
  showButtons();
  const banner = $('banner');
  setText(banner, t('goneBanner')(root));
  banner.hidden = false;
}

let retry = 500;
function reconnect() {
  window.setTimeout(() => void connect(), retry);
  retry = Math.min(retry * 2, 5000);
}

async function connect() {
  if (locked) return;
  const peer = await prove();
  if (peer !== 'ours') {
    // Not back yet, or something else holds the port now: try again later, sending nothing.
    if (peer === 'foreign') {
      gone();
      const banner = $('banner');
      banner.textContent = t('foreignPult');
      banner.hidden = false;
    }
    reconnect();
    return;
  }
  proven = true;
  const ws = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  ws.addEventListener('open', () => {
    retry = 500;
    ws.send(JSON.stringify({ type: 'hello' }));
    if (!connected) void back();
  });
  ws.addEventListener('message', (event) => {
    /** @type {unknown} */
    let message;
    try {
      message = JSON.parse(String(event.data));
    } catch {
      return;
    }
    if (!isRecord(message)) return;
    if (message.type === 'rekeyed') lockOut(t('rekeyed'));
    else if (message.type === 'run' && isRecord(message.run)) showRun(/** @type {RunView} */ (message.run));
    else if (message.type === 'conversations') takeConversations(message);
    else if (message.type === 'progress' && typeof message.id === 'number' && typeof message.received === 'number') {
      const run = runs.get(message.id);
      if (run?.waiting !== undefined) {
        run.waiting.received = message.received;
        run.waiting.thinking = typeof message.thinking === 'number' ? message.thinking : 0;
      }
    }
  });
  ws.addEventListener('close', () => {
    // Whatever answers next on this port proves itself again before it gets the token.
    proven = false;
    if (locked) return;
    // A socket that closes at once is a restart or a stop; say so only if it does not come back quickly.
    window.clearTimeout(goneTimer);
    goneTimer = window.setTimeout(gone, 1500);
    reconnect();
  });
}

// deepwork answers again: the same process (a network blip) or a new one, whose runs start afresh.
async function back() {
  window.clearTimeout(goneTimer);
  const showing = current;
  const state = /** @type {{ instance?: string }} */ (await api('GET', '/api/ping').catch(() => ({})));
  connected = true;
  $('banner').hidden = true;
  if (state.instance !== undefined && instance !== '' && state.instance !== instance) {
    instance = state.instance;
    runs.clear();
    if (showing !== undefined) await api('POST', '/api/conversation/open', { id: showing }).then(takeConversations).catch(() => undefined);
    showRuns();
  }
  if (state.instance !== undefined) instance = state.instance;
  showButtons();
  void check();
}

// ---- language ----

function applyLanguage() {
  document.documentElement.lang = lang;
  /** @type {HTMLSelectElement} */ ($('lang')).value = lang;
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-i18n]'))) {
    const value = t(/** @type {Key} */ (el.dataset.i18n));
    if (typeof value === 'string') el.textContent = value;
  }
  for (const el of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('[data-i18n-placeholder]'))) {
    const value = t(/** @type {Key} */ (el.dataset.i18nPlaceholder));
    if (typeof value === 'string') el.placeholder = value;
  }
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-i18n-label]'))) {
    const value = t(/** @type {Key} */ (el.dataset.i18nLabel));
    if (typeof value === 'string') el.setAttribute('aria-label', value);
  }
  showSelected();
  showTree();
  showRuns();
  showConversations();
  showState();
}

// ---- start ----

function ask() {
  const box = /** @type {HTMLTextAreaElement} */ ($('question'));
  const question = box.value.trim();
  const hint = $('ask-hint');
  if (question === '') {
    hint.textContent = t('emptyQuestion');
    hint.hidden = false;
    box.focus();
    return;
  }
  hint.hidden = true;
  const steps = Number(/** @type {HTMLInputElement} */ ($('steps')).value);
  const bridge = /** @type {HTMLSelectElement} */ ($('bridge-choice')).value;
  void api('POST', '/api/ask', { question, files: [...selected], steps, bridge, follow: current !== undefined })
    .then(() => {
      box.value = '';
      saveDraft();
    })
    .catch(showError);
}

async function start() {
  const saved = (() => {
    try {
      return localStorage.getItem('deepwork.lang');
    } catch {
      return null;
    }
  })();
  lang = saved === 'ru' || saved === 'en' ? saved : navigator.language.toLowerCase().startsWith('ru') ? 'ru' : 'en';
  const key = await takeToken();
  if (key.kind === 'refused') {
    applyLanguage();
    lockOut(t(key.reason === 'used' ? 'linkUsed' : key.reason === 'expired' ? 'linkExpired' : key.reason === 'unknown' ? 'linkUnknown' : 'noLink'));
    return;
  }
  const peer = await prove();
  if (peer === 'down') throw new Error(t('notRunning'));
  if (peer === 'foreign') {
    applyLanguage();
    lockOut(t('foreignPult'));
    return;
  }
  proven = true;
  const state = /** @type {{ root: string, rootName: string, steps: number, limits: { needChars: number, needPaths: number }, bridge: { label: string, demo: string }, runs: RunView[], conversations: unknown }} */ (await api('GET', '/api/state'));
  connected = true;
  root = state.root;
  rootName = state.rootName;
  limits = state.limits;
  setText($('root-name'), `— ${rootName}`);
  document.title = `deepwork — ${rootName}`;
  /** @type {HTMLInputElement} */ ($('steps')).value = String(state.steps);
  const choice = /** @type {HTMLSelectElement} */ ($('bridge-choice'));
  choice.replaceChildren(h('option', { value: 'configured' }, [state.bridge.label]), h('option', { value: 'demo' }, [state.bridge.demo]), h('option', { value: 'paste', 'data-i18n': 'pasteOption' }, [t('pasteOption')]));
  restoreBridge();
  takeConversations(state.conversations);
  for (const run of state.runs) runs.set(run.id, run);
  latestShown = Math.max(0, ...state.runs.map((r) => r.id));
  const ping = /** @type {{ instance?: string }} */ (await api('GET', '/api/ping'));
  instance = ping.instance ?? '';
  applyLanguage();
  void connect();
  void check();
  const tree = /** @type {{ files: Array<[string, number]>, total: number }} */ (await api('GET', '/api/tree'));
  allPaths = tree.files.map((f) => f[0]);
  for (const [p, bytes] of tree.files) sizes.set(p, bytes);
  rootFolder = buildTree(tree.files);
  $('file-count').textContent = `(${fmt(tree.total)})`;
  restoreDraft();
  showTree();
  showSelected();
}

$('filter').addEventListener('input', showTree);
$('check').addEventListener('click', () => void check());
$('bridge-choice').addEventListener('change', () => {
  saveDraft();
  if (/** @type {HTMLSelectElement} */ ($('bridge-choice')).value === 'configured') void check();
  else showState();
});
$('lang').addEventListener('change', () => {
  const value = /** @type {HTMLSelectElement} */ ($('lang')).value;
  lang = value === 'ru' ? 'ru' : 'en';
  try {
    localStorage.setItem('deepwork.lang', lang);
  } catch {
    // Not kept: the page still switches.
  }
  applyLanguage();
});
$('stop').addEventListener('click', () => void api('POST', '/api/stop', {}).catch(showError));
$('new-conversation').addEventListener('click', () => void api('POST', '/api/conversation/new', {}).then(takeConversations).catch(showError));
$('ask-form').addEventListener('submit', (event) => {
  event.preventDefault();
  ask();
});
$('question').addEventListener('input', () => {
  $('ask-hint').hidden = true;
  saveDraft();
});
$('question').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    ask();
  }
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && !(/** @type {HTMLButtonElement} */ ($('stop')).disabled)) void api('POST', '/api/stop', {}).catch(showError);
});
setInterval(() => {
  for (const el of document.querySelectorAll('.waiting')) {
    const run = runs.get(Number(el.closest('.run')?.id.slice(4)));
    if (run?.waiting !== undefined) el.textContent = t('waiting')(run.waiting);
  }
}, 1000);
void start().catch(showError);
