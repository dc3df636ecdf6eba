// What is piped in (`git diff | deepwork "review"`) or redirected from a file; nothing when standard input is a
// terminal, /dev/null or a socket (a program that started deepwork and keeps its input open would hang the run).

import fs from 'node:fs';

// What is piped in is sent as it is, up to this many characters; more is refused rather than cut.
export const PIPED_CHARS = 200_000;

// Read up to a little more than is ever sent, so an endless pipe cannot fill memory.
export async function readPiped(): Promise<Buffer | undefined> {
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(0);
  } catch {
    return undefined;
  }
  if (!stat.isFIFO() && !stat.isFile()) return undefined;
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    if (!Buffer.isBuffer(chunk)) continue;
    parts.push(chunk);
    size += chunk.length;
    if (size > PIPED_CHARS * 4 + 4) break;
  }
  process.stdin.destroy();
  return Buffer.concat(parts);
}
