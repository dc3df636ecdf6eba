// Every string a person reads on the page, in English and Russian: this table, and the copy-and-paste step's
// (paste-strings.js) joined into it. The server's own sentences (its errors and reasons) stay English until they are
// codes, and the page marks them so (lang="en", see dom.js).

import { duration, fmt, language, ruPlural } from './language.js';
import { pasteEn, pasteRu } from './paste-strings.js';
import { extensionEn, extensionRu } from './extension-strings.js';

export { duration, fmt, language, locale, setLanguage, size } from './language.js';

/** @import { FileStatus, LogEntry, UndoAction, Waiting } from '../contract.ts' */
// A card's badge: a file's status, `written` once its Write is done, `unknown` for a block the run no longer holds.
/** @typedef {FileStatus | 'written' | 'unknown'} Badge */

const en = {
  bridge: 'Bridge',
  check: 'Check',
  checking: 'checking…',
  language: 'Language',
  files: 'Files',
  filter: 'Filter',
  filterHint: 'part of a path',
  treeLabel: 'Project files',
  // The file tree, folded away above a copy-and-paste step on a narrow screen.
  showFiles: 'Show files',
  hideFiles: 'Hide files',
  conversations: 'Conversations',
  question: 'Question',
  questionHint: 'Where is it decided that an answer is complete? (Ctrl+Enter asks, Esc stops)',
  steps: 'Steps',
  ask: 'Ask',
  stop: 'Stop',
  newConversation: 'New conversation',
  newConversationTitle: 'New conversation',
  emptyRuns:
    'Ask a question about this folder. The model reads the files it needs; nothing is written until you press Write.',
  emptyQuestion: 'Write a question first: what should the model find out, explain or change?',
  noConversations: 'None yet: each question you ask starts or continues one.',
  ready: 'ready',
  idle: 'idle',
  down: 'down',
  gone: 'not running',
  demoState: "The demo bridge answers offline: it searches for the question's words, it is not a model.",
  // Followed by two buttons that choose the Bridge list's copy and paste, and its demo. The server's message before it
  // says what copy and paste is (bridge/http.ts, PASTE_INSTEAD).
  downHint: 'Without a model, with nothing to start:',
  goneBanner: (/** @type {string} */ root) =>
    `deepwork stopped. Start it again — run deepwork ui in ${root}, or drop the folder on start-deepwork.cmd — and this page reconnects by itself.`,
  notRunning: 'deepwork is not running, so this was not done. Start it again; this page reconnects by itself.',
  // How a page got in, or why not (see "the key" below). Links live two minutes: CODE_LIFE_MS in ui/security.ts.
  linkUsed:
    'This link was used already: a link from deepwork lets one page in, once. If that was not you, someone else on this machine may have used it, so deepwork changed its key and locked them out. Run deepwork ui in the project folder again (or drop the folder on start-deepwork.cmd) for a new link.',
  linkExpired:
    'This link has expired: a link from deepwork works for two minutes. Run deepwork ui in the project folder again (or drop the folder on start-deepwork.cmd) for a new one.',
  linkUnknown:
    "This link is not this pult's: it was made for an earlier run of deepwork, or it was changed. Run deepwork ui in the project folder again (or drop the folder on start-deepwork.cmd) for a new one.",
  noLink:
    'This page opens with a link from deepwork. Run deepwork ui in the project folder (or drop the folder on start-deepwork.cmd): it opens the pult with a one-time link.',
  foreignPult:
    "Something answers on this page's port that cannot prove it is this page's pult: deepwork changed its key, or another program took the port. This page sends it nothing. Run deepwork ui in the project folder for a new link.",
  rekeyed:
    'A link to this pult was used a second time, so someone else on this machine may have had it: deepwork changed its key and let every page go, this one too. Run deepwork ui in the project folder for a new link.',
  noneTicked: 'No files ticked: the model asks for what it needs.',
  ticked: (/** @type {number} */ n, /** @type {string} */ size) =>
    `${n === 1 ? '1 file' : `${fmt(n)} files`} (${size}) go with the question.`,
  overBudget: (/** @type {number} */ chars, /** @type {number} */ paths) =>
    ` That is past what one step sends (${fmt(chars)} characters, ${fmt(paths)} files): the model gets the first ones and asks again for the rest. Untick some.`,
  folderBox: (/** @type {string} */ p) => `All files in ${p}`,
  openFolder: (/** @type {string} */ p) => `Open folder ${p}`,
  closeFolder: (/** @type {string} */ p) => `Close folder ${p}`,
  fileCount: (/** @type {number} */ n) => (n === 1 ? '1 file' : `${fmt(n)} files`),
  more: (/** @type {number} */ n) => `… ${fmt(n)} more; type more of the path`,
  continues: (/** @type {string} */ title) => `Ask continues “${title}”: the model gets its questions and answers.`,
  questions: (/** @type {number} */ n) => (n === 1 ? '1 question' : `${n} questions`),
  withFiles: (/** @type {string} */ files) => `; with ${files}`,
  reopened: 'from a saved conversation',
  stepSending: (/** @type {Extract<LogEntry, { kind: 'sending' }>} */ e) =>
    `Step ${e.step}/${e.steps}: sending ${fmt(e.chars)} characters, about ${fmt(e.tokens)} tokens of the ${fmt(e.budget)} a message may take (the window holds ${fmt(e.window)})${e.dropped > 0 ? `; ${e.dropped} earlier result${e.dropped === 1 ? '' : 's'} dropped to fit` : ''}.`,
  stepReplied: (/** @type {Extract<LogEntry, { kind: 'replied' }>} */ e) =>
    `Step ${e.step}/${e.steps}: reply of ${fmt(e.chars)} characters in ${duration(e.ms)}; ${e.requests.length > 0 ? `asks ${e.requests.join('; ')}` : 'no requests: the answer'}${e.files.length > 0 ? `; proposes ${e.files.join(', ')}` : ''}.`,
  stepAnswered: (/** @type {Extract<LogEntry, { kind: 'answered-requests' }>} */ e) =>
    `Step ${e.step}/${e.steps}: answered ${e.requests} request${e.requests === 1 ? '' : 's'} with ${fmt(e.chars)} characters.`,
  stepWarning: (/** @type {Extract<LogEntry, { kind: 'warning' }>} */ e) => `Step ${e.step}/${e.steps}: ${e.message}`,
  stepMiscited: (/** @type {Extract<LogEntry, { kind: 'miscited' }>} */ e) =>
    `Step ${e.step}/${e.steps}: ${e.citations.length === 1 ? 'a place the answer cites does' : `${e.citations.length} places the answer cites do`} not match the files${e.retry ? ' (the model is asked once to correct them)' : ''}: ${e.citations
      .map((m) => {
        const what = `${m.cited}${m.name === undefined ? '' : ` for ${m.name}`}`;
        if (m.problem === 'no-file') return `${what}: there is no ${m.path}`;
        if (m.problem === 'past-end') return `${what}: ${m.path} has ${fmt(m.lines)} line${m.lines === 1 ? '' : 's'}`;
        if (m.problem === 'name-elsewhere')
          return m.defined
            ? `${what}: it is at ${m.path}:${m.at}`
            : `${what}: ${m.path} does not define it (it first appears at line ${m.at})`;
        return `${what}: ${m.name} is not in ${m.path}`;
      })
      .join('; ')}.`,
  edits: (/** @type {Extract<LogEntry, { kind: 'edits' }>} */ e) =>
    `EDITs: ${fmt(e.run.applied)} of ${fmt(e.run.applied + e.run.missed)} applied in this run; ${e.model}'s over all runs: ${fmt(e.all.applied)} of ${fmt(e.all.applied + e.all.missed)} (${Math.round((100 * e.all.applied) / Math.max(1, e.all.applied + e.all.missed))}%).`,
  done: (/** @type {Extract<LogEntry, { kind: 'done' }>} */ e) =>
    `Answer after ${e.steps} step${e.steps === 1 ? '' : 's'}${e.stop === 'answered' ? '' : e.stop === 'steps' ? ': the steps ran out' : ': the model repeated its requests'}.`,
  notSaved: (/** @type {Extract<LogEntry, { kind: 'not-saved' }>} */ e) =>
    `The run could not be kept in ${e.where} (${e.reason}); deepwork apply will not find it.`,
  waiting: (/** @type {Waiting} */ w) =>
    `Step ${w.step}: waiting ${Math.max(0, Math.round((Date.now() - w.since) / 1000))} s${w.thinking > 0 ? `, thinking, ${fmt(w.thinking)} characters` : ''}${w.received > 0 ? `, ${fmt(w.received)} characters so far` : ''}…`,
  stopped: 'Stopped.',
  status: (/** @type {Badge} */ s) =>
    /** @satisfies {Record<Badge, string>} */ ({
      new: 'new',
      changed: 'changed',
      'held back': 'held back',
      incomplete: 'incomplete',
      refused: 'refused',
      failed: 'failed',
      stopped: 'stopped',
      unchanged: 'unchanged',
      written: 'written',
      unknown: 'unknown',
    })[s],
  proposals: (/** @type {number} */ n) => (n === 1 ? '1 proposed change' : `${n} proposed changes`),
  writeAll: (/** @type {number} */ n) => `Write all (${n})`,
  write: 'Write',
  writeAnyway: 'Write anyway',
  writeLabel: (/** @type {string} */ p) => `Write ${p}`,
  writeAnywayLabel: (/** @type {string} */ p) => `Write ${p} anyway`,
  diff: 'Diff',
  hideDiff: 'Hide diff',
  diffLabel: (/** @type {string} */ p) => `Diff of ${p}`,
  undo: (/** @type {number} */ n) => `Undo this write: ${n} file${n === 1 ? '' : 's'}`,
  undoLabel: (/** @type {number} */ n, /** @type {string} */ list) =>
    `Undo this write: ${n} file${n === 1 ? '' : 's'} (${list})`,
  written: (/** @type {string} */ set) => `Written; the previous version is in ${set}.`,
  // Followed by ": ", each file with what became of it, and ".".
  undone: (/** @type {number} */ n) => `Undid this write of ${n} file${n === 1 ? '' : 's'}`,
  nothingUndone: 'Nothing to put back: no file of that set was written.',
  action: (/** @type {UndoAction} */ a) =>
    /** @satisfies {Record<UndoAction, string>} */ ({
      restored: 'restored',
      removed: 'removed',
      left: 'left alone',
      failed: 'failed',
    })[a],
  cutCard: "The reply ended before this block's END line: it is never written.",
  elsewhere: 'Proposed at an earlier step',
  notKept: "Proposed in an earlier session; only the folder's last run can still be written.",
  partOf: (/** @type {number} */ i, /** @type {number} */ n) => `part ${i} of ${n} for this file`,
  fileBlock: 'FILE',
  editBlock: 'EDIT',
  pasteOption: 'Copy and paste (any web chat)',
  demoOption: 'demo bridge (not a model)',
  // A route that answered an error without saying which (a proxy's page, a crash).
  httpError: (/** @type {number} */ status) => `The pult answered HTTP ${status} without saying why.`,
  pasteState:
    "You are the bridge: copy each message into a web chat and paste its reply back here, with no service to start. After a chat's first message, each message carries only what is new.",
  loading: 'Loading…',
  hiddenChar: 'An invisible or direction-changing character, shown as its code',
  hiddenLine: 'This line holds invisible or direction-changing characters',
  hiddenNote:
    'Holds invisible or direction-changing characters: each is shown as a boxed code (⟨U+…⟩), and the diff marks the lines that hold them.',
  fromModel: 'Written by the model',
  ...pasteEn,
  ...extensionEn,
};

/** @typedef {typeof en} Strings */
/** @typedef {keyof Strings} Key */

// Every key of the English table, each of the same type: a missing or mistyped translation fails `tsc -p ui/page`.
/** @type {Strings} */
const ru = {
  bridge: 'Мост',
  check: 'Проверить',
  checking: 'проверка…',
  language: 'Язык',
  files: 'Файлы',
  filter: 'Фильтр',
  filterHint: 'часть пути',
  treeLabel: 'Файлы проекта',
  showFiles: 'Показать файлы',
  hideFiles: 'Скрыть файлы',
  conversations: 'Беседы',
  question: 'Вопрос',
  questionHint: 'Где решается, что ответ готов? (Ctrl+Enter — спросить, Esc — остановить)',
  steps: 'Шаги',
  ask: 'Спросить',
  stop: 'Стоп',
  newConversation: 'Новая беседа',
  newConversationTitle: 'Новая беседа',
  emptyRuns:
    'Задайте вопрос об этой папке. Модель сама читает нужные файлы; ничего не записывается, пока вы не нажмёте «Записать».',
  emptyQuestion: 'Сначала напишите вопрос: что модели выяснить, объяснить или изменить?',
  noConversations: 'Пока нет: каждый вопрос начинает или продолжает беседу.',
  ready: 'готов',
  idle: 'ждёт',
  down: 'недоступен',
  gone: 'не запущен',
  demoState: 'Демо-мост отвечает без сети: он ищет слова вопроса, это не модель.',
  downHint: 'Без модели, ничего не запуская:',
  goneBanner: (/** @type {string} */ root) =>
    `deepwork остановлен. Запустите его снова — deepwork ui в ${root} или перетащите папку на start-deepwork.cmd, — и страница подключится сама.`,
  notRunning: 'deepwork не запущен, поэтому это не сделано. Запустите его снова; страница подключится сама.',
  linkUsed:
    'Эта ссылка уже использована: ссылка от deepwork впускает одну страницу, один раз. Если это были не вы, её мог использовать кто-то другой на этом компьютере, поэтому deepwork сменил ключ и закрыл ему доступ. Запустите deepwork ui в папке проекта снова (или перетащите папку на start-deepwork.cmd), чтобы получить новую ссылку.',
  linkExpired:
    'Срок этой ссылки истёк: ссылка от deepwork действует две минуты. Запустите deepwork ui в папке проекта снова (или перетащите папку на start-deepwork.cmd), чтобы получить новую.',
  linkUnknown:
    'Эта ссылка не от этого пульта: она сделана для прежнего запуска deepwork или изменена. Запустите deepwork ui в папке проекта снова (или перетащите папку на start-deepwork.cmd), чтобы получить новую.',
  noLink:
    'Эта страница открывается по ссылке от deepwork. Запустите deepwork ui в папке проекта (или перетащите папку на start-deepwork.cmd): он откроет пульт по одноразовой ссылке.',
  foreignPult:
    'На порту этой страницы отвечает кто-то, кто не может доказать, что он её пульт: deepwork сменил ключ или порт занят другой программой. Страница ничего ему не отправляет. Запустите deepwork ui в папке проекта, чтобы получить новую ссылку.',
  rekeyed:
    'Ссылку на этот пульт использовали второй раз, значит, она могла быть у кого-то ещё на этом компьютере: deepwork сменил ключ и отключил все страницы, и эту тоже. Запустите deepwork ui в папке проекта, чтобы получить новую ссылку.',
  noneTicked: 'Файлы не отмечены: модель сама попросит нужные.',
  ticked: (/** @type {number} */ n, /** @type {string} */ size) =>
    `${fmt(n)} ${ruPlural(n, 'файл', 'файла', 'файлов')} (${size}) уйдут с вопросом.`,
  overBudget: (/** @type {number} */ chars, /** @type {number} */ paths) =>
    ` Это больше, чем отправляется за шаг (${fmt(chars)} символов, ${fmt(paths)} файлов): модель получит первые и попросит остальные снова. Снимите часть отметок.`,
  folderBox: (/** @type {string} */ p) => `Все файлы в ${p}`,
  openFolder: (/** @type {string} */ p) => `Открыть папку ${p}`,
  closeFolder: (/** @type {string} */ p) => `Закрыть папку ${p}`,
  fileCount: (/** @type {number} */ n) => `${fmt(n)} ${ruPlural(n, 'файл', 'файла', 'файлов')}`,
  more: (/** @type {number} */ n) => `… ещё ${fmt(n)}; уточните путь`,
  continues: (/** @type {string} */ title) =>
    `«Спросить» продолжит беседу «${title}»: модель получит её вопросы и ответы.`,
  questions: (/** @type {number} */ n) => `${n} ${ruPlural(n, 'вопрос', 'вопроса', 'вопросов')}`,
  withFiles: (/** @type {string} */ files) => `; с файлами ${files}`,
  reopened: 'из сохранённой беседы',
  stepSending: (/** @type {Extract<LogEntry, { kind: 'sending' }>} */ e) =>
    `Шаг ${e.step}/${e.steps}: отправка ${fmt(e.chars)} ${ruPlural(e.chars, 'символа', 'символов', 'символов')}, около ${fmt(e.tokens)} токенов из ${fmt(e.budget)}, доступных сообщению (окно — ${fmt(e.window)})${e.dropped > 0 ? `; убрано ранних результатов: ${e.dropped}` : ''}.`,
  stepReplied: (/** @type {Extract<LogEntry, { kind: 'replied' }>} */ e) =>
    `Шаг ${e.step}/${e.steps}: ответ из ${fmt(e.chars)} ${ruPlural(e.chars, 'символа', 'символов', 'символов')} за ${duration(e.ms)}; ${e.requests.length > 0 ? `просит ${e.requests.join('; ')}` : 'запросов нет: это ответ'}${e.files.length > 0 ? `; предлагает ${e.files.join(', ')}` : ''}.`,
  stepAnswered: (/** @type {Extract<LogEntry, { kind: 'answered-requests' }>} */ e) =>
    `Шаг ${e.step}/${e.steps}: выполнено запросов: ${e.requests}, ${fmt(e.chars)} ${ruPlural(e.chars, 'символ', 'символа', 'символов')}.`,
  stepWarning: (/** @type {Extract<LogEntry, { kind: 'warning' }>} */ e) => `Шаг ${e.step}/${e.steps}: ${e.message}`,
  stepMiscited: (/** @type {Extract<LogEntry, { kind: 'miscited' }>} */ e) =>
    `Шаг ${e.step}/${e.steps}: ${e.citations.length === 1 ? 'ссылка ответа не совпадает' : `ссылки ответа (${e.citations.length}) не совпадают`} с файлами${e.retry ? ' (модель попросили один раз их исправить)' : ''}: ${e.citations
      .map((m) => {
        const what = `${m.cited}${m.name === undefined ? '' : ` для ${m.name}`}`;
        if (m.problem === 'no-file') return `${what}: файла ${m.path} нет`;
        if (m.problem === 'past-end')
          return `${what}: в ${m.path} ${fmt(m.lines)} ${ruPlural(m.lines, 'строка', 'строки', 'строк')}`;
        if (m.problem === 'name-elsewhere')
          return m.defined
            ? `${what}: это ${m.path}:${m.at}`
            : `${what}: в ${m.path} не определено (впервые встречается в строке ${m.at})`;
        return `${what}: ${m.name} в ${m.path} нет`;
      })
      .join('; ')}.`,
  edits: (/** @type {Extract<LogEntry, { kind: 'edits' }>} */ e) =>
    `EDIT: применено ${fmt(e.run.applied)} из ${fmt(e.run.applied + e.run.missed)} в этом запуске; у ${e.model} за все запуски: ${fmt(e.all.applied)} из ${fmt(e.all.applied + e.all.missed)} (${Math.round((100 * e.all.applied) / Math.max(1, e.all.applied + e.all.missed))}%).`,
  done: (/** @type {Extract<LogEntry, { kind: 'done' }>} */ e) =>
    `Ответ за ${e.steps} ${ruPlural(e.steps, 'шаг', 'шага', 'шагов')}${e.stop === 'answered' ? '' : e.stop === 'steps' ? ': шаги кончились' : ': модель повторила запросы'}.`,
  notSaved: (/** @type {Extract<LogEntry, { kind: 'not-saved' }>} */ e) =>
    `Запуск не сохранён в ${e.where} (${e.reason}); deepwork apply его не найдёт.`,
  waiting: (/** @type {Waiting} */ w) =>
    `Шаг ${w.step}: ожидание ${Math.max(0, Math.round((Date.now() - w.since) / 1000))} с${w.thinking > 0 ? `, размышляет, ${fmt(w.thinking)} символов` : ''}${w.received > 0 ? `, получено ${fmt(w.received)} символов` : ''}…`,
  stopped: 'Остановлено.',
  status: (/** @type {Badge} */ s) =>
    /** @satisfies {Record<Badge, string>} */ ({
      new: 'новый',
      changed: 'изменён',
      'held back': 'придержан',
      incomplete: 'неполный',
      refused: 'отказано',
      failed: 'ошибка',
      stopped: 'остановлен',
      unchanged: 'без изменений',
      written: 'записан',
      unknown: 'неизвестно',
    })[s],
  proposals: (/** @type {number} */ n) =>
    `${n} ${ruPlural(n, 'предложенное изменение', 'предложенных изменения', 'предложенных изменений')}`,
  writeAll: (/** @type {number} */ n) => `Записать все (${n})`,
  write: 'Записать',
  writeAnyway: 'Записать всё равно',
  writeLabel: (/** @type {string} */ p) => `Записать ${p}`,
  writeAnywayLabel: (/** @type {string} */ p) => `Записать ${p} всё равно`,
  diff: 'Изменения',
  hideDiff: 'Скрыть изменения',
  diffLabel: (/** @type {string} */ p) => `Изменения в ${p}`,
  undo: (/** @type {number} */ n) => `Отменить эту запись: ${n} ${ruPlural(n, 'файл', 'файла', 'файлов')}`,
  undoLabel: (/** @type {number} */ n, /** @type {string} */ list) =>
    `Отменить эту запись: ${n} ${ruPlural(n, 'файл', 'файла', 'файлов')} (${list})`,
  written: (/** @type {string} */ set) => `Записан; прежняя версия в ${set}.`,
  undone: (/** @type {number} */ n) => `Запись отменена (${n} ${ruPlural(n, 'файл', 'файла', 'файлов')})`,
  nothingUndone: 'Возвращать нечего: ни один файл этого набора не записан.',
  action: (/** @type {UndoAction} */ a) =>
    /** @satisfies {Record<UndoAction, string>} */ ({
      restored: 'восстановлен',
      removed: 'удалён',
      left: 'не тронут',
      failed: 'не удалось',
    })[a],
  cutCard: 'Ответ оборвался до строки END этого блока: он не будет записан.',
  elsewhere: 'Предложено на одном из прежних шагов',
  notKept: 'Предложено в прошлом сеансе; записать можно только последний запуск папки.',
  partOf: (/** @type {number} */ i, /** @type {number} */ n) => `часть ${i} из ${n} для этого файла`,
  fileBlock: 'FILE',
  editBlock: 'EDIT',
  pasteOption: 'Копировать и вставлять (любой веб-чат)',
  demoOption: 'демо-мост (не модель)',
  httpError: (/** @type {number} */ status) => `Пульт ответил HTTP ${status}, не объяснив почему.`,
  pasteState:
    'Мост — вы: копируйте каждое сообщение в веб-чат и вставляйте его ответ сюда, запускать ничего не нужно. После первого сообщения чата каждое следующее несёт только новое.',
  loading: 'Загрузка…',
  hiddenChar: 'Невидимый или меняющий направление текста символ, показан своим кодом',
  hiddenLine: 'В этой строке есть невидимые или меняющие направление текста символы',
  hiddenNote:
    'Содержит невидимые или меняющие направление текста символы: каждый показан кодом в рамке (⟨U+…⟩), а строки с ними отмечены в изменениях.',
  fromModel: 'Написано моделью',
  ...pasteRu,
  ...extensionRu,
};

/** @template {Key} K @param {K} key @returns {Strings[K]} */
export function t(key) {
  return (language() === 'ru' ? ru : en)[key];
}
