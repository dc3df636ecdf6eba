// Every string a person reads on the page, in English and Russian: this table, and the copy-and-paste step's
// (paste-strings.js) joined into it. What the server says comes as codes, worded in said.js; the few details of the
// layers below that have no code yet (and the step log's warnings) stay English, and the page marks them so (lang="en",
// see dom.js).

import { textsIn } from '../../common/strings/language.js';
import { stepTexts } from '../../common/strings/steps.js';
import { fmt, language, ruPlural } from './language.js';
import { pasteEn, pasteRu } from './paste-strings.js';
import { extensionEn, extensionRu } from './extension-strings.js';

export { duration, fmt, language, locale, setLanguage, size } from './language.js';

/** @import { FileStatus, UndoAction, Waiting } from '../contract.ts' */
// A card's badge: a file's status, `written` once its Write is done, `unknown` for a block the run no longer holds.
/** @typedef {FileStatus | 'written' | 'unknown'} Badge */

// The step log's lines, which the console prints too: one table for both (common/strings/steps.js).
const stepsEN = textsIn(stepTexts, 'en');
const stepsRU = textsIn(stepTexts, 'ru');

const en = {
  bridge: 'Bridge',
  check: 'Check',
  changeBridge: 'Change…',
  bridgeHost: 'Host',
  bridgeModel: 'Model',
  saveBridge: 'Save',
  cancel: 'Cancel',
  bridgeSaveHint: 'Saved to config.json; a --host or --model given at start still wins next time.',
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
  questionHint: 'What should the model find out, explain or change in this folder? (Ctrl+Enter asks, Esc stops)',
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
    `${n === 1 ? '1 file' : `${fmt(n)} files`} (${size}) ${n === 1 ? 'goes' : 'go'} with the question.`,
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
  // The same in every language: a model's name and where it is, as the Bridge list and a run's line show them.
  configuredBridge: (/** @type {string} */ model, /** @type {string} */ host) => `${model} · ${host}`,
  // Before the step log's last line, folded: how many entries it holds.
  logSummary: (/** @type {number} */ n, /** @type {string} */ last) =>
    `Step log (${fmt(n)})${last === '' ? '' : ` · ${last}`}`,
  stepSending: stepsEN.sending,
  stepReplied: stepsEN.replied,
  stepAnswered: stepsEN.answered,
  stepWarning: stepsEN.warning,
  stepMiscited: stepsEN.miscited,
  edits: stepsEN.edits,
  done: stepsEN.done,
  notSaved: stepsEN.notSaved,
  waiting: (/** @type {Waiting} */ w) => stepsEN.waiting({ ...w, ms: Date.now() - w.since }),
  stopped: 'Stopped.',
  notInConversation: 'Not kept in the conversation: a follow-up does not carry it, and the list does not count it.',
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
  writeRest: (/** @type {number} */ n) => `Write the rest (${n})`,
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
  writtenNew: 'Written: a new file. Undo removes it.',
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
  demoOption: 'Demo (not a model)',
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
  bridge: 'Кто отвечает',
  check: 'Проверить',
  changeBridge: 'Изменить…',
  bridgeHost: 'Адрес',
  bridgeModel: 'Модель',
  saveBridge: 'Сохранить',
  cancel: 'Отмена',
  bridgeSaveHint: 'Сохраняется в config.json; --host или --model, заданные при запуске, в следующий раз важнее.',
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
  questionHint: 'Что модели выяснить, объяснить или изменить в этой папке? (Ctrl+Enter — спросить, Esc — остановить)',
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
  demoState: 'Демо отвечает без сети: оно ищет слова вопроса, это не модель.',
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
    `${fmt(n)} ${ruPlural(n, 'файл', 'файла', 'файлов')} (${size}) ${ruPlural(n, 'уйдёт', 'уйдут', 'уйдут')} с вопросом.`,
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
  configuredBridge: (/** @type {string} */ model, /** @type {string} */ host) => `${model} · ${host}`,
  logSummary: (/** @type {number} */ n, /** @type {string} */ last) =>
    `Журнал шагов (${fmt(n)})${last === '' ? '' : ` · ${last}`}`,
  stepSending: stepsRU.sending,
  stepReplied: stepsRU.replied,
  stepAnswered: stepsRU.answered,
  stepWarning: stepsRU.warning,
  stepMiscited: stepsRU.miscited,
  edits: stepsRU.edits,
  done: stepsRU.done,
  notSaved: stepsRU.notSaved,
  waiting: (/** @type {Waiting} */ w) => stepsRU.waiting({ ...w, ms: Date.now() - w.since }),
  stopped: 'Остановлено.',
  notInConversation: 'Не сохранён в беседе: следующий вопрос его не несёт, и список его не считает.',
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
  writeRest: (/** @type {number} */ n) => `Записать остальные (${n})`,
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
  writtenNew: 'Записан: это новый файл. Отмена удалит его.',
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
  demoOption: 'Демо (не модель)',
  httpError: (/** @type {number} */ status) => `Пульт ответил HTTP ${status}, не объяснив почему.`,
  pasteState:
    'Посредник — вы: копируйте каждое сообщение в веб-чат и вставляйте его ответ сюда, запускать ничего не нужно. После первого сообщения чата каждое следующее несёт только новое.',
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
