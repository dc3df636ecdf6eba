// Builds what is sent to the model. The bridge remembers nothing, so every message carries the whole conversation:
// the first message, then each previous answer and the results of its requests.

import fs from 'node:fs';
import type { Limits } from './contract.ts';
import { formatCount } from '../common/text.ts';
import { DeepworkError, errnoOf, messageOf } from '../common/errors.ts';

export type Texts = { instructions: string; reminder: string; lastStep: string };

const INSTRUCTIONS = new URL('./instructions.md', import.meta.url);

// Reads the instructions file: three sections headed `# instructions`, `# reminder` and `# last step`, with the
// limits filled in. Kept in one file so the wording can be tuned without touching code.
export function loadTexts(limits: Limits, file: URL | string = INSTRUCTIONS): Texts {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  let source: string;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new DeepworkError('INSTRUCTIONS_INVALID', `The instructions file ${String(file)} cannot be read (${errnoOf(error) ?? messageOf(error)}). Reinstall deepwork (npm install) to bring it back.`, { cause: error });
  }
  for (const line of source.split(/\r?\n/)) {
    if (line.startsWith('# ')) {
      current = [];
      sections.set(line.slice(2).trim(), current);
    } else {
      current?.push(line);
    }
  }
  const section = (name: string): string => {
    const lines = sections.get(name);
    if (lines === undefined) {
      throw new DeepworkError('INSTRUCTIONS_INVALID', `The instructions file ${String(file)} has no "# ${name}" section. It needs "# instructions", "# reminder" and "# last step"; compare with the one deepwork ships.`);
    }
    return lines.join('\n').trim().replace(/\{(\w+)\}/g, (all, key: string) => {
      const value: unknown = Object.hasOwn(limits, key) ? Object.entries(limits).find(([name]) => name === key)?.[1] : undefined;
      return typeof value === 'number' ? formatCount(value) : all;
    });
  };
  return { instructions: section('instructions'), reminder: section('reminder'), lastStep: section('last step') };
}
