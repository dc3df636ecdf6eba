// How a path the model wrote is read: as a payload (in backticks or quotes, with `./` in front) and as a place
// relative to the project folder (forward slashes, no empty or `.` parts). The path rule (reading/sandbox.ts) starts
// from the same reading, so the parser, the console, the pult and the JSON all name a proposal's file one way:
// `src//b.js` is `src/b.js` everywhere.

// A path as models write it: in backticks or quotes, with `./` in front.
export function cleanPath(raw: string): string {
  let path = unwrap(unwrap(unwrap(raw.trim(), '`'), '"'), "'").trim();
  while (path.startsWith('./')) path = path.slice(2);
  return path;
}

export function unwrap(text: string, quote: string): string {
  const t = text.trim();
  return t.length >= 2 && t.startsWith(quote) && t.endsWith(quote) ? t.slice(1, -1) : t;
}

// A path as the model wrote it, made relative with forward slashes, or the reason it can never name a place inside.
// Backslashes count as separators (a Windows habit); `%2e%2e` stays literal, as the file system would take it.
export function normalizeRequest(raw: string): { rel: string } | { reason: string } {
  if (raw.includes('\0')) return { reason: 'the path holds a NUL byte' };
  const p = raw.trim().replaceAll('\\', '/');
  if (p === '') return { reason: 'the path is empty' };
  if (p.startsWith('/')) return { reason: 'absolute paths are not allowed; name it relative to the project folder' };
  if (/^[A-Za-z]:/.test(p)) return { reason: 'drive paths are not allowed; name it relative to the project folder' };
  const parts: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    // Windows drops trailing dots and spaces: `.. ` and `...` are `..` there.
    if (/^\.\.[. ]*$/.test(part)) return { reason: '".." leads out of the project folder' };
    parts.push(part);
  }
  return { rel: parts.length === 0 ? '.' : parts.join('/') };
}

// A proposal's path as everything shows it: tidied by the path rule's reading, or as written when it can name no place
// inside (it is then refused, with the reason, when it would be written).
export function tidyPath(raw: string): string {
  const normal = normalizeRequest(cleanPath(raw));
  return 'rel' in normal ? normal.rel : cleanPath(raw);
}
