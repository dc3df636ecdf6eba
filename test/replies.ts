// Replies to parse: a realistic mix of prose, requests and proposed files, and shapes made to hurt a parser.

const CODE = Array.from({ length: 40 }, (_, i) => `  const value${i} = compute(${i}, 'text with === inside');`).join(
  '\n',
);

// Prose, fenced code, request blocks and FILE blocks, repeated to `size` characters.
export function realisticReply(size: number): string {
  const part = [
    'Here is what I found. The loop in `runLoop` stops when a reply has no requests; the transcript grows each step.',
    '',
    '```ts',
    CODE,
    '```',
    '',
    '- **=== NEED: src/loop.ts, src/parse.ts ===**',
    '=== FIND: waitForAnswer ===',
    '',
    '=== FILE: src/example.ts ===',
    '```ts',
    'export function example() {',
    CODE,
    '}',
    '```',
    '=== END ===',
    '',
  ].join('\n');
  return part.repeat(Math.ceil(size / part.length)).slice(0, size);
}

// Shapes that make a backtracking parser explode; each gives about `n` characters.
export const adversarialReplies: Record<string, (n: number) => string> = {
  'unclosed fences': (n) => `=== FILE: a ===\n${'```js\n'.repeat(n / 6)}`,
  'a long line of spaces': (n) => `=== NEED:${' '.repeat(n)}x`,
  'long runs of =': (n) => `${'='.repeat(1000)} NEED ${'='.repeat(999)}\n`.repeat(n / 2006),
  'long runs of backticks': (n) => `${'`'.repeat(n / 2)}=== NEED: a ===${'`'.repeat(n / 2)}`,
  'many FILE blocks without END': (n) => '=== FILE: a ===\n```\n'.repeat(n / 20),
  'many ENDs after fences': (n) => '```\n=== END ===\n=== FILE: a ===\n```js\n'.repeat(n / 40),
  'bold markers': (n) => `${'**'.repeat(n / 4)}=== FIND: x ===${'**'.repeat(n / 4)}`,
  'many tiny lines': (n) => 'x\n'.repeat(n / 2),
};
