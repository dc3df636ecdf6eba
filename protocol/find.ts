// Literal text search: all of a step's FIND texts in one pass over the files, stopping as soon as every text has its
// hits. One hit per line, as grep and ripgrep count them.

import fs from 'node:fs';
import type { Sandbox } from './sandbox.ts';
import { walk } from './walk.ts';
import { isBinary, openFile, readAll } from './read.ts';
import type { FindHit } from './results.ts';

// Files larger than this are not searched (and the result says how many were skipped): memory stays bounded.
export const FIND_MAX_FILE_BYTES = 64 << 20;

export type FindOutcome = { text: string; hits: FindHit[]; cut: boolean; skipped: number };

export type FindOptions = { maxHits: number; lineChars: number };

export function findAll(box: Sandbox, texts: readonly string[], options: FindOptions): FindOutcome[] {
  const needles = texts.map((text) => ({ text, bytes: Buffer.from(text, 'utf8') }));
  const outcomes: FindOutcome[] = texts.map((text) => ({ text, hits: [], cut: false, skipped: 0 }));
  let open = needles.length;
  const scratch = Buffer.allocUnsafe(1 << 20);

  for (const entry of walk(box)) {
    if (open === 0) break;
    if (entry.kind !== 'file') continue;
    const file = openFile(entry.abs);
    if (file === undefined) continue;
    let bytes: Buffer | undefined;
    try {
      bytes = readAll(file, scratch, FIND_MAX_FILE_BYTES);
    } catch {
      bytes = Buffer.alloc(0);
    } finally {
      fs.closeSync(file.fd);
    }
    if (bytes === undefined) {
      for (const o of outcomes) if (!o.cut) o.skipped++;
      continue;
    }
    if (isBinary(bytes)) continue;

    for (let i = 0; i < needles.length; i++) {
      const needle = needles[i];
      const outcome = outcomes[i];
      if (needle === undefined || outcome === undefined || outcome.cut) continue;
      if (searchFile(bytes, needle.bytes, entry.rel, outcome, options)) open--;
    }
  }
  return outcomes;
}

// Adds this file's hits; returns true when the outcome just reached its cap (a hit past the cap marks the cut).
function searchFile(bytes: Buffer, needle: Buffer, rel: string, outcome: FindOutcome, options: FindOptions): boolean {
  let line = 1;
  let counted = 0;
  for (let at = bytes.indexOf(needle); at !== -1; ) {
    line += countNewlines(bytes, counted, at);
    counted = at;
    if (outcome.hits.length === options.maxHits) {
      outcome.cut = true;
      return true;
    }
    const start = bytes.lastIndexOf(10, at) + 1;
    const newline = bytes.indexOf(10, at);
    const end = newline === -1 ? bytes.length : newline;
    outcome.hits.push({ path: rel, line, text: clip(bytes, start, end, at, needle.length, options.lineChars) });
    if (newline === -1) break;
    at = bytes.indexOf(needle, newline + 1);
  }
  return false;
}

function countNewlines(bytes: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = bytes.indexOf(10, from); i !== -1 && i < to; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

// The line of a hit, trimmed, and clipped around the hit when it is long (minified code has megabyte lines).
function clip(bytes: Buffer, start: number, end: number, at: number, length: number, max: number): string {
  if (end - start <= max * 3) {
    const line = bytes.toString('utf8', start, end).replace(/\r$/, '').trim();
    if (line.length <= max) return line;
  }
  const from = Math.max(start, at - Math.floor(max / 2));
  const to = Math.min(end, from + max + length);
  const inner = bytes.toString('utf8', from, to).replace(/^\uFFFD+|\uFFFD+$/g, '').trim();
  return `${from > start ? '… ' : ''}${inner}${to < end ? ' …' : ''}`;
}
