// `deepwork "question" --paste` as a person uses it: the real command line, a fake clipboard tool on PATH (a script
// named xclip over a file, DISPLAY set), the test playing the person who copies and types.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { INSTALL_DIR } from '../common/install.ts';
import { tempFolder } from './helpers.ts';

const BIN = path.join(INSTALL_DIR, 'bin', 'deepwork.js');
const RUN_LIMIT_MS = 60_000;
const state = tempFolder();
const config = path.join(state, 'config.json');
fs.writeFileSync(
  config,
  JSON.stringify({ stateDir: path.join(state, 'state'), backupDir: path.join(state, 'backup') }),
);

// A clipboard tool that keeps the clipboard in a file: `xclip -o` prints it, `xclip` without it fills it.
function fakeClipboard(): { board: string; env: Record<string, string> } {
  const bin = tempFolder();
  const board = path.join(tempFolder(), 'clipboard');
  fs.writeFileSync(
    path.join(bin, 'xclip'),
    '#!/bin/sh\ncase "$*" in\n  *-o*) cat "$FAKE_CLIPBOARD" ;;\n  *) cat > "$FAKE_CLIPBOARD" ;;\nesac\n',
    { mode: 0o755 },
  );
  return {
    board,
    env: { DISPLAY: ':0', WAYLAND_DISPLAY: '', FAKE_CLIPBOARD: board, PATH: `${bin}:${process.env.PATH ?? ''}` },
  };
}

// A --paste run with its standard input open, as at a terminal. `said(re)` waits until stderr says what `re` matches,
// past the last thing waited for, and gives the match; it fails if deepwork ends first. A run that hangs is killed
// after a minute and reported.
function pasteRun(folder: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'What is a?', '--paste', '--config', config], {
    cwd: folder,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  let seen = 0;
  const waiting = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const check of waiting) check();
  });
  const limit = setTimeout(() => {
    stderr += `\n[test: deepwork still ran after ${RUN_LIMIT_MS / 1000} s and was killed]`;
    child.kill('SIGKILL');
  }, RUN_LIMIT_MS);
  let ended = false;
  const closed = new Promise<number | null>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      ended = true;
      for (const check of waiting) check();
      resolve(code ?? (signal === null ? null : 128 + (os.constants.signals[signal] ?? 0)));
    }),
  );
  const said = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const found = new RegExp(re.source, `${re.flags.replace('g', '')}g`);
        found.lastIndex = seen;
        const match = found.exec(stderr);
        if (match !== null) {
          seen = match.index + match[0].length;
          waiting.delete(check);
          resolve(match);
        } else if (ended) {
          waiting.delete(check);
          reject(new Error(`deepwork ended without saying ${re}:\n${stderr}`));
        }
      };
      waiting.add(check);
      check();
    });
  return { child, said, closed, stdout: () => stdout, stderr: () => stderr };
}

function framed(answer: string): string {
  return `==== the model's answer ====\n${answer}\n==== end of the model's answer ====\n`;
}

describe('deepwork "question" --paste', () => {
  it('puts each message on the clipboard and in a file, and takes each reply typed here or from the clipboard', async () => {
    const folder = tempFolder({ 'a.js': 'const a = 1;\n' });
    const { board, env } = fakeClipboard();
    const run = pasteRun(folder, env);
    const file = (await run.said(/message 1 .*is on the clipboard \(xclip\) and in (\S+message-1\.txt)\./))[1] ?? '';
    assert.ok(file.startsWith(path.join(state, 'state', 'paste')), run.stderr());
    const message = fs.readFileSync(file, 'utf8');
    assert.match(message, /=== QUESTION ===\nWhat is a\?/);
    assert.equal(fs.readFileSync(board, 'utf8'), message, 'the message is on the clipboard');
    // Typed (or pasted) here, ended with a dot; a chat's decorations around it are dropped.
    run.child.stdin.write('Thought for 3 seconds\n=== NEED: a.js ===\n.\n');
    await run.said(/took a reply of 18 characters\.\n/);
    await run.said(/message 2 /);
    assert.match(
      fs.readFileSync(file.replace('message-1', 'message-2'), 'utf8'),
      /=== RESULT NEED a\.js: 1 line ===\n1 \| const a = 1;/,
    );
    // Enter on an empty line takes the clipboard as it is: here still the message deepwork put there, no reply.
    run.child.stdin.write('\n');
    await run.said(/the clipboard holds the message deepwork put there, not the chat's reply: left alone\./);
    // Copied with the chat's Copy button: taken from the clipboard, no key pressed.
    fs.writeFileSync(board, 'a is 1.\n');
    assert.equal(await run.closed, 0, run.stderr());
    assert.equal(run.stdout(), framed('a is 1.'));
    assert.match(run.stderr(), /took a reply of 7 characters from the clipboard \(xclip\)\./);
  });

  it('takes the reply copied to the clipboard without a key pressed, and leaves alone what is no reply', async () => {
    const folder = tempFolder({ 'a.js': 'const a = 1;\n' });
    const { board, env } = fakeClipboard();
    const run = pasteRun(folder, env);
    await run.said(/message 1 .*the clipboard \(xclip\) is watched.*Or paste the reply here and end it with a line/);
    // The person copies a piece of the message (the question, from the chat where it was pasted).
    const message = fs.readFileSync(board, 'utf8');
    const piece = message.slice(Math.floor(message.length / 3), Math.floor(message.length / 2));
    fs.writeFileSync(board, `\n${piece.replace(/\n/g, '\r\n')}  `);
    await run.said(/the clipboard holds a piece of the message deepwork put there \([\d,]+ characters\)/);
    // The chat's own notice that the message was too long: said for what it is, and the watch goes on.
    fs.writeFileSync(board, 'Превышен лимит длины сообщения. Попробуйте сократить текст.');
    await run.said(/That is the chat's notice that it took too much/);
    fs.writeFileSync(board, 'Thought for 3 seconds\n=== NEED: a.js ===\nCopy\n');
    await run.said(/took a reply of 18 characters from the clipboard \(xclip\)\.\n/);
    const second = (await run.said(/message 2 .*and in (\S+message-2\.txt)\./))[1] ?? '';
    assert.match(fs.readFileSync(second, 'utf8'), /=== RESULT NEED a\.js: 1 line ===\n1 \| const a = 1;/);
    // Out of habit the person pastes the same reply here too: it is not taken for the next step's.
    run.child.stdin.write('Thought for 3 seconds\n=== NEED: a.js ===\nCopy\n.\n');
    await run.said(/what was pasted here is the reply already taken from the clipboard: left out\./);
    // A new chat: the message that stands on its own goes on the clipboard, and is not taken for a reply either.
    run.child.stdin.write('new\n');
    await run.said(/the message that stands on its own \([\d,]+ characters\) is on the clipboard \(xclip\)/);
    assert.match(fs.readFileSync(board, 'utf8'), /=== QUESTION ===\nWhat is a\?/);
    fs.writeFileSync(board, 'a is 1.');
    assert.equal(await run.closed, 0, run.stderr());
    assert.equal(run.stdout(), framed('a is 1.'));
    assert.doesNotMatch(run.stderr(), /step \d+: waiting/);
  });

  it('stops on Ctrl-C while it watches the clipboard, and leaves no clipboard process behind', async () => {
    const folder = tempFolder({ 'a.js': 'const a = 1;\n' });
    // A clipboard tool that, asked for the clipboard, tells the test its pid and never answers.
    const bin = tempFolder();
    fs.writeFileSync(
      path.join(bin, 'xclip'),
      [
        `#!${process.execPath}`,
        "if (process.argv.includes('-o')) {",
        "  const socket = require('node:net').connect(Number(process.env.XCLIP_REPORT), '127.0.0.1', () => socket.write(`${process.pid}\\n`));",
        "  socket.on('error', () => process.exit(1));",
        "} else process.stdin.on('data', () => {}).on('end', () => process.exit(0));",
      ].join('\n'),
      { mode: 0o755 },
    );
    const reports = net.createServer();
    const reader = new Promise<{ pid: number; gone: Promise<void> }>((resolve) =>
      reports.on('connection', (socket) => {
        const gone = new Promise<void>((done) => socket.on('close', () => done()));
        socket.on('data', (d: Buffer) => resolve({ pid: Number(d.toString().trim()), gone }));
      }),
    );
    await new Promise<void>((resolve) => reports.listen(0, '127.0.0.1', resolve));
    const port = (reports.address() as net.AddressInfo).port;
    const run = pasteRun(folder, {
      DISPLAY: ':0',
      WAYLAND_DISPLAY: '',
      XCLIP_REPORT: String(port),
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    });
    await run.said(/the clipboard \(xclip\) is watched/);
    const { pid, gone } = await Promise.race([
      reader,
      run.closed.then((): never => {
        throw new Error(`deepwork ended before it read the clipboard:\n${run.stderr()}`);
      }),
    ]);
    run.child.kill('SIGINT');
    assert.equal(await run.closed, 130, run.stderr());
    assert.match(run.stderr(), /deepwork: Stopped\./);
    // deepwork ended after the read it had started: that process is gone, not left to run on.
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
    await gone;
    reports.close();
  });

  it('says so when standard input ends before a reply came, instead of waiting for ever', async () => {
    const run = pasteRun(tempFolder({ 'a.js': '' }), { DISPLAY: '', WAYLAND_DISPLAY: '' });
    run.child.stdin.end();
    assert.equal(await run.closed, 1);
    assert.match(
      run.stderr(),
      /deepwork: Standard input ended before the reply to message 1 came: with --paste, replies are read from the terminal\./,
    );
  });

  it('refuses --paste with --demo', async () => {
    const child = spawn(process.execPath, [BIN, 'q', '--paste', '--demo', '--config', config], {
      cwd: tempFolder(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 2);
    assert.match(stderr, /--paste and --demo are two bridges; give one of them\./);
  });
});
