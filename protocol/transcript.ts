// Builds what is sent to the model. The bridge remembers nothing, so every message carries the whole conversation:
// the first message, then each previous answer and the results of its requests.

import fs from 'node:fs';
import type { Limits } from './contract.ts';
import { formatCount } from '../common/text.ts';
import { DeepworkError, errnoOf, messageOf } from '../common/errors.ts';
import { kindOf, requestForms, requestKinds } from './requests.ts';

// `sameChat`: the shorter reminder that closes a message sent into a chat that already holds the instructions (a web
// chat through copy and paste); the full reminder where the file has no `# same chat` section.
export type Texts = { instructions: string; reminder: string; lastStep: string; sameChat: string };

const INSTRUCTIONS = new URL('./instructions.md', import.meta.url);

// Reads the instructions file: three sections headed `# instructions`, `# reminder` and `# last step`, and an optional
// `# same chat`, with the limits filled in. Kept in one file so the wording can be tuned without touching code.
export function loadTexts(limits: Limits, file: URL | string = INSTRUCTIONS): Texts {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  let source: string;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new DeepworkError(
      'INSTRUCTIONS_INVALID',
      `The instructions file ${String(file)} cannot be read (${errnoOf(error) ?? messageOf(error)}). Reinstall deepwork (npm install) to bring it back.`,
      { cause: error },
    );
  }
  for (const line of source.split(/\r?\n/)) {
    if (line.startsWith('# ')) {
      current = [];
      sections.set(line.slice(2).trim(), current);
    } else {
      current?.push(line);
    }
  }
  const section = (name: string, otherwise?: string): string => {
    const lines = sections.get(name) ?? (otherwise === undefined ? undefined : sections.get(otherwise));
    if (lines === undefined) {
      throw new DeepworkError(
        'INSTRUCTIONS_INVALID',
        `The instructions file ${String(file)} has no "# ${name}" section. It needs "# instructions", "# reminder" and "# last step"; compare with the one deepwork ships.`,
      );
    }
    return fillIn(fillIn(lines.join('\n').trim(), requestTexts()), limitTexts(limits));
  };
  return {
    instructions: section('instructions'),
    reminder: section('reminder'),
    lastStep: section('last step'),
    sameChat: section('same chat', 'reminder'),
  };
}

// What the request kinds put into the instructions (protocol/kinds/): `{requests}`, each kind's example and what it
// sends back; `{forms}`, `=== NEED: path ===`, … or …; `{keywords}`, NEED, LIST or FIND.
function requestTexts(): Record<string, string> {
  const either = (items: readonly string[], join: string) =>
    `${items.slice(0, -1).join(join)} or ${items.at(-1) ?? ''}`;
  return {
    requests: requestKinds.map((k) => kindOf(k).teach).join('\n'),
    forms: either(
      requestForms().map((f) => `\`${f}\``),
      ', ',
    ),
    keywords: either(
      requestKinds.map((k) => kindOf(k).keyword),
      ', ',
    ),
  };
}

// The limits, as the instructions name them (`{needChars}`), written as people read numbers.
function limitTexts(limits: Limits): Record<string, string> {
  return Object.fromEntries(Object.entries(limits).map(([name, value]) => [name, formatCount(value)]));
}

// `{name}` replaced by its text; a name not in `values` stays as it is.
function fillIn(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (all, key: string) => (Object.hasOwn(values, key) ? (values[key] ?? all) : all));
}
