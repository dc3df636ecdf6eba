// The system's clipboard, through its command-line tools, for `--paste`: a message is put on it, and while the reply is
// awaited the clipboard is watched, so that the chat's answer copied with its Copy button is taken without a key
// pressed (as aider's --copy-paste does).

import { execFile, spawnSync } from 'node:child_process';
import { programFolder, windowsProgram } from '../common/programs.ts';

// `copy`: puts the text on the clipboard (`file` holds the same text: PowerShell reads it), true when it did. `read`:
// the clipboard's text, or undefined when there is none or the tool failed or took too long; a read under way when
// `signal` aborts ends at once, its process killed.
export type Clipboard = {
  name: string;
  copy: (text: string, file: string) => boolean;
  read: (signal: AbortSignal) => Promise<string | undefined>;
};

// A read is a process started each time: one that takes longer than this is killed (a clipboard tool answers in
// milliseconds; PowerShell's start takes the most, about a second on a slow machine).
const READ_TIMEOUT_MS = 5_000;
// The watch's pause between one read's end and the next read.
const WATCH_INTERVAL_MS = 1_000;

// The clipboard tools, by platform and display: clip via PowerShell on Windows (Set-Clipboard reads the UTF-8 file,
// so Cyrillic survives), pbcopy/pbpaste on macOS, wl-copy/wl-paste under Wayland, xclip or xsel under X. None is
// started in the project folder, and PowerShell by its full path (see common/programs.ts). Undefined when there is
// none: then nothing is ever started to read it.
export function clipboardOf(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Clipboard | undefined {
  const cwd = programFolder(platform, env);
  const has = (tool: string) =>
    spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { env, cwd, stdio: 'ignore' }).status === 0;
  const copy = (command: string, args: string[], input?: string) =>
    spawnSync(command, args, { env, cwd, input, encoding: 'utf8', timeout: 5_000, maxBuffer: 64 << 20 }).status === 0;
  const read =
    (command: string, args: string[]) =>
    (signal: AbortSignal): Promise<string | undefined> =>
      new Promise((resolve) => {
        if (signal.aborted) return resolve(undefined);
        execFile(
          command,
          args,
          {
            env,
            cwd,
            signal,
            encoding: 'utf8',
            timeout: READ_TIMEOUT_MS,
            killSignal: 'SIGKILL',
            maxBuffer: 64 << 20,
            windowsHide: true,
          },
          // Called once the process has ended, however it ended.
          (error, stdout) => resolve(error === null ? stdout : undefined),
        );
      });
  if (platform === 'win32') {
    const powershell = windowsProgram('WindowsPowerShell\\v1.0\\powershell.exe', env);
    return {
      name: 'the Windows clipboard',
      copy: (_text, file) =>
        copy(powershell, [
          '-NoProfile',
          '-Command',
          `Get-Content -Raw -Encoding UTF8 -LiteralPath '${file.replaceAll("'", "''")}' | Set-Clipboard`,
        ]),
      read: read(powershell, [
        '-NoProfile',
        '-Command',
        '[Console]::OutputEncoding = [Text.Encoding]::UTF8; Get-Clipboard -Raw',
      ]),
    };
  }
  if (platform === 'darwin' && has('pbcopy'))
    return { name: 'the clipboard', copy: (text) => copy('pbcopy', [], text), read: read('pbpaste', []) };
  if (env.WAYLAND_DISPLAY !== undefined && has('wl-copy'))
    return {
      name: 'the clipboard (wl-copy)',
      copy: (text) => copy('wl-copy', [], text),
      read: read('wl-paste', ['--no-newline']),
    };
  if (env.DISPLAY !== undefined && has('xclip'))
    return {
      name: 'the clipboard (xclip)',
      copy: (text) => copy('xclip', ['-selection', 'clipboard'], text),
      read: read('xclip', ['-selection', 'clipboard', '-o']),
    };
  if (env.DISPLAY !== undefined && has('xsel'))
    return {
      name: 'the clipboard (xsel)',
      copy: (text) => copy('xsel', ['--clipboard', '--input'], text),
      read: read('xsel', ['--clipboard', '--output']),
    };
  return undefined;
}

// Watches the clipboard until `signal` aborts: `onChange` is called with what the first read finds, then with each text
// unlike the one read before it; a failed read changes nothing. (The caller knows what it put there itself, so there is
// no first read to take as a baseline: one would race with a person quick to copy.) One read at a time, the next a
// second after the last ended, so a slow tool never piles processes up. When `signal` aborts, the timer is cleared and
// a read under way killed; the timer never holds the process open by itself.
export function watchClipboard(clipboard: Clipboard, signal: AbortSignal, onChange: (text: string) => void): void {
  let last: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  const poll = async () => {
    const text = await clipboard.read(signal);
    if (signal.aborted) return;
    if (text !== undefined && text !== last) {
      last = text;
      onChange(text);
    }
    if (signal.aborted) return;
    timer = setTimeout(poll, WATCH_INTERVAL_MS);
    timer.unref();
  };
  signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  void poll();
}
