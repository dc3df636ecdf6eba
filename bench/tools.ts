// What the benchmark stands on: the corpus, the reference tools, and timing.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { INSTALL_DIR } from '../common/install.ts';

// The bench folder of the sources (the compiled bench runs from dist/bench): the corpus and results live there.
export const BENCH = path.join(INSTALL_DIR, 'bench');
export const CORPUS = path.join(BENCH, 'corpus', 'node_modules');

// The corpus: real code from the pinned packages of bench/corpus/package-lock.json, installed on first use.
export function ensureCorpus(): void {
  if (fs.existsSync(CORPUS)) return;
  process.stderr.write('Installing the benchmark corpus (bench/corpus, from its lock file)…\n');
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: path.dirname(CORPUS),
    stdio: 'inherit',
  });
}

// ripgrep and fd from Debian's packages; installed when missing and this user may.
export function ensureTools(): { rg: string; fd: string } {
  const find = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (find('rg') === '' || find('fdfind') === '') {
    if (process.getuid?.() !== 0) throw new Error('ripgrep and fd are needed: apt-get install ripgrep fd-find');
    process.stderr.write('Installing ripgrep and fd-find…\n');
    execFileSync(
      'sh',
      ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep fd-find >/dev/null'],
      { stdio: 'inherit' },
    );
  }
  return { rg: find('rg'), fd: find('fdfind') };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

// A command's wall time in ms, and what it printed; exit 1 counts as a run (grep's "found nothing").
export function timedRun(
  command: string,
  args: readonly string[],
  cwd: string,
): { ms: number; stdout: string; stderr: string } {
  const started = process.hrtime.bigint();
  const run = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 256 << 20 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0 && run.status !== 1)
    throw new Error(`${command} ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  return { ms, stdout: run.stdout, stderr: run.stderr };
}

// Wall time of a whole process, in ms; the command runs through sh so `| head` pipelines work.
export function processTime(command: string, cwd: string): { ms: number; stdout: string } {
  return timedRun('sh', ['-c', command], cwd);
}

export async function time(fn: () => unknown): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export function countFiles(root: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const stack = [root];
  for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== '.git') stack.push(abs);
      } else if (e.isFile()) {
        files++;
        bytes += fs.statSync(abs).size;
      }
    }
  }
  return { files, bytes };
}

// The machine, for the README's table.
export function machine(): string {
  const cpus = (() => {
    try {
      const info = fs.readFileSync('/proc/cpuinfo', 'utf8');
      return /model name\s*:\s*(.+)/.exec(info)?.[1]?.trim() ?? 'unknown CPU';
    } catch {
      return 'unknown CPU';
    }
  })();
  const cores = spawnSync('nproc', { encoding: 'utf8' }).stdout.trim();
  return `${cores} cores (${cpus}), Node ${process.version}, ${process.platform}`;
}
