// The extension's worker: the connections to the pults it is paired with (ws://127.0.0.1:<port>/extension, each proven
// both ways before anything else is said), the chat tabs it reports to them, and each step a pult gives it, worked in
// one chat tab by chat.js. It holds the pairing keys (in the extension's own storage, which no page can read) and never
// gives them, or anything of a pult, to a chat page: chat.js gets the message to type and the site's selectors only.

import { isRecord, matches } from './match.js';

/** @import { PultMessage, ExtensionMessage, SiteData, TabReport } from '../ui/extension-contract.ts' */
/** @import { ExtensionMiss, MissKind } from '../ui/contract.ts' */

// The most characters a reply may have (MAX_TAB_REPLY in ui/extension-contract.ts).
const MAX_TAB_REPLY = 1_000_000;
const VERSION = chrome.runtime.getManifest().version;

/** @typedef {{ pairing: string, key: string, folder: string }} Paired */
/** @typedef {{ ws: WebSocket, proven: boolean, sites: SiteData[], mine: string }} Link */
/** @typedef {{ port: number, job: string, chat: chrome.runtime.Port | undefined, done: boolean }} Job */

/** @type {Map<number, Link>} by the pult's port */
const links = new Map();
/** @type {Map<number, Job>} by tab id */
const jobs = new Map();
/** @type {Map<string, (yes: boolean) => void>} pairings waiting for the person's answer */
const asking = new Map();

/** @returns {Promise<Record<string, Paired>>} */
async function pults() {
  const got = await chrome.storage.local.get('pults');
  return isRecord(got.pults) ? /** @type {Record<string, Paired>} */ (got.pults) : {};
}

async function connectAll() {
  for (const port of Object.keys(await pults())) void connect(Number(port));
}

/** @param {number} port */
async function connect(port) {
  if (links.has(port)) return;
  const paired = (await pults())[String(port)];
  if (paired === undefined || links.has(port)) return;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/extension`);
  /** @type {Link} */
  const link = { ws, proven: false, sites: [], mine: '' };
  links.set(port, link);
  /** @param {ExtensionMessage} message */
  const say = (message) => ws.send(JSON.stringify(message));
  ws.addEventListener('message', (event) => {
    void onPult(port, link, paired, say, event.data).catch(() => ws.close());
  });
  ws.addEventListener('close', (event) => {
    links.delete(port);
    for (const [tab, job] of jobs) if (job.port === port) finish(tab, job);
    // Refused before it was proven: this pult no longer knows the pairing (its state was deleted). Paired again, it
    // connects again; until then nothing is tried.
    if (!link.proven && event.code === 1008) return void forget(port);
    setTimeout(() => void connect(port), 5000);
  });
}

/**
 * @param {number} port @param {Link} link @param {Paired} paired
 * @param {(message: ExtensionMessage) => void} say @param {unknown} data
 */
async function onPult(port, link, paired, say, data) {
  const message = /** @type {unknown} */ (JSON.parse(String(data)));
  if (!isRecord(message)) return;
  const m = /** @type {PultMessage} */ (message);
  if (!link.proven) {
    if (m.type === 'challenge' && typeof m.challenge === 'string') {
      link.mine = random();
      const proof = await hmac(paired.key, `deepwork extension proof\n${port}\n${m.challenge}`);
      return say({ type: 'hello', pairing: paired.pairing, proof, challenge: link.mine, version: VERSION });
    }
    // Whatever answers on the port must prove it holds the key before it is told anything or given a tab.
    if (m.type === 'welcome' && m.proof === (await hmac(paired.key, `deepwork pult proof\n${port}\n${link.mine}`))) {
      link.proven = true;
      link.sites = Array.isArray(m.sites) ? m.sites : [];
      return void reportTabs();
    }
    return link.ws.close();
  }
  if (m.type === 'ping') return say({ type: 'pong' });
  if (m.type === 'sites' && Array.isArray(m.sites)) {
    link.sites = m.sites;
    return void reportTabs();
  }
  if (m.type === 'cancel') {
    for (const [tab, job] of jobs) if (job.port === port && job.job === m.job) finish(tab, job);
    return;
  }
  if (m.type === 'job') return void work(port, link, say, m);
}

// A step in a chat tab: a new chat opened when the message stands on its own, chat.js put into the tab, the message
// given to it, and what it says passed on, under this job's name only.
/**
 * @param {number} port @param {Link} link @param {(message: ExtensionMessage) => void} say
 * @param {Extract<PultMessage, { type: 'job' }>} m
 */
async function work(port, link, say, m) {
  /** @param {MissKind} kind @param {Omit<ExtensionMiss, 'kind'>} [more] */
  const miss = (kind, more = {}) => {
    const job = jobs.get(m.tab);
    if (job?.job === m.job) finish(m.tab, job);
    say({ type: 'miss', job: m.job, miss: { kind, ...more } });
  };
  const site = link.sites.find((s) => s.key === m.site);
  if (site === undefined) return miss('failed', { detail: `no site "${m.site}"` });
  const holder = jobs.get(m.tab);
  if (holder !== undefined && holder.port !== port) return miss('tab-busy');
  if (holder !== undefined) finish(m.tab, holder);
  /** @type {Job} */
  const job = { port, job: m.job, chat: undefined, done: false };
  jobs.set(m.tab, job);
  void reportTabs();
  try {
    const tab = await chrome.tabs.get(m.tab);
    if (tab.url === undefined || !site.match.some((p) => matches(p, tab.url ?? '')))
      return miss('tab-gone', { detail: 'left' });
    if (m.fresh && site.newChat !== undefined) {
      say({ type: 'progress', job: m.job, phase: 'opening', chars: 0 });
      await open(m.tab, site.newChat);
    }
  } catch {
    return miss('tab-gone', { detail: 'closed' });
  }
  if (job.done) return;
  try {
    await chrome.scripting.executeScript({ target: { tabId: m.tab }, files: ['chat.js'] });
  } catch (error) {
    return miss('no-access', { detail: (error instanceof Error ? error.message : String(error)).slice(0, 300) });
  }
  if (job.done) return;
  const chat = chrome.tabs.connect(m.tab, { name: 'deepwork-job' });
  job.chat = chat;
  chat.onMessage.addListener((raw) => {
    if (job.done) return;
    const said = fromChat(raw, m.job);
    if (said === undefined) return;
    if (said.type !== 'progress') finish(m.tab, job);
    say(said);
  });
  // The tab reloaded, went elsewhere or closed while the step ran: the step is the person's.
  chat.onDisconnect.addListener(() => {
    if (!job.done) miss('tab-gone', { detail: 'reloaded' });
  });
  chat.postMessage({ site, message: m.message, automatic: m.automatic });
}

// What chat.js says, checked: it runs in the chat's page, so it is taken as the page's words, bounded, and only under
// the name of the job its tab was given.
/** @param {unknown} raw @param {string} job @returns {ExtensionMessage | undefined} */
function fromChat(raw, job) {
  if (!isRecord(raw)) return undefined;
  if (raw.type === 'progress' && typeof raw.phase === 'string' && typeof raw.chars === 'number')
    return /** @type {ExtensionMessage} */ ({ type: 'progress', job, phase: raw.phase, chars: raw.chars });
  if (raw.type === 'reply' && typeof raw.text === 'string')
    return raw.text.length > MAX_TAB_REPLY
      ? { type: 'miss', job, miss: { kind: 'too-large', detail: String(raw.text.length) } }
      : { type: 'reply', job, text: raw.text };
  if (raw.type === 'miss' && isRecord(raw.miss) && typeof raw.miss.kind === 'string') {
    const { kind, selector, detail } = raw.miss;
    return {
      type: 'miss',
      job,
      miss: /** @type {ExtensionMiss} */ ({
        kind,
        ...(typeof selector === 'string' ? { selector: selector.slice(0, 2000) } : {}),
        ...(typeof detail === 'string' ? { detail: detail.slice(0, 500) } : {}),
      }),
    };
  }
  return undefined;
}

/** @param {number} tab @param {Job} job */
function finish(tab, job) {
  job.done = true;
  if (jobs.get(tab) === job) jobs.delete(tab);
  job.chat?.disconnect();
  void reportTabs();
}

// Opens `url` in the tab and waits until it has loaded.
/** @param {number} tab @param {string} url */
function open(tab, url) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('not loaded')), 30_000);
    /** @param {number} id @param {{ status?: string }} change */
    const onUpdated = (id, change) => {
      if (id !== tab || change.status !== 'complete') return;
      chrome.tabs.onUpdated.removeListener(onUpdated);
      clearTimeout(timer);
      resolve(undefined);
    };
    chrome.tabs.onUpdated.addListener(onUpdated);
    chrome.tabs.update(tab, { url }).catch(reject);
  });
}

// The chat tabs of each pult's sites, told to every proven pult; a tab that another pult's step holds is marked.
async function reportTabs() {
  const all = await chrome.tabs.query({});
  for (const [port, link] of links) {
    if (!link.proven) continue;
    /** @type {TabReport[]} */
    const tabs = [];
    for (const tab of all) {
      const site = link.sites.find((s) => s.match.some((p) => matches(p, tab.url ?? '')));
      if (tab.id === undefined || site === undefined) continue;
      const holder = jobs.get(tab.id);
      tabs.push({
        id: tab.id,
        site: site.key,
        title: tab.title ?? '',
        other: holder !== undefined && holder.port !== port,
      });
    }
    link.ws.send(JSON.stringify({ type: 'tabs', tabs }));
  }
}

// Pairing with the pult whose page gave the code: the person confirms it in a window of the extension's own; then the
// code is traded for a key on the pult's port, and kept for that port.
/** @param {number} port @param {string} code @returns {Promise<{ ok: boolean, error?: string, folder?: string }>} */
async function pair(port, code) {
  const id = random();
  const yes = new Promise((resolve) => asking.set(id, resolve));
  await chrome.windows.create({
    url: chrome.runtime.getURL(`confirm.html?port=${port}&id=${id}`),
    type: 'popup',
    width: 460,
    height: 260,
    focused: true,
  });
  if (!(await yes)) return { ok: false, error: 'refused' };
  const paired = await new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/extension?pair=${encodeURIComponent(code)}`);
    ws.addEventListener('message', (event) => {
      const m = /** @type {unknown} */ (JSON.parse(String(event.data)));
      if (isRecord(m) && m.type === 'paired' && typeof m.pairing === 'string' && typeof m.key === 'string')
        resolve({ pairing: m.pairing, key: m.key, folder: typeof m.folder === 'string' ? m.folder : '' });
    });
    ws.addEventListener('close', () => reject(new Error('the pult refused the code; press Pair again')));
  });
  const all = await pults();
  await chrome.storage.local.set({ pults: { ...all, [String(port)]: paired } });
  links.get(port)?.ws.close();
  void connect(port);
  return { ok: true, folder: /** @type {Paired} */ (paired).folder };
}

/** @param {number} port */
async function forget(port) {
  const { [String(port)]: _gone, ...rest } = await pults();
  await chrome.storage.local.set({ pults: rest });
}

/** @param {string} key @param {string} text */
async function hmac(key, text) {
  const enc = new TextEncoder();
  const k = await crypto.subtle.importKey('raw', enc.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', k, enc.encode(text))));
}

function random() {
  return base64url(crypto.getRandomValues(new Uint8Array(18)));
}

/** @param {Uint8Array} bytes */
function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

chrome.runtime.onMessage.addListener((message, sender, respond) => {
  if (sender.id !== chrome.runtime.id || !isRecord(message)) return undefined;
  if (message.type === 'wake') return void connectAll();
  // The person's answer, from the extension's own confirm window only.
  if (message.type === 'confirm' && sender.url?.startsWith(chrome.runtime.getURL('confirm.html')) === true) {
    asking.get(String(message.id))?.(message.yes === true);
    asking.delete(String(message.id));
    return undefined;
  }
  // A code from pult.js, on the top page of a local address: the port is the page's, as the browser says it.
  if (message.type === 'pair' && typeof message.code === 'string' && sender.frameId === 0 && sender.url !== undefined) {
    const url = new URL(sender.url);
    if (url.protocol !== 'http:' || (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost')) return undefined;
    pair(Number(url.port || 80), message.code).then(respond, (error) =>
      respond({ ok: false, error: error instanceof Error ? error.message : String(error) }),
    );
    return true;
  }
  return undefined;
});
chrome.tabs.onUpdated.addListener((_id, change) => {
  if (change.status === 'complete' || change.url !== undefined) void reportTabs();
});
chrome.tabs.onRemoved.addListener(() => void reportTabs());
chrome.runtime.onStartup.addListener(() => void connectAll());
chrome.runtime.onInstalled.addListener(() => void connectAll());
void connectAll();
