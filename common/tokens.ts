// How many tokens a text takes, estimated. A real tokenizer differs per model (DeepSeek, Llama, Qwen and OpenAI's
// each have their own) and costs ~85 ms per 370 KB message; this estimate costs a millisecond or two and is meant to
// come out at or above OpenAI's cl100k and o200k tokenizers on the text a project holds, so that a budget built on it
// never overfills a window. A flat rate of characters per token cannot do that: tab-indented C, hex constants and
// lock files take far more tokens per character than prose does, and a rate right for one is 10–25% low or 30% high
// on the other. So the text is read in the pieces tokenizers split it into first (words, groups of digits, runs of
// punctuation and of whitespace, other scripts, long mixes of letters and digits), and each piece is priced by what
// those tokenizers spend on it.
//
// The prices were fitted on real text (Linux's C, assembly, Kconfig, Makefiles, YAML and documentation; npm packages'
// JavaScript, minified files, source maps, declarations and lock files; Python; Go; deepwork's TypeScript and README;
// Russian, simplified and traditional Chinese, Japanese and Korean; the samples of test/token-samples.ts) to stay 5%
// or more above the larger of the two counts on every one of them: 5–25% above on most code and prose, up to 45% on
// headers full of hex constants, more against o200k on Cyrillic and CJK, which it spends fewer tokens on than cl100k.
// test/tokens.test.ts checks the bound. What no price per piece can follow is random letters (a run of made-up
// words costs three to four times what real ones do); base64 and hex hashes, which hold digits, are priced as such.

// A word of ASCII letters, and each letter in it; a lower-to-upper turn inside it (`getElementById`), each upper-case
// letter after another (`CONFIG`), and each letter past the tenth of one part, where tokenizers split more often.
const WORD = 0.92;
const LETTER = 0.055;
const HUMP = 0.57;
const CAPS = 0.31;
const LONG = 0.08;
const PART = 10;
// A group of up to three digits (tokenizers split numbers so).
const DIGITS = 1.5;
// Each character of a run of 16 or more letters and digits holding both: base64, hashes.
const MIXED = 0.78;
const MIXED_RUN = 16;
// A punctuation character.
const PUNCTUATION = 0.53;
// A run of whitespace other than one space (a space before a word goes with the word): within a line, and across lines.
const SPACES = 4.55;
const NEWLINES = 1.92;
// A letter of another alphabet (Cyrillic, Greek, accented Latin); a Chinese, Japanese or Korean character; any other
// character past ASCII (symbols, dashes, emoji).
const ALPHABET = 0.55;
const CJK = 1.42;
const SYMBOL = 0.48;

// What a line break or a blank line between two texts adds, at most, to the sum of their estimates: no piece runs
// across it, and the run of whitespace it makes with the texts' own ends is priced once, as a run of newlines. So the
// estimate of texts joined by line breaks is never above joinedTokens() of theirs, and a message can be counted from
// its parts, each estimated once, rather than read again whole at every step: in a fresh process this estimate runs
// cold, at 3–10 ms per 40,000 characters until V8 has optimized it (issue 30).
export const JOIN_TOKENS = Math.ceil(NEWLINES);

// The estimate of texts joined by line breaks (`\n` or `\n\n`), from theirs: at or above estimateTokens of the whole.
export function joinedTokens(parts: readonly number[]): number {
  let sum = 0;
  for (const tokens of parts) sum += tokens;
  return sum + JOIN_TOKENS * Math.max(0, parts.length - 1);
}

export function estimateTokens(text: string): number {
  return priced(text, Number.POSITIVE_INFINITY);
}

// The estimate of a text that may be too big for where it goes: once the estimate passes `most`, the rest of the text
// is taken at the rate so far rather than read. A text that big has no room in the message whole, so no closer count
// is wanted: in a 32,768-token window, pricing a NEED of lodash.js whole took 5.7-6.4 ms of its step's 6.4 (issue 30).
// A function of its own rather than a second parameter, which `texts.map(estimateTokens)` would fill with an index.
export function estimateTokensUpTo(text: string, most: number): number {
  return priced(text, most);
}

function priced(text: string, above: number): number {
  let sum = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (sum > above) return Math.ceil((sum * n) / i);
    const c = text.charCodeAt(i);
    if (isLetter(c) || isDigit(c)) {
      // A run of letters and digits, priced word by word and digit group by group, or as a mix when it is one.
      const start = i;
      let run = 0;
      let letters = false;
      let digits = false;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (isLetter(d)) {
          letters = true;
          const word = i;
          let previousUpper = d <= 90;
          let part = 1;
          for (i++; i < n; i++) {
            const e = text.charCodeAt(i);
            if (!isLetter(e)) break;
            const upper = e <= 90;
            if (upper && !previousUpper) {
              run += HUMP;
              part = 0;
            } else if (upper) run += CAPS;
            if (++part > PART) run += LONG;
            previousUpper = upper;
          }
          run += WORD + LETTER * (i - word);
        } else if (isDigit(d)) {
          digits = true;
          const group = i;
          for (i++; i < n && isDigit(text.charCodeAt(i)); i++) {}
          run += DIGITS * Math.ceil((i - group) / 3);
        } else break;
      }
      sum += letters && digits && i - start >= MIXED_RUN ? MIXED * (i - start) : run;
    } else if (isSpace(c)) {
      const start = i;
      let lines = c === 10;
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (!isSpace(d)) break;
        if (d === 10) lines = true;
      }
      if (i - start > 1 || c !== 32) sum += lines ? NEWLINES : SPACES;
    } else {
      if (c < 128) sum += PUNCTUATION;
      else if (isCjk(c)) sum += CJK;
      else if (c >= 0xdc00 && c < 0xe000) {
        // The second half of a surrogate pair: counted with the first.
      } else if ((c >= 0xc0 && c < 0x250) || (c >= 0x370 && c < 0x530)) sum += ALPHABET;
      else sum += SYMBOL;
      i++;
    }
  }
  return Math.ceil(sum);
}

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

// CJK ideographs, kana, Hangul syllables and the full-width forms: a token each, or more.
function isCjk(c: number): boolean {
  return (
    (c >= 0x3000 && c < 0xa000) ||
    (c >= 0xac00 && c < 0xd7b0) ||
    (c >= 0xf900 && c < 0xfb00) ||
    (c >= 0xff00 && c < 0xfff0)
  );
}

// A text with a piece of every kind the estimate prices: a hump, capitals, a part past its tenth letter, digits, a
// mixed run, spaces and tabs within a line and blank lines, punctuation, CJK, Cyrillic and accented Latin, a symbol, an
// emoji's surrogate pair.
const WARM_TEXT =
  'function getElementById(CONFIG_VALUE, averyveryverylongidentifiername) {\n\t\treturn 12345 + 0x1f; ' +
  '// a1b2c3d4e5f6a7b8c9d0e1f2 漢字 тест café — 😀\n  }\n\n';
const WARM_CHARS = 4000;
// Slices of WARM_CHARS priced, once per process: after 20, 20 KB of code priced in 0.3-0.4 ms, not 2.7.
const WARM_SLICES = 20;
// How long a reply may take before the pricing is warmed meanwhile.
export const WARM_AFTER_MS = 25;
let warmed = 0;

// Prices a made-up text, a slice at a time while the thread has nothing else to do (the model is reading a message),
// until V8 has optimized the pricing. A fresh process otherwise prices the results of its first steps cold: on the
// npm corpus, a common text's results after a model thinking 3 s took 5.7 ms of the step's 16 (issue 30). The text
// holds every kind of piece: optimized code that meets a branch it has not seen is thrown away. It begins once the
// reply has not come for WARM_AFTER_MS: a reply at once (a run with no requests against a fast bridge) would only wait
// for it. Returns what stops it, called when the reply comes; the next wait goes on from there.
export function warmWhileWaiting(): () => void {
  if (warmed >= WARM_SLICES) return () => {};
  const text = WARM_TEXT.repeat(Math.ceil(WARM_CHARS / WARM_TEXT.length));
  let next: NodeJS.Immediate | undefined;
  const slice = () => {
    priced(text, Number.POSITIVE_INFINITY);
    // The early stop of estimateTokensUpTo is a branch too.
    priced(text, 10);
    next = ++warmed < WARM_SLICES ? setImmediate(slice) : undefined;
  };
  const start = setTimeout(() => {
    next = setImmediate(slice);
  }, WARM_AFTER_MS);
  return () => {
    clearTimeout(start);
    if (next !== undefined) clearImmediate(next);
    next = undefined;
  };
}

// How many slices have been priced (for the tests).
export function warmSlices(): number {
  return warmed;
}
