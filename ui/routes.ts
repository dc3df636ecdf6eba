// The pult's JSON API: one handler per route of the contract (ui/contract.ts), each answering that route's response, so
// a missing route or an answer of another shape does not compile. The server (ui/server.ts) gates every request and
// hands the body in as unknown: each handler checks what it takes.

import path from 'node:path';
import { fileTrees } from './file-tree.ts';
import { DeepworkError, messageOf } from '../common/errors.ts';
import { normalizeHost } from '../app/config.ts';
import { isRecord } from '../common/unknown.ts';
import { STEPS } from '../app/config.ts';
import { CHALLENGE, checkCode, proofOf } from './security.ts';
import type { Session } from './session.ts';
import type { ExtensionLink } from './extension-link.ts';
import type { BridgeCheck, BridgeChoice, LinkRefusal, Route, Routes } from './contract.ts';
import { checkView, PultError } from './said.ts';
import type { PultOptions } from './server.ts';

const BRIDGES: readonly BridgeChoice[] = ['configured', 'demo', 'paste', 'extension'];

export type Handler<R extends Route> = (
  body: unknown,
  url: URL,
) => Routes[R]['response'] | Promise<Routes[R]['response']>;

// A route's refusal with its own status and a `reason` tag the page decides on; the page words it in its language.
export class Refusal extends Error {
  readonly status: number;
  readonly reason: LinkRefusal;
  constructor(status: number, reason: LinkRefusal, message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

// What the handlers need of the server: its options and session, its instance id, the token as it is now, and the
// change of the token when a one-time code comes a second time.
export type RouteContext = {
  options: PultOptions;
  session: Session;
  extension: ExtensionLink;
  instance: string;
  token: () => string;
  rekey: () => void;
};

export function createRoutes(c: RouteContext): { readonly [R in Route]: Handler<R> } {
  // The one-time codes traded already, by nonce, until they expire (an expired code is refused anyway).
  const used = new Map<string, number>();

  let lastCheck: BridgeCheck | undefined;
  // The configured bridge: as started, or as changed in the pult since.
  let configured = {
    bridge: c.options.bridge,
    check: c.options.check,
    host: c.options.host,
    model: c.options.model,
  };
  const tree = fileTrees(c.options.executor);
  // One handler per route of the contract, each answering that route's response: a missing route, or an answer of
  // another shape, does not compile.
  return {
    'GET /api/ping': () => ({ instance: c.instance, root: c.options.executor.box.root }),
    'GET /api/prove': (_body, url) => {
      const challenge = url.searchParams.get('challenge') ?? '';
      if (!CHALLENGE.test(challenge))
        throw badRequest('Expected ?challenge= with 16 to 128 letters, digits, "-" or "_".');
      return { instance: c.instance, proof: proofOf(c.token(), c.instance, challenge) };
    },
    // A one-time code for the token: once, before it expires, and made for this run of the pult.
    'POST /api/exchange': (body) => {
      if (!isRecord(body) || typeof body.code !== 'string') throw badRequest('Expected {"code": string}.');
      const now = Date.now();
      for (const [nonce, expires] of used) if (expires <= now) used.delete(nonce);
      const code = checkCode(c.token(), c.instance, body.code, now);
      if (code.kind === 'expired')
        throw new Refusal(403, 'expired', 'This link has expired. Run deepwork ui again for a new one.');
      if (code.kind === 'unknown')
        throw new Refusal(
          403,
          'unknown',
          "This link is not one of this pult's (it was made for an earlier run, or changed). Run deepwork ui again for a new one.",
        );
      if (used.has(code.nonce)) {
        c.rekey();
        used.clear();
        throw new Refusal(
          403,
          'used',
          'This link was used already; someone else on this machine may have used it, so the pult changed its key. Run deepwork ui again for a new link.',
        );
      }
      used.set(code.nonce, code.expires);
      return { token: c.token() };
    },
    'GET /api/state': () => ({
      root: c.options.executor.box.root,
      rootName: path.basename(c.options.executor.box.root),
      bridge: { host: configured.host, model: configured.model },
      steps: c.options.steps,
      // What the files ticked with a question may hold before the first step leaves some for the model to ask again.
      limits: { needChars: c.options.executor.limits.needChars, needPaths: c.options.executor.limits.needPaths },
      check: lastCheck ?? null,
      running: c.session.running,
      runs: c.session.runs,
      conversations: c.session.conversations(),
    }),
    'GET /api/tree': () => tree.get(),
    'GET /api/tree/sizes': () => tree.sizes(),
    'GET /api/check': async () => (lastCheck = checkView(await configured.check())),
    'POST /api/ask': (body) => {
      const input = askInput(body, c.options.steps);
      const bridge =
        input.bridge === 'demo' ? c.options.demo() : input.bridge === 'configured' ? configured.bridge : input.bridge;
      const which =
        input.bridge === 'demo'
          ? ({ kind: 'demo' } as const)
          : ({ kind: 'configured', host: configured.host, model: configured.model } as const);
      return { id: c.session.ask(input.question, input.files, input.steps, bridge, input.follow, which).id };
    },
    // The copy-and-paste bridge: the message a run waits to have copied, and its reply as pasted.
    'GET /api/paste': (_body, url) => {
      const run = Number(url.searchParams.get('run'));
      if (!Number.isInteger(run)) throw badRequest('Expected ?run=N.');
      return { message: c.session.pasteMessage(run, url.searchParams.get('standalone') === '1') };
    },
    'POST /api/paste': (body) => {
      if (
        !isRecord(body) ||
        typeof body.run !== 'number' ||
        typeof body.reply !== 'string' ||
        (body.newChat !== undefined && typeof body.newChat !== 'boolean')
      )
        throw badRequest('Expected {"run": number, "reply": string, "newChat"?: boolean}.');
      c.session.paste(body.run, body.reply, body.newChat === true);
      return { ok: true };
    },
    'POST /api/stop': () => ({ stopped: c.session.stop() }),
    // One file (`path` and its `base`), or several at once (`files`: path to base), as one backup set.
    'POST /api/write': async (body) => {
      tree.stale();
      const shape =
        'Expected {"run": number, "path": string, "base": string (the file\'s base from its preview), "force"?: boolean} or {"run": number, "files": {path: base, ...}}.';
      if (!isRecord(body) || typeof body.run !== 'number') throw badRequest(shape);
      if (typeof body.path === 'string' && typeof body.base === 'string') {
        const [one] = await c.session.write(body.run, new Map([[body.path, body.base]]), body.force === true);
        // session.write refuses a path with no proposal, so a report without the file is not expected; said, not sent empty.
        if (one === undefined)
          throw new DeepworkError('NOT_FOUND', `No proposed file ${body.path} in run ${body.run}.`);
        return one;
      }
      const files = body.files;
      if (
        !isRecord(files) ||
        Object.keys(files).length === 0 ||
        Object.keys(files).length > 1000 ||
        !Object.values(files).every((b) => typeof b === 'string')
      )
        throw badRequest(shape);
      return {
        files: await c.session.write(body.run, new Map(Object.entries(files).map(([p, b]) => [p, String(b)])), false),
      };
    },
    'POST /api/bridge': async (body) => {
      if (!isRecord(body) || typeof body.host !== 'string' || typeof body.model !== 'string')
        throw badRequest('Expected {"host": string, "model": string}.');
      const host = normalizeHost(body.host);
      if ('problem' in host)
        throw new PultError(
          'BAD_REQUEST',
          { code: 'bad-host', host: body.host, detail: host.problem },
          `The host ${JSON.stringify(body.host)} ${host.problem}. Write it like http://localhost:11500.`,
        );
      const model = body.model.trim();
      if (model === '')
        throw new PultError('BAD_REQUEST', { code: 'bad-model' }, 'Name the model, like deepseek:think.');
      const reconfigure = c.options.reconfigure;
      if (reconfigure === undefined)
        throw new PultError('BAD_REQUEST', { code: 'no-settings' }, 'This pult cannot change its bridge.');
      try {
        configured = await reconfigure(host.url, model);
      } catch (error) {
        throw new PultError(
          'BAD_REQUEST',
          { code: 'not-saved', detail: messageOf(error) },
          `The bridge was not changed: ${messageOf(error)}`,
        );
      }
      lastCheck = undefined;
      return { host: configured.host, model: configured.model };
    },
    'POST /api/conversation/new': () => c.session.newConversation(),
    'POST /api/conversation/open': (body) => {
      if (!isRecord(body) || typeof body.id !== 'string') throw badRequest('Expected {"id": string}.');
      return c.session.open(body.id);
    },
    'GET /api/extension': () => c.extension.state(),
    'POST /api/extension/pair': () => c.extension.pair(),
    'POST /api/extension/settings': (body) => {
      if (
        !isRecord(body) ||
        (body.tab !== undefined && body.tab !== null && !Number.isSafeInteger(body.tab)) ||
        (body.automatic !== undefined && typeof body.automatic !== 'boolean')
      )
        throw badRequest('Expected {"tab"?: number | null, "automatic"?: boolean}.');
      return c.extension.settings({
        ...(body.tab === undefined ? {} : { tab: typeof body.tab === 'number' ? body.tab : null }),
        ...(typeof body.automatic === 'boolean' ? { automatic: body.automatic } : {}),
      });
    },
    'POST /api/undo': (body) => {
      tree.stale();
      if (!isRecord(body) || (body.set !== undefined && typeof body.set !== 'string'))
        throw badRequest('Expected {"set"?: string}.');
      return c.session.undo(body.set);
    },
  };
}

// `bridge`: "configured" (the default), "demo", "paste" or "extension"; `demo: true` is the older way to say "demo".
function askInput(
  body: unknown,
  defaultSteps: number,
): { question: string; files: string[]; steps: number; bridge: BridgeChoice; follow: boolean } {
  if (!isRecord(body) || typeof body.question !== 'string' || body.question.trim() === '') {
    throw badRequest(
      'Expected {"question": non-empty string, "files"?: string[], "steps"?: number, "bridge"?: "configured" | "demo" | "paste" | "extension", "follow"?: boolean}.',
    );
  }
  if (body.bridge !== undefined && !BRIDGES.includes(body.bridge as BridgeChoice))
    throw badRequest(
      `"bridge" must be "configured", "demo", "paste" or "extension" (got ${JSON.stringify(body.bridge)}).`,
    );
  const files = body.files === undefined ? [] : body.files;
  if (!Array.isArray(files) || !files.every((f): f is string => typeof f === 'string'))
    throw badRequest('"files" must be a list of paths.');
  const steps = body.steps === undefined ? defaultSteps : body.steps;
  if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < STEPS.min || steps > STEPS.max)
    throw badRequest(`"steps" must be a whole number from ${STEPS.min} to ${STEPS.max}.`);
  const bridge = body.demo === true ? 'demo' : ((body.bridge as BridgeChoice | undefined) ?? 'configured');
  return { question: body.question, files, steps, bridge, follow: body.follow === true };
}

function badRequest(message: string): DeepworkError {
  return new DeepworkError('BAD_REQUEST', message);
}
