// `deepwork "question" --paste`: the person at the terminal is the bridge. Each message goes to the clipboard (when the
// system has a clipboard tool) and to a file whose path is printed (the run's own, removed when it ends); the reply
// comes back from the clipboard when Enter is pressed on an empty line (copy it with the chat's Copy button first: no
// terminal paste limits, nothing to mark its end), or typed/pasted here and ended with a line holding only a dot.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { DeepworkError, errnoOf, messageOf, stopped } from '../common/errors.ts';
import { programFolder, windowsProgram } from '../common/programs.ts';
import { formatCount } from '../common/text.ts';
import { chatWarning, cleanReply, createPasteBridge, newChat, sizeWarning, type PasteStep } from '../bridge/paste.ts';
import type { ChatSite } from '../bridge/chat-sites.ts';
import type { Bridge } from '../protocol/contract.ts';
import type { Io } from './output.ts';

type Clipboard = { copy: (text: string, file: string) => boolean; read: () => string | undefined; name: string };

// The system's clipboard tools, by platform and display: clip via PowerShell on Windows (Set-Clipboard reads the UTF-8
// file, so Cyrillic survives), pbcopy/pbpaste on macOS, wl-copy/wl-paste under Wayland, xclip or xsel under X. None is
// started in the project folder, and PowerShell by its full path (see common/programs.ts).
function clipboardOf(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Clipboard | undefined {
  const cwd = programFolder(platform, env);
  const has = (tool: string) =>
    spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { env, cwd, stdio: 'ignore' }).status === 0;
  const run = (command: string, args: string[], input?: string) => {
    const result = spawnSync(command, args, { env, cwd, input, encoding: 'utf8', timeout: 5_000, maxBuffer: 64 << 20 });
    return result.status === 0 ? result.stdout : undefined;
  };
  if (platform === 'win32') {
    const powershell = windowsProgram('WindowsPowerShell\\v1.0\\powershell.exe', env);
    return {
      name: 'the Windows clipboard',
      copy: (_text, file) =>
        run(powershell, [
          '-NoProfile',
          '-Command',
          `Get-Content -Raw -Encoding UTF8 -LiteralPath '${file.replaceAll("'", "''")}' | Set-Clipboard`,
        ]) !== undefined,
      read: () =>
        run(powershell, [
          '-NoProfile',
          '-Command',
          '[Console]::OutputEncoding = [Text.Encoding]::UTF8; Get-Clipboard -Raw',
        ]),
    };
  }
  if (platform === 'darwin' && has('pbcopy'))
    return {
      name: 'the clipboard',
      copy: (text) => run('pbcopy', [], text) !== undefined,
      read: () => run('pbpaste', []),
    };
  if (env.WAYLAND_DISPLAY !== undefined && has('wl-copy'))
    return {
      name: 'the clipboard (wl-copy)',
      copy: (text) => run('wl-copy', [], text) !== undefined,
      read: () => run('wl-paste', ['--no-newline']),
    };
  if (env.DISPLAY !== undefined && has('xclip'))
    return {
      name: 'the clipboard (xclip)',
      copy: (text) => run('xclip', ['-selection', 'clipboard'], text) !== undefined,
      read: () => run('xclip', ['-selection', 'clipboard', '-o']),
    };
  if (env.DISPLAY !== undefined && has('xsel'))
    return {
      name: 'the clipboard (xsel)',
      copy: (text) => run('xsel', ['--clipboard', '--input'], text) !== undefined,
      read: () => run('xsel', ['--clipboard', '--output']),
    };
  return undefined;
}

// The messages of one run, as files: in a folder of the run's own under `parent`, named after the project (another
// project's run, or another at the same time, never overwrites them), readable by this user only (a message holds the
// project's files: the folder 0700, each file 0600, whatever the umask), and removed with the folder when the run ends.
function messageFiles(
  parent: string,
  project: string,
): { write: (step: number | string, text: string) => string; remove: () => void } {
  let dir: string | undefined;
  return {
    write: (step, text) => {
      if (dir === undefined) {
        fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
        // mkdtemp makes the folder 0700 under a name no other run has.
        dir = fs.mkdtempSync(
          path.join(
            parent,
            `${
              path
                .basename(project)
                .replace(/[^\p{L}\p{N}._-]+/gu, '_')
                .slice(0, 60) || 'project'
            }-`,
          ),
        );
      }
      const file = path.join(dir, `message-${step}.txt`);
      fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
      return file;
    },
    remove: () => {
      try {
        if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
      } catch {
        // Called as the run ends, maybe with a failure to report: a folder that will not go is left, 0700.
      }
      dir = undefined;
    },
  };
}

// `close`: call when the run ends, however it ends (an answer, Ctrl-C, a failure): it removes the message files.
export type ConsolePaste = { bridge: Bridge; close: () => void };

// `folder`: where each run's messages go (a folder per run in it); `project`: the project folder, which names them.
export function createConsolePaste(options: {
  io: Io;
  folder: string;
  project: string;
  limits: ChatSite;
  env: NodeJS.ProcessEnv;
  input: NodeJS.ReadableStream;
}): ConsolePaste {
  const { io } = options;
  const clipboard = clipboardOf(options.env);
  const files = messageFiles(options.folder, options.project);
  const lines = readline.createInterface({ input: options.input, terminal: false });
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  lines.on('line', (line) => {
    queue.push(line);
    wake?.();
  });
  lines.on('close', () => {
    ended = true;
    wake?.();
  });
  const nextLine = async (signal: AbortSignal): Promise<string | undefined> => {
    while (queue.length === 0 && !ended) {
      if (signal.aborted) throw stopped();
      await new Promise<void>((resolve) => {
        wake = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      wake = undefined;
    }
    if (signal.aborted) throw stopped();
    return queue.shift();
  };

  // One reply: Enter on an empty line takes the clipboard; else the lines up to one holding only a dot (or the end).
  // `new` on a line of its own puts the message that stands on its own on the clipboard, for a new chat (`onNewChat`),
  // and the reply that follows is taken as that chat's.
  const readReply = async (
    signal: AbortSignal,
    onNewChat?: () => void,
  ): Promise<{ reply: string; newChat: boolean }> => {
    let fresh = false;
    for (;;) {
      const first = await nextLine(signal);
      if (first !== undefined && first.trim().toLowerCase() === 'new' && onNewChat !== undefined) {
        onNewChat();
        fresh = true;
        continue;
      }
      if (first === undefined)
        throw new DeepworkError(
          'BAD_REQUEST',
          `Standard input ended before the reply to message ${steps} came: with --paste, replies are read from the terminal. Run it in a terminal, or pipe each reply ended by a line holding only a dot.`,
        );
      let text: string;
      if (first.trim() === '') {
        if (clipboard === undefined) {
          io.err(
            'deepwork: there is no clipboard tool here; paste the reply and end it with a line holding only a dot.',
          );
          continue;
        }
        text = clipboard.read() ?? '';
      } else {
        const collected = [first];
        for (
          let line = await nextLine(signal);
          line !== undefined && line.trim() !== '.';
          line = await nextLine(signal)
        )
          collected.push(line);
        text = collected.join('\n');
      }
      try {
        const reply = cleanReply(text);
        io.err(
          `deepwork: took a reply of ${formatCount(reply.length)} characters${first.trim() === '' ? ` from ${clipboard?.name ?? 'the clipboard'}` : ''}.`,
        );
        return { reply, newChat: fresh };
      } catch (error) {
        io.err(`deepwork: ${messageOf(error)}`);
      }
    }
  };

  let steps = 0;
  const bridge = createPasteBridge({
    limits: options.limits,
    chat: newChat(),
    onMessage: (step: PasteStep) => {
      steps++;
      let file: string | undefined;
      let unwritten = '';
      try {
        file = files.write(steps, step.message);
      } catch (error) {
        unwritten = `${options.folder} (${errnoOf(error) ?? messageOf(error)})`;
      }
      // The clipboard tool on Windows reads the file; elsewhere the text goes in through standard input.
      const copied =
        clipboard !== undefined &&
        (file !== undefined || process.platform !== 'win32') &&
        clipboard.copy(step.message, file ?? '');
      if (!copied && file === undefined) {
        step.fail(
          new DeepworkError(
            'STATE_INVALID',
            `Message ${steps} could not be written to ${unwritten}, and there is no clipboard to put it on. Check stateDir in config.json.`,
          ),
        );
        return;
      }
      const warning = sizeWarning(step.message.length, options.limits.messageChars) ?? chatWarning(step);
      if (warning !== undefined) io.err(`deepwork: ${warning}`);
      const how =
        clipboard === undefined
          ? 'paste the reply here and end it with a line holding only a dot'
          : "copy the chat's whole reply (its Copy button), then press Enter here; or paste it here and end it with a line holding only a dot";
      const where = [copied ? `on ${clipboard?.name ?? 'the clipboard'}` : '', file === undefined ? '' : `in ${file}`]
        .filter((w) => w !== '')
        .join(' and ');
      const into =
        step.standalone === undefined
          ? 'any web chat'
          : `the same chat (it holds what came before; type new on a line of its own for a message that stands on its own, for a new chat)`;
      io.err(
        `deepwork: message ${steps} (${formatCount(step.message.length)} characters) is ${where}. Paste it into ${into}; then ${how}.`,
      );
      const standalone = step.standalone;
      const onNewChat =
        standalone === undefined
          ? undefined
          : () => {
              const copiedAgain =
                clipboard?.copy(standalone.message, files.write(`${steps}-new`, standalone.message)) === true;
              io.err(
                `deepwork: the message that stands on its own (${formatCount(standalone.message.length)} characters) is ${copiedAgain ? `on ${clipboard?.name ?? 'the clipboard'}` : 'in the message files'}. Paste it into a new chat; then ${how}.`,
              );
            };
      readReply(step.signal, onNewChat).then(({ reply, newChat: fresh }) => step.supply(reply, fresh), step.fail);
    },
  });
  return {
    bridge,
    close: () => {
      lines.close();
      files.remove();
    },
  };
}
