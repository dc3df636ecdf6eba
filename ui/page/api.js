// The pult's routes, called with the token, typed by the contract (ui/contract.ts). The token goes only to a server
// that has proven it holds it (connection.js); a route's refusal becomes an Error with the server's message.

import { isRecord } from './dom.js';
import { saidText } from './said.js';
import { t } from './strings.js';

/** @import { GetRoute, PostRoute, Routes } from '../contract.ts' */

// The key this page holds. `proven`: whatever answers on the port proved it holds the token, since the last socket
// closed. `locked`: the page cannot go on (its link was refused, or deepwork changed its key) and sends nothing more.
export const key = { token: '', proven: false, locked: false };

// Told when a route cannot be reached at all: deepwork has stopped (connection.js says so and reconnects).
export const unreachable = new EventTarget();

/**
 * @template {GetRoute} R
 * @param {R} route
 * @param {Routes[R]['query']} [query]
 * @returns {Promise<Routes[R]['response']>}
 */
export function get(route, query) {
  const search = query === undefined ? '' : `?${new URLSearchParams(query)}`;
  return /** @type {Promise<Routes[R]['response']>} */ (call('GET', `${pathOf(route)}${search}`, undefined));
}

/**
 * @template {PostRoute} R
 * @param {R} route
 * @param {Routes[R]['body']} body
 * @returns {Promise<Routes[R]['response']>}
 */
export function post(route, body) {
  return /** @type {Promise<Routes[R]['response']>} */ (call('POST', pathOf(route), body));
}

/** @param {string} route */
function pathOf(route) {
  return route.slice(route.indexOf(' ') + 1);
}

// The answer as JSON. It is taken as the route's type unchecked: it comes from a server that proved it holds the
// token, whose route table is typed over the same contract.
/**
 * @param {'GET' | 'POST'} method
 * @param {string} path
 * @param {unknown} body
 * @returns {Promise<unknown>}
 */
async function call(method, path, body) {
  // Until the server on this port has proven it is this page's pult, the token is not sent.
  if (!key.proven) throw new Error(key.locked ? t('noLink') : t('notRunning'));
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: { 'x-deepwork-token': key.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    unreachable.dispatchEvent(new Event('unreachable'));
    throw new Error(t('notRunning'));
  }
  /** @type {unknown} */
  const value = await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(refusalOf(value, res.status));
  return value;
}

// A route's refusal in the reader's language when the server gave it as a code (RouteError.said), else its words.
/** @param {unknown} value @param {number} status */
function refusalOf(value, status) {
  if (!isRecord(value)) return t('httpError')(status);
  const said = /** @type {import('../contract.ts').RouteError['said']} */ (
    isRecord(value.said) && typeof value.said.code === 'string' ? value.said : undefined
  );
  if (said !== undefined) return saidText(said);
  return typeof value.error === 'string' ? value.error : t('httpError')(status);
}
