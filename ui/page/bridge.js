// The bridge a question goes to, and its state: ready, idle or down as the server's check says, or ready for the
// demo and for copy and paste, which need nothing started.

import { get } from './api.js';
import { $, $of, setText } from './dom.js';
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
  setText(message, lastCheck.message + (state === 'down' ? ` ${t('downHint')}` : ''));
}

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
