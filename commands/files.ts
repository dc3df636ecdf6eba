// The files a question sends with --files (-f): paths or masks, comma-separated, and the words that came right after
// its value when they name files too (`--files a.js b.js "why?"`: the shell split the list). A mask (`src/*.js`) is
// matched here, as LIST matches it, since cmd.exe passes it on as it is. Every file is read before anything is sent;
// one that cannot be is a usage error that names it, so a wasted run (minutes with a web chat) is not started.

import fs from 'node:fs';
import path from 'node:path';
import { DeepworkError } from '../common/errors.ts';
import type { Result } from '../protocol/results.ts';
import type { Executor } from '../reading/executor.ts';
import { consoleTexts } from '../common/strings/console.js';
import { usageTexts } from '../common/strings/usage.js';
import { textsIn } from '../common/strings/language.js';
import type { Context } from './context.ts';
import { listOf } from './context.ts';

const MASK = /[*?[\]{}]/;
// A word that reads as a path rather than as part of a question: no spaces, and a folder or an extension in it.
const LOOKS_LIKE_PATH = /^[^\s]*(?:[/\\][^\s]*|\.[A-Za-z0-9]{1,8})$/;

// The paths and masks named, and the question without the words taken as files. A word after --files that reads as
// a path but is no file is refused rather than sent as part of the question.
export function filesAndQuestion(
  context: Pick<Context, 'flags' | 'words' | 'afterFiles' | 'question' | 'cwd' | 'lang'>,
): {
  files: string[];
  question: string;
} {
  const files = listOf(context.flags.files);
  if (context.afterFiles.length === 0) return { files, question: context.question };
  const taken = new Set<number>();
  for (const i of context.afterFiles) {
    const word = context.words[i] ?? '';
    const named = listOf(word);
    // A mask only where it reads as a path: "why?" ends a question.
    const all =
      named.length > 0 && named.every((p) => (MASK.test(p) && LOOKS_LIKE_PATH.test(p)) || isFile(context.cwd, p));
    if (all) {
      files.push(...named);
      taken.add(i);
    } else if (LOOKS_LIKE_PATH.test(word)) {
      throw new DeepworkError('USAGE', usageTexts.notAFile[context.lang](word));
    } else break;
  }
  const question = context.words
    .filter((_, i) => !taken.has(i))
    .join(' ')
    .trim();
  if (question === '') throw new DeepworkError('USAGE', usageTexts.noQuestion[context.lang]);
  return { files, question };
}

function isFile(cwd: string, rel: string): boolean {
  try {
    return fs.statSync(path.resolve(cwd, rel)).isFile();
  } catch {
    return false;
  }
}

// At most this many files from one mask: past it the mask is too wide to be meant.
const MASK_FILES = 50;

// The files named, masks matched, each read: what was read is what is sent.
export async function readAttached(
  executor: Executor,
  named: readonly string[],
  lang: Context['lang'],
): Promise<{ paths: string[]; results: Result[] }> {
  const t = textsIn(consoleTexts, lang);
  const problems: string[] = [];
  const paths: string[] = [];
  for (const name of named) {
    if (!MASK.test(name)) {
      paths.push(name);
      continue;
    }
    const [listed] = await executor.answer([{ kind: 'list', mask: name, line: 0 }]);
    if (listed?.kind !== 'list' || listed.total === 0) problems.push(`  ${t.fileNoMatch(name)}`);
    else if (listed.total > MASK_FILES || listed.paths.length < listed.total)
      throw new DeepworkError('USAGE', usageTexts.maskTooWide[lang](name, listed.total, MASK_FILES));
    else paths.push(...listed.paths);
  }
  const unique = [...new Set(paths)];
  const results = unique.length === 0 ? [] : await executor.answer([{ kind: 'need', paths: unique, line: 0 }]);
  for (const r of results) {
    if (r.kind === 'missing') problems.push(`  ${t.fileMissing(r.path, r.closest.slice(0, 3))}`);
    else if (r.kind === 'refused') problems.push(`  ${t.fileRefused(r.path, r.reason)}`);
    else if (r.kind === 'withheld') problems.push(`  ${t.fileWithheld(r.path, r.reason)}`);
    else if (r.kind === 'binary') problems.push(`  ${t.fileBinary(r.path, r.what)}`);
  }
  if (problems.length > 0) throw new DeepworkError('USAGE', `${t.filesHead(problems.length)}\n${problems.join('\n')}`);
  return { paths: unique, results };
}
