// The console's lists: the proposals and what became of them (with their diffs, coloured on a terminal that takes
// colour), the backup sets, an undo's report. Each comes out as `Shown`: text for stdout with every foreign part
// (paths, reasons, a diff's lines) made safe, so that deepwork's own styling can go around it.

import type { ApplyReport } from '../writing/apply.ts';
import { laterWrites, type UndoReport } from '../writing/undo.ts';
import type { SetInfo } from '../writing/backup-sets.ts';
import { escapeControls } from '../common/text.ts';
import { consoleTexts, STATUS, UNDO_ACTION } from '../common/strings/console.js';
import { textsIn } from '../common/strings/language.js';
import type { Io } from './output.ts';

// Text safe to print as it is: what came from outside is escaped, what is styled is deepwork's own.
export type Shown = { shown: string };

export function show(io: Io, text: Shown): void {
  (io.safe ?? io.out)(text.shown);
}

const SGR = { bold: ['\x1b[1m', '\x1b[22m'], dim: ['\x1b[2m', '\x1b[22m'] } as const;
const COLOUR = { red: '\x1b[31m', green: '\x1b[32m', cyan: '\x1b[36m', reset: '\x1b[39m' } as const;

// One diff line styled as git styles it: the headers bold, a hunk's range cyan, removed red, added green.
function paintLine(line: string): string {
  const safe = escapeControls(line);
  if (line.startsWith('--- ') || line.startsWith('+++ ')) return `${SGR.bold[0]}${safe}${SGR.bold[1]}`;
  if (line.startsWith('@@')) return `${COLOUR.cyan}${safe}${COLOUR.reset}`;
  if (line.startsWith('-')) return `${COLOUR.red}${safe}${COLOUR.reset}`;
  if (line.startsWith('+')) return `${COLOUR.green}${safe}${COLOUR.reset}`;
  if (line.startsWith('\\') || line.startsWith('… ')) return `${SGR.dim[0]}${safe}${SGR.dim[1]}`;
  return safe;
}

// A unified diff for the console: coloured when `colour`, as it is otherwise (its control characters made visible).
export function paintDiff(diff: string, colour: boolean): string {
  return colour ? diff.split('\n').map(paintLine).join('\n') : escapeControls(diff);
}

// deepwork's own line, bold where stdout takes colour.
function own(text: string, colour: boolean): string {
  const safe = escapeControls(text);
  return colour && safe !== '' ? `${SGR.bold[0]}${safe}${SGR.bold[1]}` : safe;
}

// `written`: after an apply; `proposed`: the proposals of a question asked without --apply; `asking`: before the
// question whether to write them; `dry-run`: what apply would write.
export type ListKind = 'written' | 'proposed' | 'asking' | 'dry-run';

// The proposals, one line each (`diff` adds each file's diff); an apply stopped with Ctrl-C counts the files it did
// not reach on one line.
export function listFiles(io: Pick<Io, 'lang' | 'colour'>, report: ApplyReport, kind: ListKind, diff: boolean): Shown {
  const lang = io.lang ?? 'en';
  const colour = io.colour === true;
  const t = textsIn(consoleTexts, lang);
  const status = STATUS[lang];
  const width = Math.max(10, ...Object.values(status).map((s) => s.length));
  const stopped = report.files.filter((f) => f.status === 'stopped');
  const lines = report.files
    .filter((f) => f.status !== 'stopped')
    .map((f) => {
      const counts =
        f.status === 'changed' || f.status === 'held back'
          ? ` +${f.added} -${f.removed}`
          : f.status === 'new'
            ? ` +${f.added}`
            : '';
      const state = kind !== 'written' ? '' : `  ${f.written ? t.written : t.notWritten}`;
      const reason = f.reason === undefined ? '' : `: ${f.reason}`;
      const text = own(`  ${status[f.status].padEnd(width)} ${f.path}${counts}${state}${reason}`, colour);
      return diff && f.diff !== undefined ? `${text}\n${paintDiff(f.diff, colour)}` : text;
    });
  if (stopped.length > 0) lines.push(own(`  ${status.stopped.padEnd(width)} ${t.stoppedRest(stopped.length)}`, colour));
  const head = { written: t.writtenHead, proposed: t.proposedHead, asking: t.askingHead, 'dry-run': t.dryRunHead }[
    kind
  ];
  // Files with a diff to show: new, changed, or held back for what they would run.
  const changes = report.files.some((f) => f.status === 'new' || f.status === 'changed' || f.status === 'held back');
  const hint = diff || !changes || kind === 'dry-run' ? [] : [own(t.diffHint(kind === 'proposed'), colour)];
  const backup = report.backupSet === undefined ? [] : [own(t.backupSaved(report.backupSet), colour)];
  return { shown: [own(head, colour), ...lines, ...hint, ...backup].join('\n') };
}

export function listSets(io: Pick<Io, 'lang'>, sets: readonly SetInfo[]): string {
  const t = textsIn(consoleTexts, io.lang ?? 'en');
  if (sets.length === 0) return t.noSets;
  return sets
    .map((set) => {
      const files = set.manifest.files.filter((f) => f.written).map((f) => `${f.existed ? '' : '+'}${f.path}`);
      const state = set.manifest.undone
        ? ` (${t.setUndone})`
        : set.manifest.complete
          ? ''
          : ` (${t.setCut(files.length, set.manifest.files.length)})`;
      return `${set.name}${state}: ${files.join(', ')}`;
    })
    .join('\n');
}

export function undoneReport(io: Pick<Io, 'lang'>, report: UndoReport & { set: SetInfo }): string {
  const lang = io.lang ?? 'en';
  const t = textsIn(consoleTexts, lang);
  if (report.later.length > 0) return t.undoLater(report.set.name, laterWrites(report.later));
  const action = UNDO_ACTION[lang];
  const width = Math.max(9, ...Object.values(action).map((s) => s.length));
  const lines = report.files.map(
    (f) => `  ${action[f.action].padEnd(width)} ${f.path}${f.reason === undefined ? '' : ` (${f.reason})`}`,
  );
  return [t.undoing(report.set.name), ...(lines.length === 0 ? [`  ${t.undoNothing}`] : lines)].join('\n');
}
