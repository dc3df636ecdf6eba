// The bridge a question goes to, and its state: ready, idle or down as the server's check says, or ready for the
// demo and for copy and paste, which need nothing started (and are offered when the configured bridge is down).

import { get } from './api.js';
import { $, $of, fromServer, h } from './dom.js';
import { saveDraft } from './drafts.js';
import { extensionState, onExtensionChange } from './extension.js';
import { pult } from './state.js';
import { t } from './strings.js';

/** @import { BridgeCheck } from '../contract.ts' */

// The last check of the configured bridge; undefined while one is under way.
/** @type {Pick<BridgeCheck, 'state' | 'message'> | undefined} */
let lastCheck;

export function showState() {
  const choice = $of('bridge-choice', HTMLSelectElement).value;
  const pill = $('bridge-state');
  const message = $('bridge-message');
  if (!pult.connected) {
    pill.textContent = t('gone');
    pill.className = 'state gone';
    message.textContent = '';
    return;
  }
  if (choice === 'demo') {
    pill.textContent = t('ready');
    pill.className = 'state ready';
    message.textContent = t('demoState');
    return;
  }
  if (choice === 'extension') {
    const { state, message: said } = extensionState();
    pill.textContent = t(state);
    pill.className = `state ${state}`;
    message.replaceChildren(...said);
    return;
  }
  if (choice === 'paste') {
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
  const state =
    lastCheck.state === 'ready' || lastCheck.state === 'idle' || lastCheck.state === 'down' ? lastCheck.state : 'down';
  pill.textContent = t(state);
  pill.className = `state ${state}`;
  message.replaceChildren(fromServer(lastCheck.message));
  // With no model to reach, the two bridges that need nothing started, one press away.
  if (state === 'down')
    message.append(h('span', { class: 'offer' }, [t('downHint'), ' ', choose('paste'), ' ', choose('demo')]));
}

// A button that chooses a bridge of the Bridge list, named as the list names it.
/** @param {'paste' | 'demo'} bridge */
function choose(bridge) {
  const button = h('button', { type: 'button', class: 'choose' }, [
    t(bridge === 'paste' ? 'pasteOption' : 'demoOption'),
  ]);
  button.addEventListener('click', () => {
    $of('bridge-choice', HTMLSelectElement).value = bridge;
    saveDraft();
    showState();
  });
  return button;
}

onExtensionChange(() => {
  if ($of('bridge-choice', HTMLSelectElement).value === 'extension') showState();
});

export async function check() {
  // Until the answer comes, nothing on the page says ready, idle or down.
  lastCheck = undefined;
  showState();
  try {
    lastCheck = await get('GET /api/check');
  } catch (error) {
    lastCheck = { state: 'down', message: error instanceof Error ? error.message : String(error) };
  }
  showState();
}
