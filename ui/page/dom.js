// Elements, and text put in as it is stored. Everything from a model's reply goes in as text; the prose of an answer
// is HTML from the server's markdown renderer, which keeps raw HTML as text, and the page's CSP runs no script but
// the page's own modules. All text goes in through visible(), which shows invisible and direction-changing
// characters as codes.

import { t } from './strings.js';

/** @param {string} id */
export function $(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`The page has no #${id}.`);
  return el;
}

// An element of a known kind: `$of('question', HTMLTextAreaElement)`.
/** @template {HTMLElement} E @param {string} id @param {{ new (): E, name: string }} kind @returns {E} */
export function $of(id, kind) {
  const el = $(id);
  if (!(el instanceof kind)) throw new Error(`#${id} is not a ${kind.name}.`);
  return el;
}

/**
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @param {Array<Node | string>} [children]
 */
export function h(tag, attrs = {}, children = []) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const child of children) el.append(typeof child === 'string' ? visible(child) : child);
  return el;
}

// The server's own words (an error, a file's reason), English until they are codes: marked so, for a screen reader
// on a page in another language.
/** @param {string} text */
export function fromServer(text) {
  return h('span', { lang: 'en' }, [text]);
}

// ---- text shown as it is stored ----

// Characters that are not shown, or that change how the text around them is shown: C0 and C1 controls (tab and
// newline aside) and Unicode's format characters (Cf). Among them the bidirectional embeddings, overrides, isolates
// and marks of Trojan Source (CVE-2021-42574, https://trojansource.codes): `"user` U+202E ` ` U+2066 `// Check if
// admin` U+2069 ` ` U+2066 `"` reads as `"user" // Check if admin`. Also zero-width spaces and joiners, word joiners,
// the soft hyphen, a BOM, tag characters.
const HIDDEN = /(?![\t\n])[\p{Cc}\p{Cf}]/gu;
const HAS_HIDDEN = /(?![\t\n])[\p{Cc}\p{Cf}]/u;

/** @param {string} text */
export function hasHidden(text) {
  return HAS_HIDDEN.test(text);
}

// Text from outside as nodes: each hidden character as a boxed code such as ⟨U+202E⟩, so the text reads in the order
// it is stored and nothing in it hides. Every text the page shows goes through here: h() and setText() call it, and
// the answer's prose is walked through it (showHiddenIn).
/** @param {string} text @returns {Node} */
export function visible(text) {
  if (!hasHidden(text)) return document.createTextNode(text);
  const out = document.createDocumentFragment();
  let at = 0;
  for (const match of text.matchAll(HIDDEN)) {
    const index = match.index ?? 0;
    if (index > at) out.append(text.slice(at, index));
    const box = document.createElement('span');
    box.className = 'hidden-char';
    box.title = t('hiddenChar');
    box.textContent = `⟨U+${(match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
    out.append(box);
    at = index + match[0].length;
  }
  if (at < text.length) out.append(text.slice(at));
  return out;
}

// Puts `drawn` where `old` is. A control of `old` that had the focus hands it, with a text box's selection and scroll,
// to the control of the same id in `drawn`: a run is drawn anew at every message, and the reader typing or pasting
// into it must not lose their place (nor have the focus fall to the page, where Ctrl+V pastes nothing).
/** @param {Element} old @param {Element} drawn */
export function replaceKeepingFocus(old, drawn) {
  const active = document.activeElement;
  const held = active instanceof HTMLElement && active.id !== '' && old.contains(active) ? active : undefined;
  old.replaceWith(drawn);
  if (held === undefined) return;
  const again = document.getElementById(held.id);
  if (again === null || again === held) return;
  again.focus({ preventScroll: true });
  if (
    (held instanceof HTMLTextAreaElement || held instanceof HTMLInputElement) &&
    (again instanceof HTMLTextAreaElement || again instanceof HTMLInputElement) &&
    again.value === held.value
  ) {
    try {
      again.setSelectionRange(held.selectionStart, held.selectionEnd, held.selectionDirection ?? undefined);
    } catch {
      // A kind of input without a selection (a checkbox): the focus is enough.
    }
    again.scrollTop = held.scrollTop;
  }
}

/** @param {HTMLElement} el @param {string} text */
export function setText(el, text) {
  el.replaceChildren(visible(text));
}

// The text nodes under `root` (the answer's prose as the server rendered it), with their hidden characters shown.
/** @param {Node} root */
export function showHiddenIn(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  /** @type {Text[]} */
  const found = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    if (node instanceof Text && hasHidden(node.data)) found.push(node);
  }
  for (const node of found) node.replaceWith(visible(node.data));
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// What went wrong with an action, said under the question box.
/** @param {unknown} error */
export function showError(error) {
  const text = error instanceof Error ? error.message : String(error);
  const hint = $('ask-hint');
  setText(hint, text);
  hint.hidden = false;
}
