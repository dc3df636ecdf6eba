// What the server says, worded in the reader's language: each code of the contract's Said (ui/contract.ts) with its
// parameters, in English and Russian. The words of the layers below that have no code yet (`detail`: why a SEARCH
// missed, what a file makes tools run) follow the sentence, marked as English (lang="en").

import { fromServer, h } from './dom.js';
import { fmt, language, size } from './language.js';

/** @import { Said } from '../contract.ts' */

/** @typedef {{ [C in Said['code']]: (s: Extract<Said, { code: C }>) => string }} Words */

/** @type {Words} */
const en = {
  incomplete: (s) =>
    `The reply ended before ${s.block === 'file' ? 'its' : "an EDIT block's"} END line: it is never written.`,
  'edit-unreadable': () => 'An EDIT block could not be read',
  'edit-failed': (s) =>
    `${s.edits === 1 ? 'The EDIT' : `EDIT ${s.edit} of ${s.edits}`}, pair ${s.pair}, does not apply`,
  'no-file-to-edit': () => 'There is no such file to edit; a FILE block creates a new file.',
  'path-refused': () => 'deepwork does not write this path',
  link: (s) => `A link to ${s.to}: it is written there.`,
  'edit-partial': (s) =>
    `Part of the change: ${s.missed.length === 1 ? 'pair' : 'pairs'} ${s.missed.join(', ')} of an EDIT's ${s.pairs} did not apply and the model sent nothing more for this file; read its diff, then use Write anyway to write it`,
  binary: () => 'It is not text; deepwork leaves it as it is',
  'private-key': (s) =>
    `It holds a private key${s.line === undefined ? '' : ` (line ${fmt(s.line)})`}; deepwork leaves it as it is.`,
  'too-large': (s) => `It is ${size(s.bytes)}, over the ${size(s.limit)} deepwork reads whole.`,
  unreadable: (s) => `It cannot be read (${s.errno}).`,
  inexact: (s) =>
    `It does not read back byte for byte as ${s.encoding}, so a change would alter bytes it does not touch; deepwork leaves it as it is.`,
  'read-only': () => 'The file is read-only; make it writable to let deepwork replace it.',
  elided: () => 'It looks like parts were left out; read its diff, then use Write anyway to write it',
  'runs-code': () => 'It makes tools run code; read its diff, then use Write anyway to write it',
  unencodable: (s) =>
    `The new text has “${s.char}” (line ${fmt(s.line)}), which ${s.encoding} cannot hold; the file stays in its encoding.`,
  'written-later': (s) => `A later proposal writes the same file (${s.path}); that one is written.`,
  'git-dir': () => 'deepwork does not write git internals',
  stopped: () => 'The write was stopped before this file; it is as it was.',
  'changed-since-read': () =>
    'The file changed while it was being written (saved meanwhile?), and your version stays. Write again to write the proposal against it.',
  'changed-since-shown': () =>
    'The file changed since its diff was shown. This is the diff against it now; Write again to write it.',
  'write-failed': (s) => `It could not be written${s.errno === undefined ? '' : ` (${s.errno})`}; it is as it was`,
  'undo-outside': () => 'The backup names a path outside the project; nothing was touched.',
  'undo-path-refused': () => 'deepwork does not write this path; nothing was touched',
  'undo-now-link': (s) => `It is now a link to ${s.to}; nothing was touched.`,
  'undo-unreadable': (s) => `It cannot be read (${s.errno}).`,
  'undo-changed-after': (s) =>
    `You changed it after deepwork wrote it, so it stays as you have it${s.copy === undefined ? '' : `; its old version is in ${s.copy}`}.`,
  'undo-changed-while': (s) =>
    `It changed while undo ran, and stays as you left it${s.copy === undefined ? '' : `; its old version is in ${s.copy}`}.`,
  'undo-copy-outside': () => 'Its backup copy is outside the backup set; nothing was touched.',
  'undo-failed': () => 'It could not be put back; it is as it was',
  busy: () => 'A question is running; stop it first.',
  'not-waiting': (s) => `Question ${s.run} is not waiting for a pasted reply.`,
  'no-proposal': (s) => `Question ${s.run} proposes no ${s.paths.join(', ')}.`,
  'nothing-to-undo': (s) => (s.set === undefined ? 'Nothing to undo: no write yet.' : 'That write was undone already.'),
  'undo-blocked': (s) =>
    `Nothing was undone: a later write wrote ${s.later.map((l) => l.path).join(', ')} again. Undo that one first (Undo on its card), then this one.`,
  'no-conversation': (s) => `There is no saved conversation ${s.id} in this folder.`,
  'chat-notice': (s) =>
    `That is the chat's notice that it took too much ("${s.notice}"), not the model's answer. Start a new chat, paste the message that stands on its own there, and paste its reply here; if a single message is refused, lower pasteMaxChars in config.json.`,
  'empty-reply': () => "The reply is empty: paste the model's whole reply (its Copy button copies it), then send it.",
  'bad-host': (s) =>
    `The host “${s.host}” is not an http:// or https:// address. Write it like http://localhost:11500.`,
  'bad-model': () => 'Name the model, like deepseek:think.',
  'no-settings': () => 'This pult cannot change its bridge: it was started without a config file.',
  'not-saved': () => 'The bridge was not changed: config.json could not be written',
  'not-listening': (s) =>
    `Nothing answers at ${s.origin} (${s.errno}). Start the model's server there (or set deepseekHost in config.json), or answer by copy and paste.`,
  'no-such-host': (s) => `The name ${s.host} is not known here. Check deepseekHost in config.json.`,
  timeout: (s) => `${s.origin} gave no whole answer in time: it is busy, stuck, or not a model's server.`,
  'window-full': () => "The conversation does not fit the model's window",
  'unknown-model': (s) => `The server does not know the model “${s.model}”`,
  ready: (s) => `The model ${s.model} at ${s.host} answers and is up.`,
  idle: (s) => `The server at ${s.host} answers; ${s.model} is not up yet: it starts on the first question.`,
  text: () => '',
};

/** @type {Words} */
const ru = {
  incomplete: (s) =>
    `Ответ оборвался до строки END ${s.block === 'file' ? 'этого блока' : 'блока EDIT'}: он не будет записан.`,
  'edit-unreadable': () => 'Блок EDIT не удалось прочитать',
  'edit-failed': (s) => `${s.edits === 1 ? 'EDIT' : `EDIT ${s.edit} из ${s.edits}`}, пара ${s.pair}, не применяется`,
  'no-file-to-edit': () => 'Такого файла нет, править нечего; новый файл создаёт блок FILE.',
  'path-refused': () => 'deepwork не пишет по этому пути',
  link: (s) => `Это ссылка на ${s.to}: запись пойдёт туда.`,
  'edit-partial': (s) =>
    `Только часть правки: ${s.missed.length === 1 ? 'пара' : 'пары'} ${s.missed.join(', ')} из ${s.pairs} в EDIT не применились, и модель больше ничего не прислала для этого файла; посмотрите изменения, затем нажмите «Записать всё равно»`,
  binary: () => 'Это не текст; deepwork его не трогает',
  'private-key': (s) =>
    `В нём закрытый ключ${s.line === undefined ? '' : ` (строка ${fmt(s.line)})`}; deepwork его не трогает.`,
  'too-large': (s) => `Его размер ${size(s.bytes)}, больше ${size(s.limit)}, которые deepwork читает целиком.`,
  unreadable: (s) => `Его не удаётся прочитать (${s.errno}).`,
  inexact: (s) =>
    `Он не читается байт в байт как ${s.encoding}, и правка изменила бы байты, которых не касается; deepwork его не трогает.`,
  'read-only': () => 'Файл только для чтения; разрешите запись в него, чтобы deepwork мог его заменить.',
  elided: () => 'Похоже, часть текста пропущена; просмотрите изменения, затем нажмите «Записать всё равно»',
  'runs-code': () => 'Из-за него инструменты запускают код; просмотрите изменения, затем нажмите «Записать всё равно»',
  unencodable: (s) =>
    `В новом тексте есть «${s.char}» (строка ${fmt(s.line)}), которого нет в ${s.encoding}; файл остаётся в своей кодировке.`,
  'written-later': (s) => `Более поздний блок пишет тот же файл (${s.path}); записывается он.`,
  'git-dir': () => 'deepwork не пишет внутренние файлы git',
  stopped: () => 'Запись остановлена до этого файла; он не изменён.',
  'changed-since-read': () =>
    'Файл изменился во время записи (его сохранили?), и ваша версия осталась. Нажмите «Записать» снова, чтобы записать предложение поверх неё.',
  'changed-since-shown': () =>
    'Файл изменился после показа изменений. Здесь изменения относительно него сейчас; нажмите «Записать» снова.',
  'write-failed': (s) => `Записать не удалось${s.errno === undefined ? '' : ` (${s.errno})`}; файл остался прежним`,
  'undo-outside': () => 'Копия указывает путь вне проекта; ничего не тронуто.',
  'undo-path-refused': () => 'deepwork не пишет по этому пути; ничего не тронуто',
  'undo-now-link': (s) => `Теперь это ссылка на ${s.to}; ничего не тронуто.`,
  'undo-unreadable': (s) => `Его не удаётся прочитать (${s.errno}).`,
  'undo-changed-after': (s) =>
    `Вы изменили его после записи, поэтому он остался как у вас${s.copy === undefined ? '' : `; прежняя версия — в ${s.copy}`}.`,
  'undo-changed-while': (s) =>
    `Он изменился во время отмены и остался как у вас${s.copy === undefined ? '' : `; прежняя версия — в ${s.copy}`}.`,
  'undo-copy-outside': () => 'Его копия лежит вне набора копий; ничего не тронуто.',
  'undo-failed': () => 'Вернуть не удалось; файл остался как был',
  busy: () => 'Вопрос ещё выполняется; сначала остановите его.',
  'not-waiting': (s) => `Вопрос ${s.run} не ждёт вставленного ответа.`,
  'no-proposal': (s) => `Вопрос ${s.run} не предлагает ${s.paths.join(', ')}.`,
  'nothing-to-undo': (s) =>
    s.set === undefined ? 'Отменять нечего: записей ещё не было.' : 'Эта запись уже отменена.',
  'undo-blocked': (s) =>
    `Ничего не отменено: более поздняя запись снова записала ${s.later.map((l) => l.path).join(', ')}. Сначала отмените её (кнопка отмены на её карточке), потом эту.`,
  'no-conversation': (s) => `Сохранённой беседы ${s.id} в этой папке нет.`,
  'chat-notice': (s) =>
    `Это сообщение чата о том, что он взял слишком много («${s.notice}»), а не ответ модели. Начните новый чат, вставьте туда сообщение, которое понятно само по себе, и вставьте сюда его ответ; если чат не берёт и одно сообщение, уменьшите pasteMaxChars в config.json.`,
  'empty-reply': () =>
    'Ответ пуст: вставьте весь ответ модели (его копирует кнопка «Копировать» в чате), затем отправьте.',
  'bad-host': (s) => `«${s.host}» — не адрес http:// или https://. Напишите, например, http://localhost:11500.`,
  'bad-model': () => 'Укажите модель, например deepseek:think.',
  'no-settings': () => 'Этот пульт не может сменить модель: он запущен без файла настроек.',
  'not-saved': () => 'Ничего не изменено: config.json не удалось записать',
  'not-listening': (s) =>
    `По адресу ${s.origin} никто не отвечает (${s.errno}). Запустите там сервер модели (или укажите deepseekHost в config.json) либо отвечайте копированием и вставкой.`,
  'no-such-host': (s) => `Имя ${s.host} здесь неизвестно. Проверьте deepseekHost в config.json.`,
  timeout: (s) => `${s.origin} не дал полного ответа вовремя: он занят, завис или это не сервер модели.`,
  'window-full': () => 'Беседа не помещается в окно модели',
  'unknown-model': (s) => `Сервер не знает модель «${s.model}»`,
  ready: (s) => `Модель ${s.model} на ${s.host} отвечает и запущена.`,
  idle: (s) => `Сервер ${s.host} отвечает; модель ${s.model} ещё не запущена: она запустится с первым вопросом.`,
  text: () => '',
};

// The sentence alone, for a place that takes text (an Error's message, a title).
/** @param {Said} said @returns {string} */
export function saidText(said) {
  const words = /** @type {(s: Said) => string} */ ((language() === 'ru' ? ru : en)[said.code]);
  const sentence = words(said);
  const detail = said.code === 'text' ? said.text : 'detail' in said ? said.detail : '';
  if (sentence === '') return detail;
  return detail === '' ? sentence : `${sentence}: ${detail}.`;
}

// The sentence with its English detail marked so, for the page.
/** @param {Said} said @returns {HTMLElement} */
export function saidView(said) {
  if (said.code === 'text') return fromServer(said.text);
  const words = /** @type {(s: Said) => string} */ ((language() === 'ru' ? ru : en)[said.code]);
  const sentence = words(said);
  if (!('detail' in said) || said.detail === '') return h('span', {}, [sentence]);
  return h('span', {}, [`${sentence}: `, fromServer(said.detail), '.']);
}
