// A copy-and-paste step: the message with its Copy button, and the box for the model's reply as pasted back. The
// person at the page is the bridge: the message is fetched once per step, and what is typed survives the redraws.

import { get, post } from './api.js';
import { h, showError } from './dom.js';
import { t } from './strings.js';

/** @import { PasteWaiting } from '../contract.ts' */
/** @import { Run } from './state.js' */

/** @param {Run} run @param {number} step @param {PasteWaiting} paste @param {(run: Run) => void} redraw */
export function pasteView(run, step, paste, redraw) {
  const id = run.view.id;
  if (run.paste?.step !== step) fetchMessage(run, step, redraw);
  const message = run.paste?.message;
  const text = /** @type {HTMLTextAreaElement} */ (
    h('textarea', { class: 'message', readonly: '', rows: '5', 'aria-label': t('messageLabel') })
  );
  text.value = message ?? t('loading');
  const copy = h('button', { type: 'button', class: 'primary' }, [t('copyMessage')]);
  copy.addEventListener('click', () => {
    const done = () => {
      run.note = { kind: 'copied' };
      redraw(run);
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
  const note = h('span', { class: 'small muted', role: 'status' }, [
    run.note === undefined ? '' : run.note.kind === 'copied' ? t('copied') : run.note.message,
  ]);
  const reply = /** @type {HTMLTextAreaElement} */ (h('textarea', { id: `reply-${id}`, rows: '6' }));
  reply.value = run.draft;
  reply.addEventListener('input', () => (run.draft = reply.value));
  const send = h('button', { type: 'button', class: 'primary' }, [t('sendReply')]);
  const sendReply = () => {
    void post('POST /api/paste', { run: id, reply: reply.value }).then(
      () => {
        run.draft = '';
        run.note = undefined;
      },
      (error) => {
        run.note = { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
        redraw(run);
      },
    );
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
  parts.push(
    h('div', { class: 'row' }, [copy, note]),
    text,
    h('p', { class: 'small muted' }, [t('pasteHow')]),
    h('label', { for: `reply-${id}` }, [t('replyLabel')]),
    reply,
    h('div', { class: 'row' }, [send]),
  );
  return h(
    'div',
    { class: 'paste', role: 'group', 'aria-label': t('pasteStep')(step, paste.chars, paste.tokens) },
    parts,
  );
}

// Asks for the step's message once; the run is drawn again when it comes. A refusal is said, and the next drawing of
// the run asks again.
/** @param {Run} run @param {number} step @param {(run: Run) => void} redraw */
function fetchMessage(run, step, redraw) {
  run.paste = { step, message: undefined };
  get('GET /api/paste', { run: String(run.view.id) }).then(
    (value) => {
      if (run.paste?.step !== step) return;
      run.paste.message = value.message;
      redraw(run);
    },
    (error) => {
      if (run.paste?.step === step) run.paste = undefined;
      showError(error);
    },
  );
}
