// Other programs deepwork starts (the browser's opener, the clipboard tools): never from the project folder, and on
// Windows by their full paths. Windows looks for a program in the current folder before PATH, so `cmd` started in a
// project holding a cmd.bat or cmd.exe runs the project's file: a file a model may have proposed. Elsewhere an empty
// entry in PATH means the current folder too.

import path from 'node:path';

// The current folder to start a program in: Windows' System32, or / elsewhere (not the temp folder: anyone may write
// there).
export function programFolder(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return platform === 'win32' ? path.win32.join(systemRoot(env), 'System32') : '/';
}

// A program of Windows' own by its full path: `cmd.exe`, `WindowsPowerShell\v1.0\powershell.exe` under System32.
export function windowsProgram(rel: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.win32.join(systemRoot(env), 'System32', rel);
}

function systemRoot(env: NodeJS.ProcessEnv): string {
  const root = env.SystemRoot ?? env.SYSTEMROOT ?? env.windir ?? '';
  return path.win32.isAbsolute(root) ? root : 'C:\\Windows';
}
