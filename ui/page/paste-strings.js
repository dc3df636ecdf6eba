// The copy-and-paste step's strings, in English and Russian: strings.js joins them into its tables, so t() is still
// the one way the page finds a string, and a missing or mistyped translation fails `tsc -p ui/page`.

import { fmt, ruPlural } from './language.js';

/** @typedef {'copied' | 'copy-fallback' | 'clipboard-refused' | 'clipboard-empty'} PasteNote */

export const pasteEn = {
  // The step's heading. `fresh`: the message is for a new chat (it stands on its own).
  pasteHeading: (/** @type {number} */ step, /** @type {number} */ steps, /** @type {boolean} */ fresh) =>
    `Step ${step} of ${steps}: a message for ${fresh ? 'a new chat' : 'the same chat'}`,
  // What a message for the same chat carries: `list` is made of the two below.
  carriesNew: (/** @type {string} */ list) => `What is new in it: ${list}. The chat holds the rest.`,
  carriesNothing: 'Nothing new but the step line and the reminder: the chat holds the rest.',
  carriesQuestion: 'the new question',
  carriesResults: (/** @type {string} */ requests) => `the results of ${requests}`,
  didNotFit: ' (did not fit)',
  // A message that stands on its own, at a question's first step and at a later one.
  standsAlone: "It stands on its own: the instructions, the folder's tree and the question.",
  standsAloneLater:
    "It stands on its own: the instructions, the folder's tree, the question and what the model has read so far.",
  // The limits the chat's preset or config gives; `site` is the chat's name (DeepSeek, ChatGPT, another chat).
  anotherChat: 'another chat',
  messageSize: (
    /** @type {number} */ chars,
    /** @type {number} */ tokens,
    /** @type {number} */ max,
    /** @type {string} */ site,
  ) =>
    `This message: ${fmt(chars)} characters (about ${fmt(tokens)} tokens); one message may have up to ${fmt(max)} (${site}).`,
  chatHolds: (
    /** @type {number} */ held,
    /** @type {number} */ after,
    /** @type {number} */ max,
    /** @type {string} */ site,
  ) => `The chat holds about ${fmt(held)} of ${fmt(max)} characters (${site}); with this message, about ${fmt(after)}.`,
  chatStarts: (/** @type {number} */ chars, /** @type {number} */ max, /** @type {string} */ site) =>
    `A new chat starts with this message: about ${fmt(chars)} of the ${fmt(max)} characters a chat holds (${site}).`,
  chatMeter: 'How full the chat is',
  tooLong: (/** @type {number} */ max, /** @type {string} */ site) =>
    `This message is longer than one message may be (${fmt(max)} characters, ${site}): the chat may refuse it, cut it or attach it as a file. Tick fewer files, or lower contextTokens in config.json.`,
  chatFull: (/** @type {number} */ held, /** @type {number} */ max, /** @type {string} */ site) =>
    `This chat is nearly full: it holds about ${fmt(held)} of ${fmt(max)} characters (${site}), and the next message would take it past that, so that it stops answering or forgets the start.`,
  fullNew: 'So this is the message for a new chat: start one and paste it there.',
  fullSame: 'Start a new chat: “I started a new chat” gives the message for it.',
  newChat: 'I started a new chat',
  sameChat: 'Back to the same chat',
  copyStep: 'Copy the message',
  copyHint: (/** @type {boolean} */ fresh) =>
    `Paste it into ${fresh ? 'a new chat' : 'the same chat'} and send it there.`,
  copyMessage: 'Copy message',
  messageLabel: 'Message to copy',
  pasteStep: 'Paste the reply',
  pasteHint: "Copy the model's whole reply with the chat's Copy button, then paste it here (Ctrl+V).",
  pasteClipboard: 'Paste from clipboard',
  replyLabel: "Model's reply",
  sendStep: 'Send the reply',
  sendHint: 'Ctrl+Enter in the reply box sends it too.',
  sendReply: 'Send reply',
  note: (/** @type {PasteNote} */ note) =>
    /** @satisfies {Record<PasteNote, string>} */ ({
      copied: 'Copied.',
      'copy-fallback': 'The browser did not allow the clipboard: the message is selected, press Ctrl+C.',
      'clipboard-refused': 'The browser did not let the page read the clipboard: press Ctrl+V in the reply box.',
      'clipboard-empty': "The clipboard holds no text: copy the model's reply in the chat first.",
    })[note],
};

/** @type {typeof pasteEn} */
export const pasteRu = {
  pasteHeading: (/** @type {number} */ step, /** @type {number} */ steps, /** @type {boolean} */ fresh) =>
    `Шаг ${step} из ${steps}: сообщение для ${fresh ? 'нового чата' : 'того же чата'}`,
  carriesNew: (/** @type {string} */ list) => `Новое в нём: ${list}. Остальное в чате уже есть.`,
  carriesNothing: 'Нового в нём нет, кроме строки шага и напоминания: остальное в чате уже есть.',
  carriesQuestion: 'новый вопрос',
  carriesResults: (/** @type {string} */ requests) => `результаты ${requests}`,
  didNotFit: ' (не поместился)',
  standsAlone: 'В нём всё нужное: инструкции, дерево папки и вопрос.',
  standsAloneLater: 'В нём всё нужное: инструкции, дерево папки, вопрос и то, что модель уже прочитала.',
  anotherChat: 'другой чат',
  messageSize: (
    /** @type {number} */ chars,
    /** @type {number} */ tokens,
    /** @type {number} */ max,
    /** @type {string} */ site,
  ) =>
    `Это сообщение — ${fmt(chars)} ${ruPlural(chars, 'символ', 'символа', 'символов')} (около ${fmt(tokens)} ${ruPlural(tokens, 'токена', 'токенов', 'токенов')}); одно сообщение вмещает до ${fmt(max)} (${site}).`,
  chatHolds: (
    /** @type {number} */ held,
    /** @type {number} */ after,
    /** @type {number} */ max,
    /** @type {string} */ site,
  ) =>
    `В чате уже около ${fmt(held)} из ${fmt(max)} ${ruPlural(max, 'символа', 'символов', 'символов')} (${site}); с этим сообщением будет около ${fmt(after)}.`,
  chatStarts: (/** @type {number} */ chars, /** @type {number} */ max, /** @type {string} */ site) =>
    `Новый чат начнётся с этого сообщения: около ${fmt(chars)} из ${fmt(max)} ${ruPlural(max, 'символа', 'символов', 'символов')}, которые вмещает чат (${site}).`,
  chatMeter: 'Заполненность чата',
  tooLong: (/** @type {number} */ max, /** @type {string} */ site) =>
    `Это сообщение длиннее, чем вмещает одно сообщение (${fmt(max)} ${ruPlural(max, 'символ', 'символа', 'символов')}, ${site}): чат может его отклонить, обрезать или приложить файлом. Отметьте меньше файлов или уменьшите contextTokens в config.json.`,
  chatFull: (/** @type {number} */ held, /** @type {number} */ max, /** @type {string} */ site) =>
    `Этот чат почти заполнен: в нём около ${fmt(held)} из ${fmt(max)} ${ruPlural(max, 'символа', 'символов', 'символов')} (${site}), и следующее сообщение его переполнит — чат перестанет отвечать или забудет начало.`,
  fullNew: 'Поэтому здесь сообщение для нового чата: откройте новый чат и вставьте его туда.',
  fullSame: 'Откройте новый чат: кнопка «Вставлю в новый чат» даст сообщение для него.',
  newChat: 'Вставлю в новый чат',
  sameChat: 'Вернусь в тот же чат',
  copyStep: 'Скопируйте сообщение',
  copyHint: (/** @type {boolean} */ fresh) => `Вставьте его в ${fresh ? 'новый чат' : 'тот же чат'} и отправьте там.`,
  copyMessage: 'Копировать сообщение',
  messageLabel: 'Сообщение для копирования',
  pasteStep: 'Вставьте ответ',
  pasteHint: 'Скопируйте весь ответ модели кнопкой копирования в чате и вставьте его сюда (Ctrl+V).',
  pasteClipboard: 'Вставить из буфера обмена',
  replyLabel: 'Ответ модели',
  sendStep: 'Отправьте ответ',
  sendHint: 'Ctrl+Enter в поле ответа тоже отправляет.',
  sendReply: 'Отправить ответ',
  note: (/** @type {PasteNote} */ note) =>
    /** @satisfies {Record<PasteNote, string>} */ ({
      copied: 'Скопировано.',
      'copy-fallback': 'Браузер не дал доступа к буферу обмена: сообщение выделено, нажмите Ctrl+C.',
      'clipboard-refused': 'Браузер не дал странице прочитать буфер обмена: нажмите Ctrl+V в поле ответа.',
      'clipboard-empty': 'В буфере обмена нет текста: сначала скопируйте ответ модели в чате.',
    })[note],
};
