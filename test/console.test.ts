// The console as issue 29 (items 7–10, 12) found it wanting, driven as a person drives it: the real command line
// against a fake bridge over loopback, and on a real terminal (util-linux `script` gives deepwork a pty) where it asks
// before writing.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startFakeBridge } from './fake-bridge.ts';
import { INSTALL_DIR } from '../common/install.ts';
import { tempFolder } from './helpers.ts';
import { languageOf } from '../console/language.ts';
import { DeepworkError } from '../common/errors.ts';

const BIN = path.join(INSTALL_DIR, 'bin', 'deepwork.js');
const RUN_LIMIT_MS = 60_000;

type Run = { code: number | null; stdout: string; stderr: string };

// The locale of the machine the tests run on must not decide the language: each run names its own.
const PLAIN_ENV = { LANG: 'C.UTF-8', LC_ALL: '', LC_MESSAGES: '', NO_COLOR: '', FORCE_COLOR: '' };

function configIn(dir: string): string {
  const file = path.join(dir, 'config.json');
  fs.writeFileSync(file, JSON.stringify({ stateDir: path.join(dir, 'state'), backupDir: path.join(dir, 'backup') }));
  return file;
}

function deepwork(args: string[], cwd: string, config: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args, '--config', config], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...PLAIN_ENV, ...env },
    });
    let stdout = '';
    let stderr = '';
    const limit = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code, stdout, stderr });
    });
  });
}

// deepwork on a terminal: `script` runs it on a pty. `reply.answer` is typed when the terminal shows `reply.when`;
// `stdout`: a file stdout goes to instead of the terminal.
type TerminalOptions = { reply?: { when: string; answer: string }; env?: Record<string, string>; stdout?: string };

function onTerminal(
  args: string[],
  cwd: string,
  config: string,
  { reply, env = {}, stdout }: TerminalOptions = {},
): Promise<{ code: number | null; screen: string }> {
  const quote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;
  const command = [process.execPath, BIN, ...args, '--config', config].map(quote).join(' ');
  return new Promise((resolve) => {
    const child = spawn(
      'script',
      ['-qec', stdout === undefined ? command : `${command} > ${quote(stdout)}`, '/dev/null'],
      {
        cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, ...PLAIN_ENV, TERM: 'xterm', ...env },
      },
    );
    let screen = '';
    let typed = false;
    const limit = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      if (reply !== undefined && !typed && screen.includes(reply.when)) {
        typed = true;
        child.stdin.write(reply.answer);
      }
    });
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code, screen });
    });
  });
}

const EDIT_REPLY = [
  'Fixed.',
  '',
  '=== EDIT: math.js ===',
  '<<<<<<< SEARCH',
  '  return a - b;',
  '=======',
  '  return a + b;',
  '>>>>>>> REPLACE',
  '=== END ===',
  '',
  '=== FILE: notes.md ===',
  'add() was wrong.',
  '=== END ===',
].join('\n');
const MATH = 'function add(a, b) {\n  return a - b;\n}\n';

async function projectWithRun(): Promise<{ dir: string; config: string; host: string; close: () => Promise<void> }> {
  const dir = tempFolder({ 'math.js': MATH });
  const config = configIn(tempFolder());
  const fake = await startFakeBridge({ chat: () => ({ kind: 'reply', text: EDIT_REPLY }) });
  const asked = await deepwork(['why?', '--host', fake.host, '--model', 'm'], dir, config);
  assert.equal(asked.code, 0, asked.stderr);
  return { dir, config, host: fake.host, close: fake.close };
}

describe('languageOf (issue 29.12)', () => {
  const where = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform = 'linux', locale = 'en-US') => ({
    env,
    platform,
    systemLocale: () => locale,
  });
  it('takes --lang, then LC_ALL, LC_MESSAGES and LANG in that order, then on Windows the system locale', () => {
    const cases: Array<[string | undefined, ReturnType<typeof where>, string]> = [
      ['ru', where({ LANG: 'en_US.UTF-8' }), 'ru'],
      ['EN', where({ LC_ALL: 'ru_RU.UTF-8' }), 'en'],
      [undefined, where({ LC_ALL: 'ru_RU.UTF-8', LANG: 'en_US.UTF-8' }), 'ru'],
      [undefined, where({ LC_ALL: '', LC_MESSAGES: 'ru_RU.KOI8-R', LANG: 'en_US' }), 'ru'],
      [undefined, where({ LC_MESSAGES: 'C', LANG: 'ru_RU.UTF-8' }), 'en'],
      [undefined, where({ LANG: 'ru' }), 'ru'],
      [undefined, where({ LANG: 'Russian_Russia.1251' }), 'ru'],
      [undefined, where({ LANG: 'rw_RW' }), 'en'],
      [undefined, where({}, 'linux', 'ru-RU'), 'en'],
      [undefined, where({}, 'win32', 'ru-RU'), 'ru'],
      [undefined, where({}, 'win32', 'de-DE'), 'en'],
      [undefined, where({ LANG: 'en_US.UTF-8' }, 'win32', 'ru-RU'), 'en'],
    ];
    for (const [flag, w, lang] of cases) assert.equal(languageOf(flag, w), lang, `${flag} ${JSON.stringify(w.env)}`);
  });

  it('refuses a --lang it does not speak, naming the value and the choices', () => {
    assert.throws(
      () => languageOf('de', where({})),
      (e: unknown) =>
        e instanceof DeepworkError && e.code === 'USAGE' && /--lang must be en or ru, not "de"/.test(e.message),
    );
  });
});

describe('the console in Russian (issue 29.12)', () => {
  it('speaks Russian where the locale is Russian, from the table the pult uses, and --lang en overrides it', async () => {
    const { dir, config, host, close } = await projectWithRun();
    try {
      const ru = await deepwork(['почему?', '--host', host, '--model', 'm'], dir, config, { LANG: 'ru_RU.UTF-8' });
      assert.equal(ru.code, 0, ru.stderr);
      assert.match(ru.stderr, /^deepwork: .*; папка .*; не больше 8 шагов\n/);
      assert.match(ru.stderr, /\nШаг 1\/8: отправка [\d\u00a0]+ символ(?:а|ов), около [\d\u00a0]+ токен/);
      assert.match(ru.stderr, /\nОтвет за 1 шаг\.|\nШаг 1\/8: ответ из \d+ символ/);
      assert.match(ru.stdout, /^==== ответ модели ====\n/);
      assert.match(ru.stdout, /\[EDIT math\.js: изменён, \+1 -1; см\. список ниже\]/);
      assert.match(
        ru.stdout,
        /Предложенные файлы \(не записаны;.*\n {2}изменён +math\.js \+1 -1\n {2}новый +notes\.md \+1/,
      );
      const en = await deepwork(['why?', '--host', host, '--model', 'm', '--lang', 'en'], dir, config, {
        LANG: 'ru_RU.UTF-8',
      });
      assert.match(en.stdout, /Proposed files \(not written;/);
      assert.match(en.stderr, /\nStep 1\/8: sending /);
      // --json keeps its English keys and values whatever the language.
      const json = await deepwork(['why?', '--host', host, '--model', 'm', '--json'], dir, config, {
        LC_ALL: 'ru_RU.UTF-8',
      });
      const parsed = JSON.parse(json.stdout) as { files: Array<{ status: string }> };
      assert.deepEqual(
        parsed.files.map((f) => f.status),
        ['changed', 'new'],
      );
      const undo = await deepwork(['undo', '--list'], dir, config, { LANG: 'ru_RU.UTF-8' });
      assert.match(undo.stdout, /Для этой папки записанных наборов нет\./);
      const wrong = await deepwork(['undo', 'list'], dir, config, { LANG: 'ru_RU.UTF-8' });
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /^deepwork: deepwork undo не принимает больше слов, а получил "list"\./);
      assert.match(wrong.stderr, /\nКоманды и флаги: deepwork --help\.\n$/);
      const help = await deepwork(['--help'], dir, config, { LANG: 'ru_RU.UTF-8' });
      assert.match(help.stdout, /^deepwork: чат-модель читает код этой папки/);
      assert.match(help.stdout, /\n {6}--dry-run {17}показать список и diff того, что запишет apply/);
      assert.match(help.stdout, /\nКоды выхода:\n {2}0 {4}готово/);
      assert.deepEqual(
        help.stdout.split('\n').filter((line) => line.length > 100),
        [],
        'no line over 100 columns',
      );
    } finally {
      await close();
    }
  });
});

describe('deepwork apply: a look before writing (issue 29.9)', () => {
  it('--dry-run lists and diffs what it would write, and writes nothing', async () => {
    const { dir, config, close } = await projectWithRun();
    try {
      const run = await deepwork(['apply', '--dry-run'], dir, config);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^Would write \(a dry run: nothing is written/);
      assert.match(run.stdout, /\n- {2}return a - b;\n\+ {2}return a \+ b;\n/);
      // A new file's diff has nothing before it, as git writes it (issue 29.8).
      assert.match(run.stdout, /\n {2}new +notes\.md \+1\n--- \/dev\/null\n\+\+\+ b\/notes\.md\n/);
      assert.equal(fs.readFileSync(path.join(dir, 'math.js'), 'utf8'), MATH);
      assert.equal(fs.existsSync(path.join(dir, 'notes.md')), false);
    } finally {
      await close();
    }
  });

  it('asks on a terminal, writes nothing on "n" or Ctrl-C (exit 130), and writes on "y"', async () => {
    const { dir, config, close } = await projectWithRun();
    try {
      const no = await onTerminal(['apply'], dir, config, { reply: { when: '[y/N]', answer: 'n\r' } });
      assert.equal(no.code, 0, no.screen);
      assert.match(no.screen, /Proposed files \(written if you say so below\):/);
      assert.match(no.screen, /\n(?:\x1b\[1m)? {2}changed +math\.js \+1 -1/);
      assert.match(no.screen, /Write these 2 files\? \[y\/N\]/);
      assert.match(no.screen, /Nothing written\. deepwork apply asks again; --yes writes without asking\./);
      assert.equal(fs.readFileSync(path.join(dir, 'math.js'), 'utf8'), MATH);
      const stopped = await onTerminal(['apply'], dir, config, { reply: { when: '[y/N]', answer: '\x03' } });
      assert.equal(stopped.code, 130, stopped.screen);
      assert.equal(fs.existsSync(path.join(dir, 'notes.md')), false);
      const yes = await onTerminal(['apply'], dir, config, { reply: { when: '[y/N]', answer: 'y\r' } });
      assert.equal(yes.code, 0, yes.screen);
      assert.match(yes.screen, /changed +math\.js \+1 -1 {2}written/);
      assert.match(fs.readFileSync(path.join(dir, 'math.js'), 'utf8'), /a \+ b/);
    } finally {
      await close();
    }
  });

  it('writes without asking with --yes on a terminal', async () => {
    const { dir, config, close } = await projectWithRun();
    try {
      const run = await onTerminal(['apply', '--yes'], dir, config);
      assert.equal(run.code, 0, run.screen);
      assert.doesNotMatch(run.screen, /\[y\/N\]/);
      assert.equal(fs.readFileSync(path.join(dir, 'notes.md'), 'utf8'), 'add() was wrong.\n');
    } finally {
      await close();
    }
  });
});

describe('diffs in colour (issue 29.8)', () => {
  it('colours a diff where stdout takes colour (FORCE_COLOR), and not with NO_COLOR or in a pipe', async () => {
    const { dir, config, close } = await projectWithRun();
    try {
      const forced = await deepwork(['apply', '--dry-run'], dir, config, { FORCE_COLOR: '1', NO_COLOR: '1' });
      assert.match(forced.stdout, /\x1b\[31m- {2}return a - b;\x1b\[39m\n\x1b\[32m\+ {2}return a \+ b;\x1b\[39m/);
      assert.match(forced.stdout, /\x1b\[36m@@ -1,3 \+1,3 @@\x1b\[39m/);
      const piped = await deepwork(['apply', '--dry-run'], dir, config);
      assert.doesNotMatch(piped.stdout, /\x1b/);
      const terminal = await onTerminal(['apply', '--dry-run'], dir, config);
      assert.match(terminal.screen, /\x1b\[32m\+ {2}return a \+ b;/);
      const plain = await onTerminal(['apply', '--dry-run'], dir, config, { env: { NO_COLOR: '1' } });
      assert.ok(plain.screen.includes('+  return a + b;'), plain.screen);
      assert.doesNotMatch(plain.screen, /\x1b\[3[12]m/);
    } finally {
      await close();
    }
  });
});

describe('--files as people type it (issue 29.10)', () => {
  it('takes space-separated files, masks and -f, and refuses a word after --files that names no file', async () => {
    const dir = tempFolder({
      'a.js': 'const a = 1;\n',
      'b.js': 'const b = 2;\n',
      'src/c.js': 'c\n',
      'src/d.js': 'd\n',
    });
    const config = configIn(tempFolder());
    const fake = await startFakeBridge({ chat: () => ({ kind: 'reply', text: 'ok' }) });
    try {
      const spaced = await deepwork(['--files', 'a.js', 'b.js', 'what is a?', '--host', fake.host], dir, config);
      assert.equal(spaced.code, 0, spaced.stderr);
      const first = fake.chats[0]?.content ?? '';
      assert.match(first, /const a = 1;/);
      assert.match(first, /const b = 2;/);
      assert.match(first, /what is a\?/);
      assert.doesNotMatch(first, /b\.js what is a/);
      const masked = await deepwork(['-f', 'src/*.js', 'why?', '--host', fake.host], dir, config);
      assert.equal(masked.code, 0, masked.stderr);
      assert.match(fake.chats[1]?.content ?? '', /src\/c\.js[\s\S]*src\/d\.js/);
      const wrong = await deepwork(['--files', 'a.js', 'nope.js', 'why?', '--host', fake.host], dir, config);
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /"nope\.js" follows --files, but there is no such file/);
      const none = await deepwork(['--files', 'lib/*.js', 'why?', '--host', fake.host], dir, config);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /lib\/\*\.js: no file matches it/);
      assert.equal(fake.chats.length, 2);
    } finally {
      await fake.close();
    }
  });
});

describe('the reply on a terminal (issue 29.7)', () => {
  it('shows the answer once where stdout is the terminal, and streams it on stderr only where stdout is not', async () => {
    const dir = tempFolder({ 'a.js': 'a\n' });
    const config = configIn(tempFolder());
    const answer = 'The answer is in a.js, line 1.';
    const fake = await startFakeBridge({ chat: () => ({ kind: 'reply', text: answer, stream: true, chunks: 4 }) });
    try {
      const terminal = await onTerminal(['q', '--host', fake.host], dir, config);
      assert.equal(terminal.code, 0, terminal.screen);
      assert.equal(terminal.screen.split(answer).length - 1, 1, terminal.screen);
      // stdout into a file, stderr on the terminal: the reply streams there, dimmed, and the file gets the answer.
      const out = path.join(tempFolder(), 'answer.txt');
      const streamed = await onTerminal(['q', '--host', fake.host], dir, config, { stdout: out });
      assert.equal(streamed.code, 0, streamed.screen);
      assert.ok(streamed.screen.includes('\x1b[2m'), streamed.screen);
      assert.ok(streamed.screen.includes('The answer'), streamed.screen);
      assert.match(fs.readFileSync(out, 'utf8'), /The answer is in a\.js, line 1\./);
      const quiet = await onTerminal(['q', '--no-stream', '--host', fake.host], dir, config, { stdout: out });
      assert.equal(quiet.code, 0, quiet.screen);
      assert.ok(!quiet.screen.includes('The answer'), quiet.screen);
    } finally {
      await fake.close();
    }
  });
});
