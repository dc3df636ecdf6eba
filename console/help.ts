// `deepwork --help` in the person's language: the commands, every flag on a line of its own (from the flag table,
// with its text from common/strings/help.js), where deepwork keeps its files, and the exit codes.

import { FLAGS, type FlagName } from './args.ts';
import { flagTexts, helpTexts } from '../common/strings/help.js';
import { textsIn, type Lang } from '../common/strings/language.js';

// Every flag has its text in both languages: a flag added to the table without one does not compile.
const WHAT: { [K in FlagName]: { en: string; ru: string } } = flagTexts;

// Help lines are at most this wide (a console window of 100 columns and more shows them whole), flags' texts from
// this column.
const HELP_WIDTH = 100;
const FLAG_COLUMN = 32;

// Text broken at spaces into lines of at most `width` characters (a longer word stands alone).
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  return [...lines, line];
}

// `places`: config, state and backups as this deepwork has them; `problem`: why the config did not load, or that
// it is not there.
export type Places = { config: string; state: string; backups: string; problem?: 'absent' | { unloadable: string } };

export function helpText(places: Places, lang: Lang = 'en'): string {
  const t = textsIn(helpTexts, lang);
  const flagLines = (Object.keys(FLAGS) as FlagName[]).flatMap((name) => {
    const spec: { type: string; short?: string; value?: string } = FLAGS[name];
    const short = spec.short === undefined ? '    ' : `-${spec.short}, `;
    const left = `  ${short}--${name}${spec.value === undefined ? '' : ` ${spec.value}`}`;
    return wrap(WHAT[name][lang], HELP_WIDTH - FLAG_COLUMN).map(
      (line, i) => `${(i === 0 ? left : '').padEnd(FLAG_COLUMN)}${line}`,
    );
  });
  const note =
    places.problem === undefined
      ? undefined
      : places.problem === 'absent'
        ? t.notThere
        : t.doesNotLoad(places.problem.unloadable);
  return [
    t.intro,
    '',
    t.commands,
    '',
    t.flags,
    ...flagLines,
    '',
    ...wrap(t.environment, HELP_WIDTH),
    '',
    t.config(places.config, note),
    t.state(places.state),
    t.backups(places.backups),
    '',
    t.exitCodes,
  ].join('\n');
}
