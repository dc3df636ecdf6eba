// The bridge a question goes to, and its state: ready, idle or down as the server's check says, or ready for the
// demo and for copy and paste, which need nothing started (and are offered when the configured bridge is down).

import { get } from './api.js';
import { $, $of, h } from './dom.js';
import { saidView } from './said.js';
import { saveDraft } from './drafts.js';
import { extensionState, onExtensionChange } from './extension.js';
import { pult } from './state.js';
import { t } from './strings.js';

/** @import { BridgeCheck, BridgeSettings } from '../contract.ts' */

// The configured bridge in the Bridge list: short enough to be read whole in the header (the model, and the host's
// name and port), the whole URL on hover.
/** @param {BridgeSettings} settings */
export function showConfigured(settings) {
  pult.bridge = settings;
  const option = /** @type {HTMLOptionElement | null} */ (
    $of('bridge-choice', HTMLSelectElement).querySelector('option[value="configured"]')
  );
  if (option === null) return;
  let where = settings.host;
  try {
    where = new URL(settings.host).host;
  } catch {
    // Not a URL: shown as it is.
  }
  option.textContent = t('configuredBridge')(settings.model, where);
  option.title = t('configuredBridge')(settings.model, settings.host);
  $('bridge-choice').title = option.title;
}

// The last check of the configured bridge; undefined while one is under way.
/** @type {Pick<BridgeCheck, 'state' | 'said'> | undefined} */
let lastCheck;

export function showState() {
  const choice = $of('bridge-choice', HTMLSelectElement).value;
  // Host and model are the configured bridge's: changed only while it is the one chosen.
  $('bridge-edit').hidden = choice !== 'configured';
  const pill = $('bridge-state');
  const message = $('bridge-message');
  // Only a configured bridge that is down is said as an alert (below).
  message.setAttribute('role', 'status');
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
  message.replaceChildren(saidView(lastCheck.said));
  // Down is said as an alert: nothing asked of the configured bridge will be answered.
  if (state === 'down') message.setAttribute('role', 'alert');
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
    lastCheck = { state: 'down', said: { code: 'text', text: error instanceof Error ? error.message : String(error) } };
  }
  showState();
}
