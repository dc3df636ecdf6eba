// git's wildmatch (wildmatch.c), the matcher behind .gitignore: `*`, `**`, `?`, `[...]` with ranges, `!`/`^` and
// [:class:], `\` escapes, ASCII letters folded when asked. Ported line for line, including its early exits (a `*` that
// has tried every place gives up for the whole pattern), so a rule costs what it costs git; reading/gitignore.ts keeps
// the rules within bounds on top of that. git compares bytes: a pattern or a text with characters past ASCII is matched
// as its UTF-8 bytes (see asBytes), so that `?` takes one byte there as it does in git.

const MATCH = 0;
const NOMATCH = 1;
const ABORT_ALL = -1;
const ABORT_TO_STARSTAR = -2;

// `pathname`: `*` and `?` do not match `/`, and `**` between slashes matches whole folders (WM_PATHNAME).
// `fold`: ASCII letters in either case (WM_CASEFOLD, git's core.ignorecase).
export type WildFlags = { pathname: boolean; fold: boolean };

// Whether `text` matches `pattern`, as git's wildmatch() == 0. Both are strings of single bytes when either holds a
// character past ASCII (asBytes); otherwise as they are.
export function wildmatch(pattern: string, text: string, flags: WildFlags): boolean {
  return dowild(pattern, 0, text, 0, flags) === MATCH;
}

// A string of one character per UTF-8 byte (Latin-1), when it holds a character past ASCII; else itself.
export function asBytes(text: string): string {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return Buffer.from(text, 'utf8').toString('latin1');
  }
  return text;
}

// Whether a string holds only ASCII.
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

// git's is_glob_special: the characters that end a rule's literal start.
export function isGlobSpecial(c: number): boolean {
  return c === 42 || c === 63 || c === 91 || c === 92; // * ? [ \
}

// ASCII letters lower-cased, nothing else: git's tolower() (sane_ctype) and strncasecmp on UTF-8 bytes.
export function foldAscii(text: string): string {
  let i = 0;
  while (i < text.length && !isUpper(text.charCodeAt(i))) i++;
  if (i === text.length) return text;
  let out = text.slice(0, i);
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out += isUpper(c) ? String.fromCharCode(c + 32) : text[i];
  }
  return out;
}

const at = (s: string, i: number): number => (i < s.length ? s.charCodeAt(i) : 0);
const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlpha = (c: number) => isUpper(c) || isLower(c);
const lower = (c: number) => (isUpper(c) ? c + 32 : c);

function dowild(p: string, pi: number, text: string, ti: number, flags: WildFlags): number {
  // As in C, at() gives 0 past the end: patterns and names hold no NUL (compile cuts a rule at one).
  const start = pi;
  for (let pCh = at(p, pi); pCh !== 0; ti++, pCh = at(p, ++pi)) {
    let tCh = at(text, ti);
    if (tCh === 0 && pCh !== 42) return ABORT_ALL;
    if (flags.fold) {
      tCh = lower(tCh);
      pCh = lower(pCh);
    }
    switch (pCh) {
      case 92: // '\\': the next character as it is (git folds the backslash only, not what it escapes)
        pCh = at(p, ++pi);
        if (tCh !== pCh) return NOMATCH;
        continue;
      case 63: // '?'
        if (flags.pathname && tCh === 47) return NOMATCH;
        continue;
      case 42: {
        // '*'
        let matchSlash: boolean;
        if (at(p, ++pi) === 42) {
          const prev = pi - 2;
          while (at(p, ++pi) === 42) {}
          if (!flags.pathname) matchSlash = true;
          else if (
            (prev < start || at(p, prev) === 47) &&
            (at(p, pi) === 0 || at(p, pi) === 47 || (at(p, pi) === 92 && at(p, pi + 1) === 47))
          ) {
            // `**/` matching no folder at all: the rest of the pattern against the text from here.
            if (at(p, pi) === 47 && dowild(p, pi + 1, text, ti, flags) === MATCH) return MATCH;
            matchSlash = true;
          } else matchSlash = false;
        } else matchSlash = !flags.pathname;
        if (at(p, pi) === 0) {
          // A trailing `**` matches everything; a trailing `*` only what holds no more slashes.
          if (!matchSlash && text.indexOf('/', ti) !== -1) return NOMATCH;
          return MATCH;
        }
        if (!matchSlash && at(p, pi) === 47) {
          // One `*` and a slash: the rest of this folder's name; the slash is taken by the loop.
          const slash = text.indexOf('/', ti);
          if (slash === -1) return NOMATCH;
          ti = slash;
          break;
        }
        for (;;) {
          if (tCh === 0) break;
          // A literal after the star: what comes before its next occurrence belongs to the star.
          if (!isGlobSpecial(at(p, pi))) {
            const want = flags.fold ? lower(at(p, pi)) : at(p, pi);
            for (tCh = at(text, ti); tCh !== 0 && (matchSlash || tCh !== 47); tCh = at(text, ++ti)) {
              if (flags.fold) tCh = lower(tCh);
              if (tCh === want) break;
            }
            if (tCh !== want) return NOMATCH;
          }
          const matched = dowild(p, pi, text, ti, flags);
          if (matched !== NOMATCH) {
            if (!matchSlash || matched !== ABORT_TO_STARSTAR) return matched;
          } else if (!matchSlash && tCh === 47) return ABORT_TO_STARSTAR;
          tCh = at(text, ++ti);
        }
        return ABORT_ALL;
      }
      case 91: {
        // '['
        pCh = at(p, ++pi);
        if (pCh === 94) pCh = 33; // '^' means what '!' does
        const negated = pCh === 33;
        if (negated) pCh = at(p, ++pi);
        let prev = 0;
        let matched = false;
        do {
          if (pCh === 0) return ABORT_ALL;
          if (pCh === 92) {
            pCh = at(p, ++pi);
            if (pCh === 0) return ABORT_ALL;
            if (tCh === pCh) matched = true;
          } else if (pCh === 45 && prev !== 0 && at(p, pi + 1) !== 0 && at(p, pi + 1) !== 93) {
            // A range, `a-z`.
            pCh = at(p, ++pi);
            if (pCh === 92) {
              pCh = at(p, ++pi);
              if (pCh === 0) return ABORT_ALL;
            }
            if (tCh <= pCh && tCh >= prev) matched = true;
            else if (flags.fold && isLower(tCh) && tCh - 32 <= pCh && tCh - 32 >= prev) matched = true;
            pCh = 0;
          } else if (pCh === 91 && at(p, pi + 1) === 58) {
            // A class, `[:alpha:]`.
            const s = pi + 2;
            pi = s;
            for (pCh = at(p, pi); pCh !== 0 && pCh !== 93; pCh = at(p, ++pi)) {}
            if (pCh === 0) return ABORT_ALL;
            const length = pi - s - 1;
            if (length < 0 || at(p, pi - 1) !== 58) {
              // No `:]`: a plain `[` in the set.
              pi = s - 2;
              pCh = 91;
              if (tCh === pCh) matched = true;
            } else {
              const inClass = classHas(p.slice(s, s + length), tCh, flags.fold);
              if (inClass === undefined) return ABORT_ALL;
              if (inClass) matched = true;
              pCh = 0;
            }
          } else if (tCh === pCh) matched = true;
          prev = pCh;
          pCh = at(p, ++pi);
        } while (pCh !== 93);
        if (matched === negated || (flags.pathname && tCh === 47)) return NOMATCH;
        continue;
      }
      default:
        if (tCh !== pCh) return NOMATCH;
        continue;
    }
  }
  return at(text, ti) !== 0 ? NOMATCH : MATCH;
}

// Whether `c` is in the named class, or undefined for a name git does not know (the whole match then fails).
function classHas(name: string, c: number, fold: boolean): boolean | undefined {
  switch (name) {
    case 'alnum':
      return isAlpha(c) || isDigit(c);
    case 'alpha':
      return isAlpha(c);
    case 'blank':
      return c === 32 || c === 9;
    case 'cntrl':
      return c < 32 || c === 127;
    case 'digit':
      return isDigit(c);
    case 'graph':
      return c > 32 && c < 127;
    case 'lower':
      return isLower(c);
    case 'print':
      return c >= 32 && c < 127;
    case 'punct':
      return c > 32 && c < 127 && !isAlpha(c) && !isDigit(c);
    case 'space':
      return c === 32 || (c >= 9 && c <= 13);
    case 'upper':
      return isUpper(c) || (fold && isLower(c));
    case 'xdigit':
      return isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
    default:
      return undefined;
  }
}
