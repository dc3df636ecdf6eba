// Starting the pult from the command line: the port, a pult already running for the same folder, and the system's
// default browser (never the bridge's debugging browser: the page would take the tab the bridge drives).

import { spawn } from 'node:child_process';
import http from 'node:http';
import { DeepworkError, errnoOf, messageOf } from '../common/errors.ts';
import { programFolder, windowsProgram } from '../common/programs.ts';
import { startPult, type Pult, type PultOptions } from './server.ts';
import { newCode, newToken, proves } from './security.ts';
import { isRecord } from '../common/unknown.ts';
import {
  folderToken,
  keepToken,
  readRegistration,
  register,
  registrationFile,
  removeQuietly,
  removeStale,
  type Registration,
} from '../saved/pult.ts';

// `url`: the pult's address, without its token. `oneTimeUrl`: a new link with a one-time code at each call, what to
// open or print: the token itself never goes on a command line or a screen. `movedFrom`: the port asked for, when
// another program had it and the pult took the next free one.
export type Launched = {
  pult: Pult | undefined;
  url: string;
  oneTimeUrl: () => string;
  reused: boolean;
  movedFrom?: number;
};

// Starts the pult, or finds the one already serving this folder on that port. A port another program holds is passed
// over for the next ones, up to `nextPorts` of them (a user who dropped a folder on the launcher cannot pick a port).
// Registrations of pults that are gone are removed on the way.
export async function launchPult(options: PultOptions & { nextPorts?: number }): Promise<Launched> {
  const { stateDir } = options;
  const root = options.executor.box.root;
  removeStale(stateDir);
  const token = options.token ?? folderToken(stateDir, root, newToken);
  const tries = options.port === 0 ? 0 : Math.max(0, Math.min(options.nextPorts ?? 0, 65535 - options.port));
  for (let port = options.port; port <= options.port + tries; port++) {
    try {
      const onRekey = (fresh: string) => {
        keepToken(stateDir, root, fresh);
        options.onRekey?.(fresh);
      };
      const pult = await startPult({ ...options, port, token, onRekey });
      const url = `http://127.0.0.1:${pult.port}/`;
      const registration: Registration = { root, url, instance: pult.instance, pid: process.pid };
      // Without the note a second launch cannot find this pult and asks for another port; the pult itself works.
      register(stateDir, pult.port, registration);
      const close = pult.close;
      pult.close = () => close().finally(() => removeQuietly(registrationFile(stateDir, pult.port)));
      return {
        pult,
        url,
        oneTimeUrl: () => `${url}?code=${newCode(pult.token, pult.instance)}`,
        reused: false,
        ...(port === options.port ? {} : { movedFrom: options.port }),
      };
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'EACCES')
        throw new DeepworkError(
          'PORT_DENIED',
          `Port ${port} on 127.0.0.1 needs privileges this user lacks (EACCES). Use a port above 1024: deepwork ui --port 8787`,
          { cause: error },
        );
      if (code !== 'EADDRINUSE')
        throw new DeepworkError(
          'PORT_INVALID',
          `The pult cannot listen on 127.0.0.1:${port} (${code ?? messageOf(error)}). Try another port: deepwork ui --port ${Math.min(port + 1, 65535)}`,
          { cause: error },
        );
    }
    const running = await samePult(stateDir, port, root, token);
    if (running !== undefined) {
      const url = `http://127.0.0.1:${port}/`;
      return {
        pult: undefined,
        url,
        oneTimeUrl: () => `${url}?code=${newCode(token, running.instance)}`,
        reused: true,
      };
    }
  }
  const last = options.port + tries;
  const taken =
    tries === 0
      ? `Port ${options.port} on 127.0.0.1 is taken by another program (or by a pult for another folder)`
      : `Ports ${options.port} to ${last} on 127.0.0.1 are taken by other programs (or by pults for other folders)`;
  throw new DeepworkError(
    'PORT_TAKEN',
    `${taken}. Start the pult on another port: deepwork ui --port ${Math.min(last + 1, 65535)}`,
  );
}

// The registration of a live pult for `root` on `port`, proven without sending the token: whatever answers there must
// prove it holds `token` for the registered instance (a challenge answered with an HMAC keyed by it). A registration
// whose port is held by anything else (its pid reused, or another user's: EPERM counts as alive) is dropped.
async function samePult(
  stateDir: string,
  port: number,
  root: string,
  token: string,
): Promise<Registration | undefined> {
  const file = registrationFile(stateDir, port);
  const registration = readRegistration(file);
  if (registration === undefined || registration.root !== root) return undefined;
  const challenge = newToken();
  const answer = await getJson(`http://127.0.0.1:${port}/api/prove?challenge=${challenge}`);
  if (
    isRecord(answer) &&
    answer.instance === registration.instance &&
    proves(token, registration.instance, challenge, answer.proof)
  )
    return registration;
  removeQuietly(file);
  return undefined;
}

// Whatever holds a registered port may be anything: its answer is read for 5 s and up to 4 KB (a proof is ~100 bytes),
// then given up on.
function getJson(url: string): Promise<unknown> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2000, signal: AbortSignal.timeout(5000) }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
        if (body.length > 4096) req.destroy();
      });
      res.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch {
          resolve(undefined);
        }
      });
      res.on('error', () => resolve(undefined));
      res.on('close', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

// Opens a URL in the system's default browser; false when the opener could not be started (no xdg-open, say). The URL
// is on the opener's command line, which every user of the machine can read: give it a one-time link, never the token.
// cmd and open by their full paths, and none started in the project folder (see common/programs.ts).
export function openInBrowser(url: string): Promise<boolean> {
  const [command, args] =
    process.platform === 'win32'
      ? [windowsProgram('cmd.exe'), ['/c', 'start', '""', url]]
      : process.platform === 'darwin'
        ? ['/usr/bin/open', [url]]
        : ['xdg-open', [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, {
        stdio: 'ignore',
        detached: true,
        cwd: programFolder(),
        windowsVerbatimArguments: process.platform === 'win32',
      });
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
      child.once('error', () => resolve(false));
    } catch {
      resolve(false);
    }
  });
}
