// The pult's side of the browser extension (ui/extension-link.ts) over real WebSockets on loopback: the pairing, the
// handshake proven both ways, the attacks (another origin posing as the extension, a stolen or replayed code, a proof
// for another port, a reply for another job, a reply crafted to be huge), and a question's steps worked by a stand-in
// for the extension, each miss leaving the copy-and-paste step ready.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { WebSocket } from 'ws';
import { startPult, type Pult } from '../ui/server.ts';
import { pultOptions } from './pult-options.ts';
import { createExecutor } from '../reading/executor.ts';
import { createDemoBridge } from '../bridge/demo.ts';
import { tempFolder } from './helpers.ts';
import { mac } from '../ui/extension-link.ts';
import { isRecord } from '../common/unknown.ts';
import type { ExtensionState, RunView } from '../ui/contract.ts';
import { MAX_TAB_REPLY } from '../ui/extension-contract.ts';

const ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

async function api(pult: Pult, route: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const [method = 'GET', where = '/'] = route.split(' ');
  const res = await fetch(`http://127.0.0.1:${pult.port}${where}`, {
    method,
    headers: { 'x-deepwork-token': pult.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

// A WebSocket to the pult's /extension, with every message it gets queued for `next`.
class Client {
  readonly ws: WebSocket;
  private readonly queue: unknown[] = [];
  private waiter: (() => void) | undefined;
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly opened: Promise<number>;
  welcome: Record<string, unknown> = {};
  constructor(port: number, query = '', origin = ORIGIN) {
    this.ws = new WebSocket(`ws://127.0.0.1:${port}/extension${query}`, { origin });
    this.ws.on('message', (data) => {
      this.queue.push(JSON.parse(String(data)));
      this.waiter?.();
    });
    this.closed = new Promise((resolve) =>
      this.ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    this.opened = new Promise((resolve) => {
      this.ws.on('open', () => resolve(101));
      this.ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      this.ws.on('error', () => resolve(0));
    });
  }
  // The next message of `type` (others before it are passed over).
  async next(type: string): Promise<Record<string, unknown>> {
    for (;;) {
      const i = this.queue.findIndex((m) => isRecord(m) && m.type === type);
      if (i >= 0) return this.queue.splice(i, 1)[0] as Record<string, unknown>;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }
  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }
}

// Pairs as the extension does: a code from the page's route, traded on /extension?pair=.
async function pairWith(pult: Pult): Promise<{ pairing: string; key: string }> {
  const { json } = await api(pult, 'POST /api/extension/pair', {});
  assert.ok(isRecord(json) && typeof json.code === 'string');
  const client = new Client(pult.port, `?pair=${json.code}`);
  const paired = await client.next('paired');
  return { pairing: String(paired.pairing), key: String(paired.key) };
}

// Connects and proves itself with a pairing; answers the pult's proof check too.
async function connectAs(pult: Pult, pairing: { pairing: string; key: string }, tabs = [tab(7)]): Promise<Client> {
  const client = new Client(pult.port);
  const challenge = await client.next('challenge');
  const mine = crypto.randomBytes(18).toString('base64url');
  client.send({
    type: 'hello',
    pairing: pairing.pairing,
    proof: mac(pairing.key, 'extension', pult.port, String(challenge.challenge)),
    challenge: mine,
    version: 'test',
  });
  const welcome = await client.next('welcome');
  client.welcome = welcome;
  assert.equal(welcome.proof, mac(pairing.key, 'pult', pult.port, mine), 'the pult proves it holds the key');
  client.send({ type: 'tabs', tabs });
  return client;
}

function tab(id: number, other = false) {
  return { id, site: 'deepseek', title: `chat ${id}`, other };
}

// A page's socket: every run and extension state the pult sends.
async function pageSocket(
  pult: Pult,
): Promise<{ runs: Map<number, RunView>; states: ExtensionState[]; ws: WebSocket }> {
  const ws = new WebSocket(`ws://127.0.0.1:${pult.port}/ws?token=${pult.token}`, {
    origin: `http://127.0.0.1:${pult.port}`,
  });
  const runs = new Map<number, RunView>();
  const states: ExtensionState[] = [];
  ws.on('message', (data) => {
    const m: unknown = JSON.parse(String(data));
    if (isRecord(m) && m.type === 'run') runs.set((m.run as RunView).id, m.run as RunView);
    if (isRecord(m) && m.type === 'extension') states.push(m as unknown as ExtensionState);
  });
  await new Promise((resolve) => ws.on('open', resolve));
  ws.send(JSON.stringify({ type: 'hello' }));
  return { runs, states, ws };
}

async function until<T>(what: () => T | undefined): Promise<T> {
  for (;;) {
    const got = what();
    if (got !== undefined) return got;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the extension link', { timeout: 30_000 }, () => {
  let pult: Pult;
  const stateDir = tempFolder();
  const sitesDir = tempFolder();
  before(async () => {
    const root = tempFolder({ 'a.js': 'const a = 1;\n' });
    const backupDir = path.join(tempFolder(), 'backup');
    pult = await startPult(
      pultOptions({
        executor: createExecutor(root, { backupDir }),
        bridge: createDemoBridge(),
        host: 'http://127.0.0.1:9',
        model: 'm',
        steps: 4,
        backupDir,
        port: 0,
        stateDir,
        sitesDir,
      }),
    );
  });
  after(() => pult.close());

  it('refuses the socket to a web page, to the pult page and to no origin at all', async () => {
    for (const origin of ['https://evil.example', `http://127.0.0.1:${pult.port}`, 'null']) {
      assert.equal(await new Client(pult.port, '', origin).opened, 403, origin);
    }
  });

  it('trades a pairing code once, and refuses an unknown one', async () => {
    const { json } = await api(pult, 'POST /api/extension/pair', {});
    assert.ok(isRecord(json) && typeof json.code === 'string');
    const first = new Client(pult.port, `?pair=${json.code}`);
    assert.equal(typeof (await first.next('paired')).key, 'string');
    assert.equal(await new Client(pult.port, `?pair=${json.code}`).opened, 403, 'a code used twice');
    assert.equal(await new Client(pult.port, '?pair=made-up-code-0123456789').opened, 403, 'a guessed code');
    const mode = fs.statSync(path.join(stateDir, 'extension-pairings.json')).mode & 0o777;
    if (process.platform !== 'win32') assert.equal(mode, 0o600);
  });

  it('gives a code only with the token', async () => {
    const res = await fetch(`http://127.0.0.1:${pult.port}/api/extension/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(res.status, 403);
  });

  it('lets go of a hello with a wrong proof, a proof for another port, or from another origin', async () => {
    const pairing = await pairWith(pult);
    const attempts = [
      { origin: ORIGIN, proof: () => 'x'.repeat(43) },
      { origin: ORIGIN, proof: (c: string) => mac(pairing.key, 'extension', pult.port + 1, c) },
      { origin: ORIGIN, proof: (c: string) => mac(pairing.key, 'pult', pult.port, c) },
      {
        origin: 'chrome-extension://anotherextensionid',
        proof: (c: string) => mac(pairing.key, 'extension', pult.port, c),
      },
    ];
    for (const attempt of attempts) {
      const client = new Client(pult.port, '', attempt.origin);
      const challenge = await client.next('challenge');
      client.send({
        type: 'hello',
        pairing: pairing.pairing,
        proof: attempt.proof(String(challenge.challenge)),
        challenge: 'c'.repeat(24),
        version: 't',
      });
      // Let go, never welcomed: whichever comes first says which.
      const outcome = await Promise.race([
        client.closed.then((c) => `closed ${c.code}`),
        client.next('welcome').then(() => 'welcomed'),
      ]);
      assert.equal(outcome, 'closed 1008', attempt.origin);
    }
    const state = await api(pult, 'GET /api/extension');
    assert.ok(isRecord(state.json) && state.json.connected === false);
  });

  it("works a question's steps in the chat tab, and a miss leaves the step to copy and paste", async () => {
    const page = await pageSocket(pult);
    const client = await connectAs(pult, await pairWith(pult), [tab(7), tab(8, true)]);
    const ready = await until(() => page.states.find((s) => s.connected && s.tabs.length === 2));
    assert.deepEqual(
      ready.tabs.map((t) => [t.id, t.name, t.other]),
      [
        [7, 'DeepSeek', false],
        [8, 'DeepSeek', true],
      ],
    );

    const asked = await api(pult, 'POST /api/ask', { question: 'What is a?', bridge: 'extension' });
    assert.equal(asked.status, 200);
    const runId = Number((asked.json as { id: number }).id);
    const job = await client.next('job');
    assert.equal(job.tab, 7, 'the free tab, not the one another pult holds');
    assert.equal(job.fresh, true, 'a first message starts a new chat');
    assert.equal(job.automatic, false, 'assisted unless asked otherwise');
    assert.match(String(job.message), /What is a\?/);

    // Words for another job, and a reply crafted past the limit: the first ignored, the second a miss.
    client.send({ type: 'reply', job: 'not-this-job-123', text: 'forged' });
    client.send({ type: 'progress', job: job.job, phase: 'answering', chars: 120 });
    const progressed = await until(() =>
      page.runs.get(runId)?.waiting?.extension?.chars === 120 ? page.runs.get(runId) : undefined,
    );
    assert.equal(progressed.waiting?.extension?.site, 'DeepSeek');
    client.send({ type: 'reply', job: job.job, text: 'x'.repeat(MAX_TAB_REPLY + 1) });
    const missed = await until(() => {
      const w = page.runs.get(runId)?.waiting;
      return w?.extension?.phase === 'missed' ? w : undefined;
    });
    assert.equal(missed.extension?.miss?.kind, 'too-large');
    assert.ok(missed.paste !== undefined, 'the copy-and-paste step is ready');
    assert.equal(page.runs.get(runId)?.state, 'running');

    // The person pastes instead; the next question in the same chat goes to the same tab with only what is new.
    assert.equal((await api(pult, 'POST /api/paste', { run: runId, reply: 'a is 1.' })).status, 200);
    await until(() => (page.runs.get(runId)?.state === 'answered' ? true : undefined));
    const follow = await api(pult, 'POST /api/ask', { question: 'And b?', bridge: 'extension', follow: true });
    const second = await client.next('job');
    assert.equal(second.fresh, true, 'the chat was pasted by hand elsewhere, so this tab starts a new chat');
    client.send({ type: 'reply', job: second.job, text: 'b is not defined.' });
    const followId = Number((follow.json as { id: number }).id);
    const answered = await until(() =>
      page.runs.get(followId)?.state === 'answered' ? page.runs.get(followId) : undefined,
    );
    assert.match(JSON.stringify(answered.parts), /b is not defined/);
    const third = await api(pult, 'POST /api/ask', { question: 'And c?', bridge: 'extension', follow: true });
    const job3 = await client.next('job');
    assert.equal(job3.fresh, false, 'the same tab holds the chat: only what is new');
    assert.doesNotMatch(String(job3.message), /What is a\?/);

    // Stop: the extension is told to let the step go.
    await api(pult, 'POST /api/stop', {});
    assert.equal((await client.next('cancel')).job, job3.job);
    await until(() =>
      page.runs.get(Number((third.json as { id: number }).id))?.state === 'stopped' ? true : undefined,
    );
    client.ws.close();
    page.ws.close();
  });

  it("says so when the chat's reply is its too-long notice, and when the extension goes away mid-step", async () => {
    const page = await pageSocket(pult);
    const client = await connectAs(pult, await pairWith(pult));
    const asked = await api(pult, 'POST /api/ask', { question: 'Q?', bridge: 'extension' });
    const runId = Number((asked.json as { id: number }).id);
    const job = await client.next('job');
    client.send({ type: 'reply', job: job.job, text: 'Превышен лимит длины сообщения' });
    const miss = await until(() => page.runs.get(runId)?.waiting?.extension?.miss);
    assert.equal(miss.kind, 'too-large');
    assert.match(miss.detail ?? '', /Превышен/);
    await api(pult, 'POST /api/stop', {});
    await until(() => (page.runs.get(runId)?.state === 'stopped' ? true : undefined));

    const again = await api(pult, 'POST /api/ask', { question: 'Q2?', bridge: 'extension' });
    const id2 = Number((again.json as { id: number }).id);
    await client.next('job');
    client.ws.terminate();
    const gone = await until(() => page.runs.get(id2)?.waiting?.extension?.miss);
    assert.equal(gone.kind, 'absent');
    await api(pult, 'POST /api/stop', {});
    page.ws.close();
  });

  it('says at once that no extension is connected, with the step ready to copy', async () => {
    const page = await pageSocket(pult);
    const asked = await api(pult, 'POST /api/ask', { question: 'Q3?', bridge: 'extension' });
    const runId = Number((asked.json as { id: number }).id);
    const waiting = await until(() => {
      const w = page.runs.get(runId)?.waiting;
      return w?.extension?.miss !== undefined && w.paste !== undefined ? w : undefined;
    });
    assert.equal(waiting.extension?.miss?.kind, 'absent');
    await api(pult, 'POST /api/stop', {});
    page.ws.close();
  });

  it("serves the user's site files, and says which could not be read", async () => {
    fs.writeFileSync(
      path.join(sitesDir, 'mychat.json'),
      JSON.stringify({
        name: 'My chat',
        match: ['https://chat.example.com/*'],
        input: 'textarea',
        send: 'button',
        busy: '.busy',
        reply: '.reply',
      }),
    );
    fs.writeFileSync(
      path.join(sitesDir, 'broken.json'),
      '{"name": "x", "match": "not a list", "input": "i", "send": "s", "busy": "b", "reply": "r"}',
    );
    const client = await connectAs(pult, await pairWith(pult));
    const state = await api(pult, 'GET /api/extension');
    assert.ok(isRecord(state.json) && Array.isArray(state.json.problems));
    assert.equal(state.json.problems.length, 1);
    assert.match(JSON.stringify(state.json.problems), /broken\.json.*match.* must be a list of URL patterns/);
    const sites = client.welcome.sites as Array<{ key: string; name: string }>;
    assert.deepEqual(
      sites.map((s) => s.key),
      ['deepseek', 'chatgpt', 'qwen', 'kimi', 'aistudio', 'mychat'],
    );
    client.ws.close();
  });
});
