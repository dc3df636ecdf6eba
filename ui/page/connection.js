// The key and the connection: a one-time link traded for the token, proof that whatever answers on the port holds it
// before it gets anything, the WebSocket and its messages, and deepwork gone and back.

import { get, key, post, unreachable } from './api.js';
import { check, showConfigured, showState } from './bridge.js';
import { takeConversations } from './conversations.js';
import { takeExtension } from './extension.js';
import { $, isRecord, setText } from './dom.js';
import { showButtons, showRun, showRuns, takeProgress } from './runs.js';
import { conversations, pult, runs } from './state.js';
import { t } from './strings.js';

/** @import { LinkRefusal, PageMessage, ServerMessage } from '../contract.ts' */

// deepwork opens and prints links with a one-time code, never the token (a command line is readable by every user of
// the machine, a screen by whoever sees it). The page trades the code for the token once, keeps it for this tab
// (sessionStorage: a reload keeps it, other tabs and sites do not see it) and takes the code out of the address bar.
// Before the token goes anywhere, whatever answers on the port proves it holds it: a pult that stopped may leave its
// port to another program, and a page that reconnects by itself would otherwise hand that program the token.
const TOKEN_KEY = 'deepwork.token';

// The socket's comings and goings: the wait before the next try (doubling to 5 s), and the timer that says deepwork
// stopped if it does not come back soon.
/** @type {{ retry: number, goneTimer: number, socket: WebSocket | undefined }} */
const link = { retry: 500, goneTimer: 0, socket: undefined };

// The page looked at again (its tab shown, its window focused): every card is judged against the disk as it is now,
// since the reader may have edited a file in between.
export function look() {
  if (link.socket?.readyState === WebSocket.OPEN)
    link.socket.send(JSON.stringify(/** @satisfies {PageMessage} */ ({ type: 'look' })));
}

/** @returns {Promise<{ kind: 'token' } | { kind: 'refused', reason: LinkRefusal | 'none' }>} */
export async function takeToken() {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const given = params.get('token');
  // Neither the code nor a token stays in the address bar, in the history, or in what a reload sends.
  if (code !== null || given !== null) history.replaceState(null, '', '/');
  /** @param {string} value */
  const keep = (value) => {
    key.token = value;
    try {
      sessionStorage.setItem(TOKEN_KEY, value);
    } catch {
      // Not kept: this tab works until it is reloaded.
    }
    return /** @type {const} */ ({ kind: 'token' });
  };
  if (given !== null) return keep(given);
  if (code !== null) {
    /** @type {unknown} */
    let value;
    let ok = false;
    try {
      const res = await fetch('/api/exchange', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
      ok = res.ok;
      value = await res.json().catch(() => undefined);
    } catch {
      throw new Error(t('notRunning'));
    }
    if (ok && isRecord(value) && typeof value.token === 'string') return keep(value.token);
    const reason =
      isRecord(value) && (value.reason === 'used' || value.reason === 'expired') ? value.reason : 'unknown';
    return { kind: 'refused', reason };
  }
  let kept = null;
  try {
    kept = sessionStorage.getItem(TOKEN_KEY);
  } catch {
    // No storage: as good as none kept.
  }
  return kept === null || kept === '' ? { kind: 'refused', reason: 'none' } : keep(kept);
}

/** @param {Uint8Array} bytes */
function base64url(bytes) {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

// Asks whatever answers on this port to prove it holds the token: an HMAC of a fresh challenge keyed by the token, as
// `proofOf` in ui/security.ts makes it. 'down': nothing answers.
/** @returns {Promise<'ours' | 'foreign' | 'down'>} */
export async function prove() {
  const challenge = base64url(crypto.getRandomValues(new Uint8Array(18)));
  let res;
  try {
    res = await fetch(`/api/prove?challenge=${challenge}`, { cache: 'no-store' });
  } catch {
    return 'down';
  }
  try {
    const value = /** @type {unknown} */ (await res.json());
    if (!isRecord(value) || typeof value.instance !== 'string' || typeof value.proof !== 'string') return 'foreign';
    const encoder = new TextEncoder();
    const hmac = await crypto.subtle.importKey(
      'raw',
      encoder.encode(key.token),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const mac = await crypto.subtle.sign(
      'HMAC',
      hmac,
      encoder.encode(`deepwork pult proof\n${value.instance}\n${challenge}`),
    );
    return base64url(new Uint8Array(mac)) === value.proof ? 'ours' : 'foreign';
  } catch {
    return 'foreign';
  }
}

// The page cannot go on: it says why and what to do, and stops reconnecting.
/** @param {string} text */
export function lockOut(text) {
  key.locked = true;
  key.proven = false;
  pult.connected = false;
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Nothing kept.
  }
  const banner = $('banner');
  banner.textContent = text;
  banner.hidden = false;
  showState();
  showButtons();
}

function gone() {
  if (!pult.connected) return;
  pult.connected = false;
  showState();
  showButtons();
  const banner = $('banner');
  setText(banner, t('goneBanner')(pult.root));
  banner.hidden = false;
}
unreachable.addEventListener('unreachable', gone);

function reconnect() {
  window.setTimeout(() => void connect(), link.retry);
  link.retry = Math.min(link.retry * 2, 5000);
}

// Opens the socket to the pult, once it has proven itself; on a close, tries again until it is back.
export async function connect() {
  if (key.locked) return;
  const peer = await prove();
  if (peer !== 'ours') {
    // Not back yet, or something else holds the port now: try again later, sending nothing.
    if (peer === 'foreign') {
      gone();
      const banner = $('banner');
      banner.textContent = t('foreignPult');
      banner.hidden = false;
    }
    reconnect();
    return;
  }
  key.proven = true;
  const ws = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(key.token)}`);
  link.socket = ws;
  ws.addEventListener('open', () => {
    link.retry = 500;
    ws.send(JSON.stringify(/** @satisfies {PageMessage} */ ({ type: 'hello' })));
    if (!pult.connected) void back();
  });
  ws.addEventListener('message', (event) => {
    /** @type {unknown} */
    let message;
    try {
      message = JSON.parse(String(event.data));
    } catch {
      return;
    }
    if (isServerMessage(message)) take(message);
  });
  ws.addEventListener('close', () => {
    // Whatever answers next on this port proves itself again before it gets the token.
    key.proven = false;
    if (key.locked) return;
    // A socket that closes at once is a restart or a stop; say so only if it does not come back quickly.
    window.clearTimeout(link.goneTimer);
    link.goneTimer = window.setTimeout(gone, 1500);
    reconnect();
  });
}

// A message as the contract has it, as far as the page relies on it: its kind and the fields that kind is read by.
/** @param {unknown} message @returns {message is ServerMessage} */
function isServerMessage(message) {
  if (!isRecord(message)) return false;
  switch (message.type) {
    case 'run':
      return isRecord(message.run) && typeof message.run.id === 'number';
    case 'progress':
      return (
        typeof message.id === 'number' && typeof message.received === 'number' && typeof message.thinking === 'number'
      );
    case 'conversations':
      return Array.isArray(message.list) && (message.current === undefined || typeof message.current === 'string');
    case 'extension':
      return typeof message.connected === 'boolean' && Array.isArray(message.tabs) && Array.isArray(message.problems);
    case 'rekeyed':
      return true;
    case 'error':
      return typeof message.message === 'string';
    default:
      return false;
  }
}

/** @param {ServerMessage} message */
function take(message) {
  switch (message.type) {
    case 'rekeyed':
      return lockOut(t('rekeyed'));
    case 'run':
      return showRun(message.run);
    case 'conversations':
      return takeConversations(message);
    case 'progress':
      return takeProgress(message.id, message.received, message.thinking);
    case 'extension':
      return takeExtension(message);
    // An answer to a message the page does not send: nothing to show.
    case 'error':
      return undefined;
  }
}

// deepwork answers again: the same process (a network blip) or a new one, whose runs start afresh.
async function back() {
  window.clearTimeout(link.goneTimer);
  const showing = conversations.current;
  const state = await get('GET /api/ping').catch(() => undefined);
  pult.connected = true;
  $('banner').hidden = true;
  if (state !== undefined && pult.instance !== '' && state.instance !== pult.instance) {
    pult.instance = state.instance;
    runs.clear();
    // Another start may serve another bridge (a flag, an edited config.json).
    await get('GET /api/state')
      .then((s) => showConfigured(s.bridge))
      .catch(() => undefined);
    if (showing !== undefined)
      await post('POST /api/conversation/open', { id: showing })
        .then(takeConversations)
        .catch(() => undefined);
    showRuns();
  }
  if (state !== undefined) pult.instance = state.instance;
  showButtons();
  void check();
}
