// `deepwork "question" --paste`: the person at the terminal is the bridge. Each message goes to the clipboard (when the
// system has a clipboard tool) and to a file whose path is printed (the run's own, removed when it ends). While the
// reply is awaited the clipboard is watched: the person copies the chat's answer with its Copy button, and deepwork
// takes it, no key pressed. Or the reply is typed or pasted here and ended with a line holding only a dot; Enter on an
// empty line takes the clipboard as it is. Nothing is redrawn on the terminal meanwhile (see stepLog's `typing`): the
// person may be typing on it.

import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { DeepworkError, errnoOf, messageOf, stopped } from '../common/errors.ts';
import { chatWarning, cleanReply, createPasteBridge, newChat, sizeWarning, type PasteStep } from '../bridge/paste.ts';
import type { ChatSite } from '../bridge/chat-sites.ts';
import type { Bridge } from '../protocol/contract.ts';
import { clipboardOf, watchClipboard } from './clipboard.ts';
import type { Io } from './output.ts';
import { pasteTexts } from '../common/strings/console.js';
import { textsIn } from '../common/strings/language.js';

// The messages of one run, as files: in a folder of the run's own under `parent`, named after the project (another
// project's run, or another at the same time, never overwrites them), readable by this user only (a message holds the
// project's files: the folder 0700, each file 0600, whatever the umask), and removed with the folder when the run ends.
// A message written once is not written again: the message for a new chat may be asked for more than once.
function messageFiles(
  parent: string,
  project: string,
): { write: (step: number | string, text: string) => string; remove: () => void } {
  let dir: string | undefined;
  const written = new Map<string, string>();
  return {
    write: (step, text) => {
      const done = written.get(String(step));
      if (done !== undefined) return done;
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
      written.set(String(step), file);
      return file;
    },
    remove: () => {
      try {
        if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
      } catch {
        // Called as the run ends, maybe with a failure to report: a folder that will not go is left, 0700.
      }
      dir = undefined;
      written.clear();
    },
  };
}

// The terminal's lines, kept from when they come until a step reads them (a line typed between steps is not lost).
// `next` gives the next line, undefined once input has ended; it throws stopped() when `signal` aborts.
function terminalLines(input: NodeJS.ReadableStream): {
  next: (signal: AbortSignal) => Promise<string | undefined>;
  close: () => void;
} {
  const lines = readline.createInterface({ input, terminal: false });
  const queue: string[] = [];
  let ended = false;
  let waiter: (() => void) | undefined;
  lines.on('line', (line) => {
    queue.push(line);
    waiter?.();
  });
  lines.on('close', () => {
    ended = true;
    waiter?.();
  });
  return {
    next: async (signal) => {
      while (queue.length === 0 && !ended && !signal.aborted) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            signal.removeEventListener('abort', wake);
            if (waiter === wake) waiter = undefined;
            resolve();
          };
          waiter = wake;
          signal.addEventListener('abort', wake);
        });
      }
      if (signal.aborted) throw stopped();
      return queue.shift();
    },
    close: () => lines.close(),
  };
}

// Runs of whitespace as one space: a chat page, a terminal and a clipboard tool each lay out the same text their way.
function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

// `close`: call when the run ends, however it ends (an answer, Ctrl-C, a failure): it ends a wait still under way (the
// clipboard's watch with it) and removes the message files.
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
  const t = textsIn(pasteTexts, io.lang ?? 'en');
  const clipboard = clipboardOf(options.env);
  const files = messageFiles(options.folder, options.project);
  const lines = terminalLines(options.input);
  const closing = new AbortController();
  // The last reply the watch took from the clipboard. The person may paste it here as well, out of habit: that paste
  // comes after the reply was taken, so it is left out (once) instead of being taken as the next step's reply.
  let echo: string | undefined;

  // A message handed out: written to a file of the run's, and put on the clipboard (the clipboard tool on Windows reads
  // the file; elsewhere the text goes in through standard input). `where` says where it is, for the prompt.
  const handOut = (text: string, name: number | string) => {
    let file: string | undefined;
    let unwritten = '';
    try {
      file = files.write(name, text);
    } catch (error) {
      unwritten = `${options.folder} (${errnoOf(error) ?? messageOf(error)})`;
    }
    const copied =
      clipboard !== undefined &&
      (file !== undefined || process.platform !== 'win32') &&
      clipboard.copy(text, file ?? '');
    const where = t.where(copied && clipboard !== undefined ? clipboard.name : undefined, file);
    return { file, copied, unwritten, where };
  };

  // One step: its message handed out, then its reply awaited from the clipboard's watch and from the terminal at once;
  // the first reply ends the wait (the other source with it).
  const serve = (step: PasteStep, n: number) => {
    const message = handOut(step.message, n);
    if (!message.copied && message.file === undefined) {
      step.fail(new DeepworkError('STATE_INVALID', t.unwritable(n, message.unwritten)));
      return;
    }
    const warning = sizeWarning(step.message.length, options.limits.messageChars) ?? chatWarning(step);
    if (warning !== undefined) io.err(`deepwork: ${warning}`);
    // The clipboard is watched when it took the message: then it works.
    const watched = message.copied ? clipboard : undefined;
    const how = watched === undefined ? t.pasteHere : t.copyOrPaste(watched.name);
    const into = step.standalone === undefined ? t.anyChat : t.sameChat;
    io.err(t.message(n, step.message.length, message.where, into, how));

    const done = new AbortController();
    const signal = AbortSignal.any([step.signal, done.signal, closing.signal]);
    // What deepwork itself put on the clipboard this step (the message for a new chat joins it), whitespace squeezed.
    const own = [squeeze(step.message)];
    let fresh = false;
    // A reply being typed here: its lines so far.
    let typed: string[] | undefined;
    let ended = false;

    // What the watch has to say comes when it sees something, maybe while the person is typing a line here: on a
    // terminal it starts a line of its own, after what they typed (which it leaves as it is).
    const aside = (line: string) => io.err(io.isTTY ? `\n${line}` : line);
    // Takes a reply as it came; false when it is none (empty, the chat's "too long" notice): `say` says so, and the wait
    // goes on.
    const take = (text: string, from: string | undefined, say: (line: string) => void): boolean => {
      if (ended) return true;
      let reply: string;
      try {
        reply = cleanReply(text);
      } catch (error) {
        say(`deepwork: ${messageOf(error)}`);
        return false;
      }
      ended = true;
      done.abort();
      say(t.took(reply.length, from, typed?.length ?? 0));
      step.supply(reply, fresh);
      return true;
    };
    const fail = (error: unknown) => {
      if (ended) return;
      ended = true;
      done.abort();
      step.fail(error);
    };
    // Deepwork's own message as it put it on the clipboard, or a piece of it the person copied; undefined for any other.
    const ownPart = (text: string): 'whole' | 'piece' | undefined => {
      const squeezed = squeeze(text);
      if (own.includes(squeezed)) return 'whole';
      return own.some((m) => m.includes(squeezed)) ? 'piece' : undefined;
    };
    const notAReply = t.notAReply;

    if (watched !== undefined)
      watchClipboard(watched, signal, (text) => {
        if (squeeze(text) === '') return;
        const part = ownPart(text);
        // Deepwork's own message, put back (the message for a new chat): nothing to say.
        if (part === 'whole') return;
        if (part === 'piece') aside(notAReply(part, text.length));
        else if (take(text, watched.name, aside)) echo = text;
      });

    const newChatAsked = (standalone: { message: string }) => {
      const given = handOut(standalone.message, `${n}-new`);
      own.push(squeeze(standalone.message));
      fresh = true;
      io.err(t.standalone(standalone.message.length, given.where || t.nowhere, how));
    };
    // Enter on an empty line: the clipboard as it is.
    const fromClipboard = async () => {
      if (clipboard === undefined) {
        io.err(t.noClipboard);
        return;
      }
      const text = (await clipboard.read(signal)) ?? '';
      if (signal.aborted) throw stopped();
      const part = squeeze(text) === '' ? undefined : ownPart(text);
      if (part === undefined) take(text, clipboard.name, io.err);
      else io.err(notAReply(part, text.length));
    };
    const readTyped = async () => {
      while (!ended) {
        const first = await lines.next(signal);
        if (first === undefined) throw new DeepworkError('BAD_REQUEST', t.inputEnded(n));
        const word = first.trim();
        if (word.toLowerCase() === 'new' && step.standalone !== undefined) newChatAsked(step.standalone);
        else if (word === '') await fromClipboard();
        // A dot alone ends nothing here: it is the end of a paste whose reply the clipboard gave already.
        else if (word !== '.') {
          typed = [first];
          for (
            let line = await lines.next(signal);
            line !== undefined && line.trim() !== '.';
            line = await lines.next(signal)
          )
            typed.push(line);
          const text = typed.join('\n');
          typed = undefined;
          if (echo !== undefined && squeeze(echo).includes(squeeze(text))) {
            echo = undefined;
            io.err(t.echo(n));
          } else take(text, undefined, io.err);
        }
      }
    };
    readTyped().catch(fail);
  };

  let steps = 0;
  const bridge = createPasteBridge({
    limits: options.limits,
    chat: newChat(),
    onMessage: (step) => serve(step, ++steps),
  });
  return {
    bridge,
    close: () => {
      closing.abort();
      lines.close();
      files.remove();
    },
  };
}
