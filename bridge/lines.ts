// Framing for a streamed body: lines out of chunks. Only the new chunk is searched for line ends, and the partial last
// line waits in a list of pieces, so a body sent as one huge line costs linear time, not quadratic. A line longer than
// `maxLineBytes` ends the stream with an error instead of filling the memory.

import { DeepworkError } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';

export async function* lines(body: AsyncIterable<Buffer>, maxLineBytes: number, what: string): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of body) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (pendingBytes + piece.length > maxLineBytes) throw tooLong(what, maxLineBytes);
      yield (pending.length === 0 ? piece : Buffer.concat([...pending, piece])).toString('utf8');
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
    }
    if (start < chunk.length) {
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxLineBytes) throw tooLong(what, maxLineBytes);
      pending.push(chunk.subarray(start));
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending).toString('utf8');
}

function tooLong(what: string, max: number): DeepworkError {
  return new DeepworkError('BRIDGE_PROTOCOL', `${what} sent a line of more than ${formatCount(max)} bytes without a line end; that is not an answer. Check the bridge, or raise maxReplyChars in config.json if the answer was real.`);
}
