// The `12 | text` form of a file's lines: how NEED sends them, so that the model can cite lines and ask for exact
// ranges, and how they are taken off again when the model copies them back into a FILE or a SEARCH. One home for
// both directions, so that they cannot drift.

// One line's number as NEED writes it, and what follows it: a space, or the end of an empty line.
const NUMBERED = /^ *(\d{1,7}) \|(?: |(?=\r?$))/;
const NUMBERED_LINES = /^ *\d{1,7} \|(?: |(?=$))/gm;

// A file's lines as sent, each after its number.
export function numberLines(text: string, first: number): string {
  let out = '';
  let n = first;
  for (let at = 0; at < text.length; n++) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 ? text.length : nl;
    out += end === at ? `${n} |\n` : `${n} | ${text.slice(at, end)}\n`;
    at = end + 1;
  }
  return out;
}

// A text copied from NEED's output with its line numbers: every line numbered, the numbers counting up one by one.
// Then the numbers are taken off; anything short of that is content and stays as it is (a file may hold `1 | x`).
export function withoutLineNumbers(content: string): string {
  // Checked line by line, stopping at the first line without its number: content that is not numbered costs a line.
  const lineStarts: number[] = [];
  const textStarts: number[] = [];
  let expected = -1;
  for (let at = 0; at < content.length; ) {
    const nl = content.indexOf('\n', at);
    const end = nl === -1 ? content.length : nl;
    const match = NUMBERED.exec(content.slice(at, Math.min(end, at + 16)));
    if (match === null || (expected !== -1 && Number(match[1]) !== expected)) return content;
    expected = Number(match[1]) + 1;
    lineStarts.push(at);
    textStarts.push(at + match[0].length);
    at = end + 1;
  }
  if (textStarts.length === 0) return content;
  let out = '';
  textStarts.forEach((from, i) => {
    out += content.slice(from, lineStarts[i + 1] ?? content.length);
  });
  return out;
}

// The numbers taken off those lines that carry one, whatever the others do: a REPLACE whose lines the model kept from
// a numbered SEARCH.
export function withoutNumbersWhereNumbered(text: string): string {
  return text.replace(NUMBERED_LINES, '');
}
