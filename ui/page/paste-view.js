// A copy-and-paste step, numbered as the person works through it: ① copy the message, ② paste the chat's reply,
// ③ send it. The step says what its message carries and its size against the chat's limits; it offers the message
// that stands on its own, for a new chat, at any time, and makes it the one to copy when the same chat is full. The
// focus follows the work: Copy when a step comes, the reply box after Copy, and a paste anywhere on the page but a
// text box lands in the reply box. Each message is fetched once per step; what is typed survives the redraws.

import { get, post } from './api.js';
import { fromServer, h, showError } from './dom.js';
import { t } from './strings.js';

/** @import { PasteWaiting, Waiting } from '../contract.ts' */
/** @import { PasteState, Run } from './state.js' */

/**
 * @param {Run} run
 * @param {Waiting} waiting
 * @param {PasteWaiting} paste
 * @param {number} steps
 * @param {(run: Run) => void} redraw
 */
export function pasteView(run, waiting, paste, steps, redraw) {
  const id = run.view.id;
  const state = stepState(run, waiting.step, redraw);
  // The first message of a chat stands on its own; a later one is for the same chat unless the reader says they
  // started a new one, or the same one is full.
  const fresh = paste.standalone === undefined || (state.newChat ?? paste.full);
  const standalone = paste.standalone !== undefined && fresh ? paste.standalone : undefined;
  if (standalone !== undefined && !state.standaloneAsked) fetchMessage(run, state, 'standalone', redraw);
  const message = standalone === undefined ? state.message : state.standalone;
  const size = standalone ?? paste;
  const site = paste.chat.site === 'another chat' ? t('anotherChat') : paste.chat.site;
  const heading = t('pasteHeading')(waiting.step, steps, fresh);

  const head = h('div', { class: 'paste-head' }, [h('h4', {}, [heading])]);
  if (paste.standalone !== undefined) {
    const other = h('button', { type: 'button', id: `chat-${id}` }, [t(fresh ? 'sameChat' : 'newChat')]);
    other.addEventListener('click', () => {
      state.newChat = !fresh;
      run.note = undefined;
      run.focus = 'copy';
      redraw(run);
    });
    head.append(other);
  }
  const held = fresh ? size.chars : paste.chat.chars + size.chars;
  const limits = h('div', { class: 'limits small' }, [
    h('p', {}, [t('messageSize')(size.chars, size.tokens, paste.chat.messageChars, site)]),
    h('p', {}, [
      fresh
        ? t('chatStarts')(size.chars, paste.chat.chatChars, site)
        : t('chatHolds')(paste.chat.chars, held, paste.chat.chatChars, site),
    ]),
    h('meter', {
      min: '0',
      max: String(paste.chat.chatChars),
      value: String(Math.min(held, paste.chat.chatChars)),
      low: String(Math.round(paste.chat.chatChars * 0.6)),
      high: String(Math.round(paste.chat.chatChars * 0.85)),
      optimum: '0',
      'aria-label': t('chatMeter'),
    }),
  ]);
  const carries = fresh ? t(waiting.step === 1 ? 'standsAlone' : 'standsAloneLater') : carried(waiting);
  const parts = [head, h('p', { class: 'carries' }, [carries]), limits];
  // The server decides (its warning, `full`); the page words it.
  if (size.warning !== undefined)
    parts.push(h('p', { class: 'hint', role: 'alert' }, [t('tooLong')(paste.chat.messageChars, site)]));
  if (paste.full)
    parts.push(
      h('p', { class: 'hint', role: 'alert' }, [
        `${t('chatFull')(paste.chat.chars, paste.chat.chatChars, site)} ${t(fresh ? 'fullNew' : 'fullSame')}`,
      ]),
    );
  const send = sender(run, state, standalone !== undefined, redraw);
  parts.push(
    h('ol', { class: 'paste-steps' }, [
      copyStep(run, message, fresh, redraw),
      replyStep(run, send, redraw),
      h('li', {}, [
        h('strong', {}, [t('sendStep')]),
        h('div', { class: 'row' }, [send.button, h('span', { class: 'small muted' }, [t('sendHint')])]),
      ]),
    ]),
  );
  return h('div', { class: 'paste', id: `paste-${id}`, role: 'group', 'aria-label': heading }, parts);
}

// ① The message, its Copy button, and where it goes. Copying it, by the button or by Ctrl+C in the box, gives the
// focus to the reply box, where the chat's reply will be pasted.
/** @param {Run} run @param {string | undefined} message @param {boolean} fresh @param {(run: Run) => void} redraw */
function copyStep(run, message, fresh, redraw) {
  const id = run.view.id;
  const text = /** @type {HTMLTextAreaElement} */ (
    h('textarea', { class: 'message', id: `message-${id}`, readonly: '', rows: '5', 'aria-label': t('messageLabel') })
  );
  text.value = message ?? t('loading');
  // Once the copy is done: the selection it copies is the message's.
  text.addEventListener('copy', () => window.setTimeout(() => document.getElementById(`reply-${id}`)?.focus(), 0));
  const copy = h('button', { type: 'button', class: 'primary', id: `copy-${id}` }, [t('copyMessage')]);
  if (message === undefined) copy.setAttribute('disabled', '');
  const note = h('span', { class: 'small muted', role: 'status' }, [
    run.note === 'copied' || run.note === 'copy-fallback' ? t('note')(run.note) : '',
  ]);
  copy.addEventListener('click', () => {
    if (message === undefined) return;
    const select = () => {
      run.note = 'copy-fallback';
      note.textContent = t('note')('copy-fallback');
      text.focus();
      text.select();
    };
    if (navigator.clipboard?.writeText === undefined) return select();
    navigator.clipboard.writeText(message).then(() => {
      run.note = 'copied';
      run.focus = 'reply';
      redraw(run);
    }, select);
  });
  return h('li', {}, [
    h('strong', {}, [t('copyStep')]),
    h('div', { class: 'row' }, [copy, note]),
    text,
    h('p', { class: 'small muted' }, [t('copyHint')(fresh)]),
  ]);
}

// ② The box for the chat's reply, and a button that reads the clipboard where the browser allows it (else Ctrl+V).
// The server's refusal of a reply (empty, or the chat's "too long" notice) is said under it.
/** @param {Run} run @param {{ send: () => void }} send @param {(run: Run) => void} redraw */
function replyStep(run, send, redraw) {
  const id = run.view.id;
  const reply = /** @type {HTMLTextAreaElement} */ (
    h('textarea', { class: 'reply', id: `reply-${id}`, rows: '6', 'aria-label': t('replyLabel') })
  );
  reply.value = run.draft;
  reply.addEventListener('input', () => (run.draft = reply.value));
  reply.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send.send();
    }
  });
  const fromClipboard = h('button', { type: 'button', id: `clipboard-${id}` }, [t('pasteClipboard')]);
  fromClipboard.addEventListener('click', () => {
    const refused = () => {
      run.note = 'clipboard-refused';
      run.focus = 'reply';
      redraw(run);
    };
    if (navigator.clipboard?.readText === undefined) return refused();
    navigator.clipboard.readText().then((text) => {
      if (text.trim() === '') run.note = 'clipboard-empty';
      else {
        run.draft = text;
        run.note = undefined;
      }
      run.focus = 'reply';
      redraw(run);
    }, refused);
  });
  const note = h('span', { class: 'small muted', role: 'status' }, [
    run.note === 'clipboard-refused' || run.note === 'clipboard-empty' ? t('note')(run.note) : '',
  ]);
  const item = h('li', {}, [
    h('strong', {}, [t('pasteStep')]),
    h('p', { class: 'small muted' }, [t('pasteHint')]),
    h('div', { class: 'row' }, [fromClipboard, note]),
    reply,
  ]);
  if (run.refused !== undefined) item.append(h('p', { class: 'error', role: 'alert' }, [fromServer(run.refused)]));
  return item;
}

// ③ Send, by its button or Ctrl+Enter in the reply box; `fresh`: the reply is from a new chat, sent the message that
// stands on its own. A refused reply keeps the step waiting, the reply in its box, the server's words under it.
/** @param {Run} run @param {PasteState} state @param {boolean} fresh @param {(run: Run) => void} redraw */
function sender(run, state, fresh, redraw) {
  const id = run.view.id;
  const send = () => {
    if (state.sending) return;
    state.sending = true;
    void post('POST /api/paste', { run: id, reply: run.draft, ...(fresh ? { newChat: true } : {}) }).then(
      () => {
        run.draft = '';
        run.note = undefined;
        run.refused = undefined;
      },
      (error) => {
        state.sending = false;
        run.refused = error instanceof Error ? error.message : String(error);
        run.focus = 'reply';
        redraw(run);
      },
    );
  };
  const button = h('button', { type: 'button', class: 'primary', id: `send-${id}` }, [t('sendReply')]);
  button.addEventListener('click', send);
  return { send, button };
}

// What a message for the same chat carries that is new, in the reader's words. The loop names it in English
// (protocol/conversation.ts: "the question", a request line, " (did not fit)"); the page rewords those few.
/** @param {Waiting} waiting */
function carried(waiting) {
  const carries = waiting.carries ?? [];
  if (carries.length === 0) return t('carriesNothing');
  const requests = carries
    .filter((c) => c !== 'the question')
    .map((c) => (c.endsWith(' (did not fit)') ? `${c.slice(0, -14)}${t('didNotFit')}` : c));
  const list = [
    ...(carries.includes('the question') ? [t('carriesQuestion')] : []),
    ...(requests.length > 0 ? [t('carriesResults')(requests.join(', '))] : []),
  ];
  return t('carriesNew')(list.join('; '));
}

// The page's state for the waiting step: new at each step, when its message is asked for and the focus goes to Copy.
/** @param {Run} run @param {number} step @param {(run: Run) => void} redraw @returns {PasteState} */
function stepState(run, step, redraw) {
  if (run.paste?.step === step) return run.paste;
  /** @type {PasteState} */
  const state = {
    step,
    message: undefined,
    standalone: undefined,
    standaloneAsked: false,
    newChat: undefined,
    sending: false,
    shown: false,
  };
  run.paste = state;
  run.note = undefined;
  run.refused = undefined;
  run.focus = 'copy';
  fetchMessage(run, state, 'message', redraw);
  return state;
}

// Asks for one of the step's messages once; the run is drawn again when it comes. A refusal is said, and the next
// drawing of the run asks again.
/** @param {Run} run @param {PasteState} state @param {'message' | 'standalone'} which @param {(run: Run) => void} redraw */
function fetchMessage(run, state, which, redraw) {
  if (which === 'standalone') state.standaloneAsked = true;
  const query = { run: String(run.view.id), ...(which === 'standalone' ? { standalone: '1' } : {}) };
  get('GET /api/paste', query).then(
    (value) => {
      if (run.paste !== state) return;
      state[which] = value.message;
      redraw(run);
    },
    (error) => {
      if (run.paste !== state) return;
      if (which === 'standalone') state.standaloneAsked = false;
      else run.paste = undefined;
      showError(error);
    },
  );
}

// Once the run is drawn: the step brought into view when its message first shows, and the focus given where the page
// asked for it (Copy, the reply box) — unless the reader is busy in another box, such as a filter or a draft question.
/** @param {Run} run */
export function afterDrawing(run) {
  const id = run.view.id;
  const step = document.getElementById(`paste-${id}`);
  if (step === null) return;
  if (run.paste !== undefined && !run.paste.shown && run.paste.message !== undefined) {
    run.paste.shown = true;
    // All of it in view, the log above it too where there is room; a step taller than the window from its top.
    step.scrollIntoView({ block: 'nearest' });
  }
  const wanted = run.focus === undefined ? null : document.getElementById(`${run.focus}-${id}`);
  if (wanted === null || wanted.matches(':disabled')) return;
  run.focus = undefined;
  const active = document.activeElement;
  const busy =
    active instanceof HTMLElement &&
    !step.contains(active) &&
    active.matches('input, textarea, select') &&
    !(active instanceof HTMLTextAreaElement && active.id === 'question' && active.value === '');
  if (!busy) wanted.focus();
}

// A paste where no text box has the focus (the page itself, a button) while a step waits goes into its reply box:
// the reader back from the chat presses Ctrl+V wherever the page left them.
/** @param {ClipboardEvent} event */
export function catchPaste(event) {
  const target = event.target;
  if (target instanceof HTMLElement && (target.isContentEditable || target.matches('input, textarea, select'))) return;
  const box = document.querySelector('.paste textarea.reply');
  const text = event.clipboardData?.getData('text/plain') ?? '';
  if (!(box instanceof HTMLTextAreaElement) || text === '') return;
  event.preventDefault();
  box.value = text;
  box.dispatchEvent(new Event('input'));
  box.focus();
}
