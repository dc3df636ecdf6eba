// What became of the proposals of a conversation's earlier answers, for a question that continues it: each FILE or
// EDIT path written (and when), undone (and when), or not written. Read from the folder's backup sets, whose manifests
// say which files each apply wrote and when; so it holds whether the user wrote them with --apply, `deepwork apply` or
// the pult, and whether they undid them since. Without it a model assumed its change was in a file it had been undone
// from, read the file, and found it missing.

import { parseReply } from '../protocol/parse.ts';
import type { Turn } from '../protocol/conversation.ts';
import { setsOf, type SetInfo } from './backup-sets.ts';

// Each turn with `fates` said, where it proposed anything and its time is known.
export function withFates(turns: readonly Turn[], backupDir: string, root: string): Turn[] {
  if (!turns.some((t) => t.time !== undefined)) return [...turns];
  // Oldest first: the first set after an answer that wrote a path is that answer's write.
  const sets = setsOf(backupDir, root).reverse();
  return turns.map((turn, i) => {
    const paths = proposedPaths(turn);
    if (paths.length === 0 || turn.time === undefined) return turn;
    const until = turns[i + 1]?.time;
    const said = paths.map((p) => `${p} ${fateOf(p, sets, turn.time ?? '', until)}`);
    return { ...turn, fates: `[deepwork: what became of the proposals of this answer: ${said.join('; ')}.]` };
  });
}

// The paths an answer and its steps proposed to write, in order, once each.
function proposedPaths(turn: Turn): string[] {
  const texts = [...turn.steps.map((s) => s.answer), turn.answer];
  return [...new Set(texts.flatMap((text) => parseReply(text).proposals.map((p) => p.path)))];
}

function fateOf(path: string, sets: readonly SetInfo[], from: string, until: string | undefined): string {
  const set = sets.find(
    (s) =>
      s.manifest.created >= from &&
      (until === undefined || s.manifest.created < until) &&
      s.manifest.files.some((f) => f.path === path && f.written),
  );
  // `deepwork apply` writes the latest run's proposals: one an earlier answer made is written only if made again.
  if (set === undefined) return 'not written (the file is as it was; propose the change again if it is still wanted)';
  const written = `written ${when(set.manifest.created)}`;
  if (!set.manifest.undone) return written;
  return `${written}, then undone${set.manifest.undoneAt === undefined ? '' : ` ${when(set.manifest.undoneAt)}`}: the file is as it was before`;
}

// `2026-12-03 14:02 UTC`: what a model can compare, without the user's time zone.
function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
