// What each proposed file would do to the folder: new, changed (with +/- lines), unchanged, or incomplete.

import fs from 'node:fs';
import { diffLines } from 'diff';
import type { FileBlock } from './parse.ts';
import { resolvePath, type Sandbox } from './sandbox.ts';

export type ProposalStatus = 'new' | 'changed' | 'unchanged' | 'incomplete' | 'refused';

export type Proposal = { path: string; status: ProposalStatus; added: number; removed: number; reason?: string };

export function describeProposal(box: Sandbox, block: FileBlock): Proposal {
  const base = { path: block.path, added: 0, removed: 0 };
  if (!block.complete) return { ...base, status: 'incomplete', reason: 'the reply ended before its END marker' };
  const place = resolvePath(box, block.path);
  switch (place.kind) {
    case 'missing':
      return { ...base, status: 'new', added: countLines(block.content) };
    case 'file': {
      const old = fs.readFileSync(place.real, 'utf8');
      if (old === block.content) return { ...base, status: 'unchanged' };
      const counts = changedLines(old, block.content);
      return { ...base, status: 'changed', ...counts };
    }
    case 'folder':
      return { ...base, status: 'refused', reason: 'a folder has that path' };
    case 'refused':
    case 'withheld':
      return { ...base, status: 'refused', reason: place.reason };
  }
}

export function changedLines(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    if (part.added) added += part.count ?? 0;
    if (part.removed) removed += part.count ?? 0;
  }
  return { added, removed };
}

function countLines(text: string): number {
  if (text === '') return 0;
  let n = text.endsWith('\n') ? 0 : 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
