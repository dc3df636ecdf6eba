// Characters that look like another, or like nothing: a non-breaking space, a curly quote, an en dash, a zero-width
// space. Web chats and models put them where code has the plain one; on screen the two look the same. Known here, so
// that a SEARCH that differs from the file by one of them is told what differs (edit-miss.ts).

// The characters that look like another (or like nothing), with the plain one the loose comparison puts for each.
const LOOK_ALIKES = new Map<string, { name: string; plain: string }>();
for (const [plainOne, entries] of [
  [
    ' ',
    [
      ['\u00A0', 'a non-breaking space'],
      ['\u202F', 'a narrow non-breaking space'],
      ['\u3000', 'an ideographic space'],
      ['\u205F', 'a mathematical space'],
      ['\u1680', 'an Ogham space mark'],
      ...Array.from({ length: 11 }, (_, k): [string, string] => [
        String.fromCharCode(0x2000 + k),
        'a typographic space',
      ]),
    ],
  ],
  [
    '',
    [
      ['\u200B', 'a zero-width space'],
      ['\u200C', 'a zero-width non-joiner'],
      ['\u200D', 'a zero-width joiner'],
      ['\u2060', 'a word joiner'],
      ['\u00AD', 'a soft hyphen'],
      ['\uFEFF', 'a byte-order mark'],
      ['\r', 'a carriage return'],
    ],
  ],
  [
    "'",
    [
      ['\u2018', 'a curly quote ‘'],
      ['\u2019', 'a curly quote ’'],
      ['\u201A', 'a low quote ‚'],
      ['\u201B', 'a reversed quote ‛'],
      ['\u2032', 'a prime ′'],
    ],
  ],
  [
    '"',
    [
      ['\u201C', 'a curly quote “'],
      ['\u201D', 'a curly quote ”'],
      ['\u201E', 'a low quote „'],
      ['\u201F', 'a reversed quote ‟'],
      ['\u2033', 'a double prime ″'],
    ],
  ],
  [
    '-',
    [
      ['\u2010', 'a Unicode hyphen ‐'],
      ['\u2011', 'a non-breaking hyphen ‑'],
      ['\u2012', 'a figure dash ‒'],
      ['\u2013', 'an en dash –'],
      ['\u2014', 'an em dash —'],
      ['\u2015', 'a horizontal bar ―'],
      ['\u2212', 'a minus sign −'],
    ],
  ],
  ['...', [['\u2026', 'an ellipsis …']]],
] as const satisfies ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, string]>]>) {
  for (const [c, name] of entries) {
    const code = (c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    LOOK_ALIKES.set(c, { name: `${name} (U+${code})`, plain: plainOne });
  }
}
const LOOK_ALIKE = new RegExp(
  `[${[...LOOK_ALIKES.keys()].map((c) => `\\u{${c.codePointAt(0)?.toString(16)}}`).join('')}]`,
  'gu',
);
const PLAIN_NAMES = new Map([
  [' ', 'a plain space'],
  ["'", "a straight quote (')"],
  ['"', 'a straight quote (")'],
  ['-', 'a hyphen (-)'],
  ['...', 'three dots (...)'],
]);

// What a character is called when the model is told of it: `a non-breaking space (U+00A0)`, `a straight quote (')`.
export function nameOf(c: string): string {
  return LOOK_ALIKES.get(c)?.name ?? PLAIN_NAMES.get(c) ?? JSON.stringify(c);
}

// The look-alikes a line holds, each once.
export function lookAlikesIn(line: string): string[] {
  return [...new Set(line.match(LOOK_ALIKE) ?? [])];
}

// A line with each look-alike made plain.
export function plain(line: string): string {
  return line.replace(LOOK_ALIKE, (c) => LOOK_ALIKES.get(c)?.plain ?? c);
}

// A line as the loose comparison takes it: look-alikes made plain, spaces and tabs inside it one space, none around.
export function loose(line: string): string {
  return plain(line)
    .replace(/[ \t]+/g, ' ')
    .trim();
}

// The plain character a look-alike stands for.
export function plainOf(c: string): string {
  return LOOK_ALIKES.get(c)?.plain ?? c;
}
