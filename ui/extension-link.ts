// The pult's side of the browser extension (extension/): pairing, the proven connection on /extension, the chat tabs it
// reports, and the steps of a question it works in one of them. A step is the copy-and-paste bridge's step, with the
// person's two copies done by the extension; whatever misses, the step stays the pult's copy-and-paste step with its
// message ready, and the page says what missed.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { limitNotice } from '../bridge/chat-sites.ts';
import type { PasteStep } from '../bridge/paste.ts';
import { loadSites } from '../bridge/sites.ts';
import { isRecord } from '../common/unknown.ts';
import { messageOf } from '../common/errors.ts';
import { checkHost, refuseUpgrade, tokenMatches } from './security.ts';
import type { ChatTab, ExtensionMiss, ExtensionState, ExtensionStep, Outgoing, RunView } from './contract.ts';
import { MAX_TAB_REPLY, type PultMessage, type TabReport } from './extension-contract.ts';
import { extensionMessage } from './extension-messages.ts';

const CODE_LIFE_MS = 2 * 60_000;
// A reply of MAX_TAB_REPLY characters, each escaped in JSON (up to six bytes), and the message around it.
const MAX_FRAME = MAX_TAB_REPLY * 6 + 4096;
// The handshake's answer must come within this; a socket that says nothing is let go.
const HELLO_MS = 10_000;

export type LinkOptions = {
  port: () => number;
  instance: string;
  // deepwork's state folder (the pairings' keys, readable by the user only) and its sites folder.
  stateDir: string;
  sitesDir: string | undefined;
  folder: string;
  automatic: boolean;
  runs: () => readonly RunView[];
  // To the pages: the extension's state, a run whose step changed.
  send: (message: Outgoing) => void;
  // The reply to a run's step, as the copy-and-paste bridge takes it (cleaned, the chat's notice refused).
  supply: (runId: number, reply: string, newChat: boolean) => void;
};

type Job = { id: string; runId: number; step: PasteStep; tab: number; fresh: boolean; view: ExtensionStep };
type Pairing = { key: string; origin: string };

export type ExtensionLink = ReturnType<typeof createExtensionLink>;

export function createExtensionLink(o: LinkOptions) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME });
  const codes = new Map<string, number>();
  let socket: WebSocket | undefined;
  let tabs: TabReport[] = [];
  let chosen: number | undefined;
  let automatic = o.automatic;
  let job: Job | undefined;
  // The tab each chat (of the copy-and-paste bridge) was last sent to: a step in another tab starts a new chat there.
  const chatTabs = new WeakMap<object, number>();

  const state = (): ExtensionState => {
    const sites = loadSites(o.sitesDir);
    const names = new Map(sites.sites.map((s) => [s.key, s.name]));
    const list: ChatTab[] = tabs.map((t) => ({ ...t, name: names.get(t.site) ?? t.site }));
    return {
      type: 'extension',
      connected: socket !== undefined,
      tabs: list,
      tab: chosen,
      automatic,
      problems: sites.problems,
    };
  };
  const tell = () => o.send(state());
  const say = (ws: WebSocket, message: PultMessage) => ws.send(JSON.stringify(message));

  const update = (j: Job, change: Partial<ExtensionStep>) => {
    j.view = { ...j.view, ...change };
    const run = o.runs().find((r) => r.id === j.runId);
    if (run?.waiting === undefined) return;
    run.waiting.extension = j.view;
    o.send({ type: 'run', run });
  };
  const miss = (j: Job, m: ExtensionMiss) => {
    if (job === j) job = undefined;
    update(j, { phase: 'missed', miss: m });
  };

  // The extension's WebSocket: only from an extension's origin (a web page cannot send one), on a local Host; a pairing
  // code, or the handshake. Refused before the upgrade otherwise, with what happened.
  function upgrade(req: http.IncomingMessage, raw: Duplex, head: Buffer, url: URL) {
    const host = checkHost(req.headers.host, o.port());
    if (!host.ok) return refuseUpgrade(raw, host.status, host.message);
    const origin = req.headers.origin ?? '';
    if (!/^(chrome|moz)-extension:\/\/[A-Za-z0-9-]{1,64}$/.test(origin))
      return refuseUpgrade(raw, 403, `Blocked: ${origin || 'no Origin'} is not a browser extension.`);
    const code = url.searchParams.get('pair');
    if (code !== null && !takeCode(code))
      return refuseUpgrade(
        raw,
        403,
        'Forbidden: this pairing code is unknown, used or expired. Press Pair in the pult again.',
      );
    try {
      wss.handleUpgrade(req, raw, head, (ws) => (code === null ? handshake(ws, origin) : pair(ws, origin)));
    } catch (error) {
      refuseUpgrade(raw, 400, `Bad request: ${messageOf(error)}`);
    }
  }

  function takeCode(code: string): boolean {
    const now = Date.now();
    for (const [c, expires] of codes) if (expires <= now) codes.delete(c);
    const found = [...codes.keys()].find((c) => tokenMatches(code, c));
    if (found === undefined) return false;
    codes.delete(found);
    return true;
  }

  function pair(ws: WebSocket, origin: string): void {
    ws.on('error', () => ws.terminate());
    const id = crypto.randomBytes(12).toString('base64url');
    const key = crypto.randomBytes(32).toString('base64url');
    // The newest pairings are kept: one per browser profile that was paired, within reason.
    const kept = Object.entries(readPairings(o.stateDir)).slice(-19);
    writePairings(o.stateDir, Object.fromEntries([...kept, [id, { key, origin }]]));
    say(ws, { type: 'paired', pairing: id, key, folder: o.folder });
    ws.close(1000, 'Paired.');
  }

  function handshake(ws: WebSocket, origin: string): void {
    ws.on('error', () => ws.terminate());
    const challenge = crypto.randomBytes(18).toString('base64url');
    let proven = false;
    const timer = setTimeout(() => ws.close(1008, 'No hello.'), HELLO_MS);
    say(ws, { type: 'challenge', instance: o.instance, challenge });
    ws.on('close', () => {
      clearTimeout(timer);
      if (socket !== ws) return;
      socket = undefined;
      tabs = [];
      if (job !== undefined) miss(job, { kind: 'absent' });
      tell();
    });
    ws.on('message', (data, binary) => {
      const message = binary ? undefined : extensionMessage(String(data));
      if (message === undefined) return ws.close(1008, 'Not a message of the extension.');
      if (!proven) {
        const pairing = message.type === 'hello' ? readPairings(o.stateDir)[message.pairing] : undefined;
        if (
          message.type !== 'hello' ||
          pairing === undefined ||
          pairing.origin !== origin ||
          !tokenMatches(message.proof, mac(pairing.key, 'extension', o.port(), challenge))
        )
          return ws.close(1008, 'Not paired with this deepwork: press Pair in the pult.');
        proven = true;
        clearTimeout(timer);
        // A browser lets an extension's worker sleep after 30 s without a message; a question may wait longer.
        const ping = setInterval(() => say(ws, { type: 'ping' }), 20_000);
        ping.unref();
        ws.on('close', () => clearInterval(ping));
        const before = socket;
        socket = ws;
        before?.close(1000, 'Another connection of the extension took over.');
        const { sites } = loadSites(o.sitesDir);
        say(ws, {
          type: 'welcome',
          proof: mac(pairing.key, 'pult', o.port(), message.challenge),
          folder: o.folder,
          sites,
        });
        return tell();
      }
      if (ws !== socket) return;
      onMessage(message);
    });
  }

  function onMessage(message: NonNullable<ReturnType<typeof extensionMessage>>) {
    if (message.type === 'tabs') {
      tabs = message.tabs;
      // A chosen tab that closed is forgotten: a new tab may take its id's place only by the person's choice.
      if (!tabs.some((t) => t.id === chosen)) chosen = undefined;
      return tell();
    }
    if (message.type === 'hello' || message.type === 'pong') return;
    // Words for a job that is not the one running (an old one, or a guess) are ignored.
    const j = job;
    if (j === undefined || message.job !== j.id) return;
    if (message.type === 'progress') return update(j, { phase: message.phase, chars: message.chars });
    if (message.type === 'miss') return miss(j, message.miss);
    // A reply: the chat's notice that the message was too long, or an empty one, leaves the step to the person.
    const notice = limitNotice(message.text);
    if (notice !== undefined) return miss(j, { kind: 'too-large', detail: notice });
    if (message.text.trim() === '') return miss(j, { kind: 'no-reply' });
    job = undefined;
    chatTabs.set(j.step.chat, j.tab);
    try {
      o.supply(j.runId, message.text, j.fresh && j.step.standalone !== undefined);
    } catch (error) {
      job = j;
      miss(j, { kind: 'failed', detail: messageOf(error) });
    }
  }

  // A step of a run that uses the extension: sent to the chosen tab (or the first free one) with the message it takes
  // there. In a tab the chat was not in, or when the chat is full, the message that stands on its own, in a new chat.
  function relay(runId: number, step: PasteStep) {
    if (job !== undefined && socket !== undefined) say(socket, { type: 'cancel', job: job.id });
    const free = tabs.filter((t) => !t.other);
    const tab = free.find((t) => t.id === chosen) ?? free[0];
    const fresh = step.standalone === undefined || step.full || chatTabs.get(step.chat) !== tab?.id;
    const message = fresh && step.standalone !== undefined ? step.standalone.message : step.message;
    const view: ExtensionStep = { site: '', tab: '', automatic, phase: 'opening', chars: 0 };
    const j: Job = { id: crypto.randomBytes(9).toString('base64url'), runId, step, tab: tab?.id ?? -1, fresh, view };
    job = j;
    if (socket === undefined) return miss(j, { kind: 'absent' });
    if (tab === undefined) return miss(j, { kind: tabs.length > 0 ? 'tab-busy' : 'no-tab' });
    // The sites as the folder has them now: a file fixed since the last step counts at this one.
    const { sites } = loadSites(o.sitesDir);
    update(j, { site: sites.find((s) => s.key === tab.site)?.name ?? tab.site, tab: tab.title });
    say(socket, { type: 'sites', sites });
    say(socket, { type: 'job', job: j.id, tab: tab.id, site: tab.site, message, fresh, automatic });
    step.signal.addEventListener('abort', () => {
      if (job !== j) return;
      job = undefined;
      if (socket !== undefined) say(socket, { type: 'cancel', job: j.id });
    });
  }

  return {
    upgrade,
    relay,
    state,
    // A one-time code for the page to hand the extension: once, within two minutes.
    pair(): { code: string } {
      const code = crypto.randomBytes(18).toString('base64url');
      codes.set(code, Date.now() + CODE_LIFE_MS);
      return { code };
    },
    settings(change: { tab?: number | null; automatic?: boolean }): ExtensionState {
      if (change.tab !== undefined) chosen = change.tab ?? undefined;
      if (change.automatic !== undefined) automatic = change.automatic;
      tell();
      return state();
    },
    close(): void {
      socket?.terminate();
      wss.close();
    },
  };
}

// The proof of holding a pairing's key, by each side, bound to the pult's port: a proof made for one pult, or by the
// other side, is worth nothing anywhere else.
export function mac(key: string, side: 'extension' | 'pult', port: number, challenge: string): string {
  return crypto.createHmac('sha256', key).update(`deepwork ${side} proof\n${port}\n${challenge}`).digest('base64url');
}

// The pairings this deepwork made, by id: each extension's key and origin, in the state folder, readable by the user
// only. An unreadable file is no pairings: the extension is paired again.
function readPairings(stateDir: string): Record<string, Pairing> {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(path.join(stateDir, 'extension-pairings.json'), 'utf8'));
    if (!isRecord(value)) return {};
    const out: Record<string, Pairing> = Object.create(null);
    for (const [id, p] of Object.entries(value))
      if (isRecord(p) && typeof p.key === 'string' && typeof p.origin === 'string')
        out[id] = { key: p.key, origin: p.origin };
    return out;
  } catch {
    return Object.create(null);
  }
}

function writePairings(stateDir: string, pairings: Record<string, Pairing>): void {
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = path.join(stateDir, 'extension-pairings.json');
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(pairings), { mode: 0o600 });
  fs.renameSync(temp, file);
}
