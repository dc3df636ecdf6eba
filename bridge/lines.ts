// Framing for a streamed body: lines out of chunks. Only the new chunk is searched for line ends, and the partial last
// line waits in a list of pieces, so a body sent as one huge line costs linear time, not quadratic. A line longer than
// `maxLineBytes` ends the stream with an error instead of filling the memory.
//
// What is held is counted in bytes or characters, and also kept in few objects: a hostile server can send a line in
// millions of one-byte packets, or an answer in millions of one-character deltas, and a million small strings or
// buffers take fifty times the memory of their text. So pieces are joined in batches as they come (`pile`).

import { DeepworkError } from '../common/errors.ts';
import { formatCount } from '../common/text.ts';

export async function* lines(body: AsyncIterable<Buffer>, maxLineBytes: number, what: string): AsyncGenerator<string> {
  const pending = pile<Buffer>((parts) => Buffer.concat(parts));
  let pendingBytes = 0;
  for await (const chunk of body) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (pendingBytes + piece.length > maxLineBytes) throw tooLong(what, maxLineBytes);
      if (pendingBytes === 0) {
        yield piece.toString('utf8');
      } else {
        pending.add(piece);
        pendingBytes = 0;
        yield pending.take().toString('utf8');
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxLineBytes) throw tooLong(what, maxLineBytes);
      pending.add(chunk.subarray(start));
    }
  }
  if (pendingBytes > 0) yield pending.take().toString('utf8');
}

function tooLong(what: string, max: number): DeepworkError {
  return new DeepworkError(
    'BRIDGE_PROTOCOL',
    `${what} sent a line of more than ${formatCount(max)} bytes without a line end; that is not an answer. Check the bridge, or raise maxReplyChars in config.json if the answer was real.`,
  );
}

// Text gathered from pieces up to `max` characters: an answer from its deltas, an event from its data lines, a body
// from its lines. One more character ends the stream with the error `tooLong` makes, as the piece arrives, so no
// more than `max` characters are ever held, in about as many bytes however many pieces they came in. `take`: the text,
// which is then let go.
export type Gathered = {
  add: (piece: string) => void;
  readonly length: number;
  readonly pieces: number;
  take: () => string;
};

export function gathered(max: number, tooLong: () => Error): Gathered {
  const held = pile<string>((parts) => parts.join(''));
  let length = 0;
  let pieces = 0;
  return {
    add(piece) {
      length += piece.length;
      if (length > max) throw tooLong();
      pieces++;
      if (piece !== '') held.add(piece);
    },
    get length() {
      return length;
    },
    get pieces() {
      return pieces;
    },
    take: () => held.take(),
  };
}

// Every BATCH pieces are joined into one block, so n pieces are held in about n / BATCH objects; each piece is copied
// once more, so the cost stays linear. `take` joins what is held and empties the pile.
const BATCH = 256;

function pile<T>(join: (parts: T[]) => T): { add: (piece: T) => void; take: () => T } {
  let blocks: T[] = [];
  let batch: T[] = [];
  return {
    add(piece) {
      batch.push(piece);
      if (batch.length === BATCH) {
        blocks.push(join(batch));
        batch = [];
      }
    },
    take() {
      const all = join([...blocks, ...batch]);
      blocks = [];
      batch = [];
      return all;
    },
  };
}
