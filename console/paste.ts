// `deepwork "question" --paste`: the person at the terminal is the bridge. Each message goes to the clipboard (when the
// system has a clipboard tool) and to a file whose path is printed; the reply comes back from the clipboard when
// Enter is pressed on an empty line (copy it with the chat's Copy button first: no terminal paste limits, nothing to
// mark its end), or typed/pasted here and ended with a line holding only a dot.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { DeepworkError, errnoOf, messageOf } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';
import { cleanReply, createPasteBridge, sizeWarning, type PasteStep } from '../bridge/paste.ts';
import type { Bridge } from '../protocol/loop.ts';
import type { Io } from './output.ts';

type Clipboard = { copy: (text: string, file: string) => boolean; read: () => string | undefined; name: string };

// The system's clipboard tools, by platform and display: clip via PowerShell on Windows (Set-Clipboard reads the UTF-8
// file, so Cyrillic survives), pbcopy/pbpaste on macOS, wl-copy/wl-paste under Wayland, xclip or xsel under X.
function clipboardOf(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Clipboard | undefined {
  const has = (tool: string) => spawnSync(platform === 'win32' ? 'where' : 'sh', platform === 'win32' ? [tool] : ['-c', `command -v ${tool}`], { env, stdio: 'ignore' }).status === 0;
  const run = (command: string, args: string[], input?: string) => {
    const result = spawnSync(command, args, { env, input, encoding: 'utf8', timeout: 5_000, maxBuffer: 64 << 20 });
    return result.status === 0 ? result.stdout : undefined;
  };
  if (platform === 'win32') {
    return {
      name: 'the Windows clipboard',
      copy: (_text, file) => run('powershell', ['-NoProfile', '-Command', `Get-Content -Raw -Encoding UTF8 -LiteralPath '${file.replaceAll("'", "''")}' | Set-Clipboard`]) !== undefined,
      read: () => run('powershell', ['-NoProfile', '-Command', '[Console]::OutputEncoding = [Text.Encoding]::UTF8; Get-Clipboard -Raw']),
    };
  }
  if (platform === 'darwin' && has('pbcopy')) return { name: 'the clipboard', copy: (text) => run('pbcopy', [], text) !== undefined, read: () => run('pbpaste', []) };
  if (env.WAYLAND_DISPLAY !== undefined && has('wl-copy')) return { name: 'the clipboard (wl-copy)', copy: (text) => run('wl-copy', [], text) !== undefined, read: () => run('wl-paste', ['--no-newline']) };
  if (env.DISPLAY !== undefined && has('xclip')) return { name: 'the clipboard (xclip)', copy: (text) => run('xclip', ['-selection', 'clipboard'], text) !== undefined, read: () => run('xclip', ['-selection', 'clipboard', '-o']) };
  if (env.DISPLAY !== undefined && has('xsel')) return { name: 'the clipboard (xsel)', copy: (text) => run('xsel', ['--clipboard', '--input'], text) !== undefined, read: () => run('xsel', ['--clipboard', '--output']) };
  return undefined;
}

export type ConsolePaste = { bridge: Bridge; close: () => void };

export function createConsolePaste(options: { io: Io; folder: string; maxChars: number; env: NodeJS.ProcessEnv; input: NodeJS.ReadableStream }): ConsolePaste {
  const { io } = options;
  const clipboard = clipboardOf(options.env);
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
      if (signal.aborted) throw new DeepworkError('ABORTED', 'Stopped.');
      await new Promise<void>((resolve) => {
        wake = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      wake = undefined;
    }
    if (signal.aborted) throw new DeepworkError('ABORTED', 'Stopped.');
    return queue.shift();
  };

  // One reply: Enter on an empty line takes the clipboard; else the lines up to one holding only a dot (or the end).
  const readReply = async (signal: AbortSignal): Promise<string> => {
    for (;;) {
      const first = await nextLine(signal);
      if (first === undefined) throw new DeepworkError('BAD_REQUEST', `Standard input ended before the reply to message ${steps} came: with --paste, replies are read from the terminal. Run it in a terminal, or pipe each reply ended by a line holding only a dot.`);
      let text: string;
      if (first.trim() === '') {
        if (clipboard === undefined) {
          io.err('deepwork: there is no clipboard tool here; paste the reply and end it with a line holding only a dot.');
          continue;
        }
        text = clipboard.read() ?? '';
      } else {
        const collected = [first];
        for (let line = await nextLine(signal); line !== undefined && line.trim() !== '.'; line = await nextLine(signal)) collected.push(line);
        text = collected.join('\n');
      }
      try {
        const reply = cleanReply(text);
        io.err(`deepwork: took a reply of ${formatCount(reply.length)} characters${first.trim() === '' ? ` from ${clipboard?.name ?? 'the clipboard'}` : ''}.`);
        return reply;
      } catch (error) {
        io.err(`deepwork: ${messageOf(error)}`);
      }
    }
  };

  let steps = 0;
  const bridge = createPasteBridge({
    maxChars: options.maxChars,
    onMessage: (step: PasteStep) => {
      steps++;
      let file: string | undefined = path.join(options.folder, `message-${steps}.txt`);
      let unwritten = '';
      try {
        fs.mkdirSync(options.folder, { recursive: true });
        fs.writeFileSync(file, step.message);
      } catch (error) {
        unwritten = `${file} (${errnoOf(error) ?? messageOf(error)})`;
        file = undefined;
      }
      // The clipboard tool on Windows reads the file; elsewhere the text goes in through standard input.
      const copied = clipboard !== undefined && (file !== undefined || process.platform !== 'win32') && clipboard.copy(step.message, file ?? '');
      if (!copied && file === undefined) {
        step.fail(new DeepworkError('STATE_INVALID', `Message ${steps} could not be written to ${unwritten}, and there is no clipboard to put it on. Check stateDir in config.json.`));
        return;
      }
      const warning = sizeWarning(step.message.length, options.maxChars);
      if (warning !== undefined) io.err(`deepwork: ${warning}`);
      const how = clipboard === undefined
        ? 'paste the reply here and end it with a line holding only a dot'
        : "copy the chat's whole reply (its Copy button), then press Enter here; or paste it here and end it with a line holding only a dot";
      const where = [copied ? `on ${clipboard?.name ?? 'the clipboard'}` : '', file === undefined ? '' : `in ${file}`].filter((w) => w !== '').join(' and ');
      io.err(`deepwork: message ${steps} (${formatCount(step.message.length)} characters) is ${where}. Paste it into any web chat; then ${how}.`);
      readReply(step.signal).then(step.supply, step.fail);
    },
  });
  return { bridge, close: () => lines.close() };
}
