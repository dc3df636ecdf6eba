// What the extension's scripts share: match patterns as the browser reads them, and checks for what comes in unknown.

// Whether `url` is one of the pages of a match pattern (`https://chat.example.com/*`, `http://127.0.0.1:8080/chat/*`):
// the scheme (`*` is http or https), the host (`*`, `*.name` for the name and its subdomains), the port when the
// pattern names one (else any), and the path with `*` for any run of characters.
/** @param {string} pattern @param {string} url */
export function matches(pattern, url) {
  const m = /^(https?|\*):\/\/(\*|(?:\*\.)?[A-Za-z0-9.-]+)(?::(\d{1,5}|\*))?(\/.*)$/.exec(pattern);
  if (m === null) return false;
  let u;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const [, scheme = '', host = '', port, path = ''] = m;
  if (scheme === '*' ? u.protocol !== 'http:' && u.protocol !== 'https:' : u.protocol !== `${scheme}:`) return false;
  const name = u.hostname.toLowerCase();
  const want = host.toLowerCase();
  if (want !== '*') {
    if (want.startsWith('*.')) {
      const base = want.slice(2);
      if (name !== base && !name.endsWith(`.${base}`)) return false;
    } else if (name !== want) return false;
  }
  if (port !== undefined && port !== '*' && u.port !== port) return false;
  const glob = new RegExp(`^${path.split('*').map(escapeRegExp).join('.*')}$`);
  return glob.test(u.pathname + u.search);
}

/** @param {string} text */
function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** @param {unknown} value @returns {value is Record<string, unknown>} */
export function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
