// The browser extension as the pult shows it: whether it is in this browser (its script marks the page), paired and
// connected (the server says), which chat tabs it sees and which one takes the steps; the Pair button; and the line
// above a step it works. The pairing code goes to the extension's script on this page only (postMessage to this
// page's own origin); the token never leaves the page.

import { post } from './api.js';
import { h, showError } from './dom.js';
import { t } from './strings.js';

/** @import { ExtensionState, ExtensionStep } from '../contract.ts' */

/** @type {ExtensionState | undefined} */
let known;
// The pairing as this page asked for it: under way (the person confirms in the extension's window), or refused and why.
/** @type {{ kind: 'idle' } | { kind: 'asking' } | { kind: 'refused', why: string }} */
let pairing = { kind: 'idle' };
let redraw = () => {};

// Draws the state line again whenever the extension's state changes (bridge.js's showState).
/** @param {() => void} draw */
export function onExtensionChange(draw) {
  redraw = draw;
}

/** @param {ExtensionState} state */
export function takeExtension(state) {
  known = state;
  if (state.connected) pairing = { kind: 'idle' };
  redraw();
}

function present() {
  return document.documentElement.dataset.deepworkExtension !== undefined;
}

window.addEventListener('message', (event) => {
  if (event.source !== window || event.origin !== location.origin) return;
  const data = /** @type {unknown} */ (event.data);
  if (typeof data !== 'object' || data === null || !('type' in data) || data.type !== 'deepwork-paired') return;
  const answer = 'answer' in data && typeof data.answer === 'object' && data.answer !== null ? data.answer : {};
  const ok = 'ok' in answer && answer.ok === true;
  const why = 'error' in answer && typeof answer.error === 'string' ? answer.error : 'no answer';
  pairing = ok ? { kind: 'idle' } : { kind: 'refused', why };
  redraw();
});

async function pair() {
  pairing = { kind: 'asking' };
  redraw();
  try {
    const { code } = await post('POST /api/extension/pair', {});
    window.postMessage({ type: 'deepwork-pair', code }, location.origin);
  } catch (error) {
    pairing = { kind: 'idle' };
    redraw();
    showError(error);
  }
}

/** @param {{ tab?: number | null, automatic?: boolean }} change */
function settle(change) {
  void post('POST /api/extension/settings', change).then(takeExtension).catch(showError);
}

// The state line for the extension: its pill (ready, idle or down) and what to do.
/** @returns {{ state: 'ready' | 'idle' | 'down', message: Array<Node | string> }} */
export function extensionState() {
  const problems = (known?.problems ?? []).map((p) =>
    h('span', { class: 'ext-problem' }, [t('extProblem')(p.file, p.problem)]),
  );
  if (known?.connected !== true) {
    if (!present()) return { state: 'down', message: [t('extAbsent'), ...problems] };
    const button = h('button', { type: 'button', class: 'choose', id: 'ext-pair' }, [t('extPair')]);
    button.addEventListener('click', () => void pair());
    const said =
      pairing.kind === 'asking'
        ? t('extAsking')
        : pairing.kind === 'refused'
          ? t('extRefused')(pairing.why)
          : t('extUnpaired');
    return { state: 'idle', message: [said, ' ', button, ...problems] };
  }
  const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: 'ext-automatic' }));
  box.checked = known.automatic;
  box.addEventListener('change', () => settle({ automatic: box.checked }));
  const automatic = h('label', { class: 'ext-automatic' }, [box, ' ', t('extAutomatic')]);
  if (known.tabs.length === 0) return { state: 'idle', message: [t('extNoTab'), ' ', automatic, ...problems] };
  const select = /** @type {HTMLSelectElement} */ (
    h('select', { id: 'ext-tab', 'aria-label': t('extReady') }, [
      h('option', { value: '' }, [t('extFirstFree')]),
      ...known.tabs.map((tab) =>
        h('option', { value: String(tab.id) }, [
          `${tab.name}: ${tab.title.slice(0, 60)}${tab.other ? t('extOther') : ''}`,
        ]),
      ),
    ])
  );
  // A chosen tab that has closed is no choice: the first free one takes the steps, as the server does.
  select.value = known.tabs.some((tab) => tab.id === known?.tab) ? String(known.tab) : '';
  select.addEventListener('change', () => settle({ tab: select.value === '' ? null : Number(select.value) }));
  return { state: 'ready', message: [t('extReady'), ' ', select, ' ', automatic, ...problems] };
}

// The line above a step the extension works: where, and how far it got; when it missed, why, and that the
// copy-and-paste step below has the message ready.
/** @param {ExtensionStep} step */
export function extensionLine(step) {
  const where = step.site === '' ? '' : `${step.site}${step.tab === '' ? '' : ` («${step.tab.slice(0, 60)}»)`}: `;
  if (step.phase === 'missed' && step.miss !== undefined)
    return h('p', { class: 'ext-step missed', role: 'alert' }, [
      `${where || `${t('extensionOption')}: `}${t('extMiss')(step.miss)}. `,
      t('extMissed'),
    ]);
  return h('p', { class: 'ext-step', role: 'status' }, [
    `${where}${t('extPhase')(step.phase, step.chars)} `,
    h('span', { class: 'ext-or' }, [t('extOrPaste')]),
  ]);
}
