// Put into a chat tab for a step (by background.js, apart from the page's own script): types the message into the
// chat's input, presses Send (automatic) or waits for the person to, and takes the chat's reply once it has settled —
// `busy` gone and the text unchanged for a while. It listens to the worker's port only: nothing the page does can give
// it a job or take a reply for another tab. The page's DOM is a stranger's: everything read from it is text, bounded.
// Everything that misses is said with its selector, and the step becomes the pult's copy-and-paste step.

/** @import { SiteData } from '../ui/extension-contract.ts' */
/** @import { MissKind } from '../ui/contract.ts' */

(() => {
  const world = /** @type {{ deepworkChat?: boolean }} */ (/** @type {unknown} */ (globalThis));
  if (world.deepworkChat === true) return;
  world.deepworkChat = true;
  const MAX_TAB_REPLY = 1_000_000;
  const TICK_MS = 400;
  const PROSE = 'p, li, h1, h2, h3, h4, h5, h6, blockquote, table';

  /** A miss, thrown to end the step. */
  class Miss {
    /** @param {MissKind} kind @param {string} [selector] @param {string} [detail] */
    constructor(kind, selector, detail) {
      this.miss = {
        kind,
        ...(selector === undefined ? {} : { selector }),
        ...(detail === undefined ? {} : { detail }),
      };
    }
  }

  /** @param {string} selector @returns {Element[]} */
  function all(selector) {
    try {
      return [...document.querySelectorAll(selector)];
    } catch {
      throw new Miss('bad-selector', selector);
    }
  }

  /** @param {number} ms */
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== 'deepwork-job') return;
    let live = true;
    port.onDisconnect.addListener(() => {
      live = false;
    });
    port.onMessage.addListener((raw) => {
      const { site, message, automatic } = /** @type {{ site: SiteData, message: string, automatic: boolean }} */ (raw);
      work(
        site,
        message,
        automatic === true,
        () => live,
        (said) => live && port.postMessage(said),
      ).catch((error) => {
        const miss = error instanceof Miss ? error.miss : { kind: 'failed', detail: String(error).slice(0, 300) };
        if (live) port.postMessage({ type: 'miss', miss });
      });
    });
  });

  /**
   * @param {SiteData} site @param {string} message @param {boolean} automatic @param {() => boolean} live
   * @param {(said: unknown) => void} say
   */
  async function work(site, message, automatic, live, say) {
    say({ type: 'progress', phase: 'typing', chars: 0 });
    // The page may still be drawing itself: its input is waited for a little.
    let input;
    for (let waited = 0; ; waited += TICK_MS) {
      if (site.loggedOut !== undefined && all(site.loggedOut).length > 0) throw new Miss('logged-out', site.loggedOut);
      input = all(site.input).find(shown);
      if (input !== undefined) break;
      if (waited > 10_000) throw new Miss('no-input', site.input);
      await pause(TICK_MS);
      if (!live()) return;
    }
    const replies = all(site.reply);
    const before = replies.at(-1);
    const beforeText = before === undefined ? '' : replyText(before);
    const beforeNotice = site.notice === undefined ? undefined : all(site.notice).at(-1);
    type(input, message);
    if (!typed(input, message)) throw new Miss('not-typed', site.input);
    let sentAt = Date.now();
    if (automatic) {
      let send;
      for (let waited = 0; send === undefined; waited += TICK_MS) {
        send = all(site.send).find((b) => shown(b) && !disabled(b));
        if (send === undefined && waited > 5_000) throw new Miss('no-send', site.send);
        if (send === undefined) await pause(TICK_MS);
        if (!live()) return;
      }
      /** @type {HTMLElement} */ (send).click();
      sentAt = Date.now();
    } else {
      say({ type: 'progress', phase: 'waiting-send', chars: 0 });
    }
    // Until the chat begins: a new reply, or `busy`. In assisted mode the person takes their time; automatic, a chat
    // that does not begin within startSeconds did not take the message.
    let began = false;
    // Assisted: the person pressed Send once the message has left the input box; the pult then says the chat is
    // answering, not "press Send there", while the chat is slow to begin.
    let pressed = automatic;
    let text = '';
    let steadySince = Date.now();
    for (;;) {
      await pause(TICK_MS);
      if (!live()) return;
      if (site.notice !== undefined) {
        const notice = all(site.notice).at(-1);
        if (notice !== undefined && notice !== beforeNotice && shown(notice))
          throw new Miss('too-large', site.notice, (notice.textContent ?? '').trim().slice(0, 200));
      }
      const busy = all(site.busy).some(shown);
      // A new reply: one more than there were, or the last one drawn anew with other text (a page may redraw the old
      // one as a new element, which is not an answer). Nor is the message itself, drawn as the person's turn in the
      // same shape as the chat's when `reply` matches both: taken, it would be run as the model's requests.
      const now = all(site.reply);
      const last = now.at(-1);
      const fresh =
        last !== undefined &&
        (now.length > replies.length || (last !== before && replyText(last) !== beforeText)) &&
        squash(last.textContent ?? '') !== squash(message)
          ? last
          : undefined;
      if (!began) {
        if (fresh === undefined && !busy) {
          const box = all(site.input).find(shown);
          if (!pressed && box !== undefined && squash(boxText(box)) === '') {
            pressed = true;
            say({ type: 'progress', phase: 'answering', chars: 0 });
          }
          if (automatic && Date.now() - sentAt > site.startSeconds * 1000)
            throw new Miss('no-reply', `${site.busy} / ${site.reply}`, String(site.startSeconds));
          if (Date.now() - sentAt > site.answerMinutes * 60_000) throw new Miss('no-reply', site.reply);
          continue;
        }
        began = true;
        sentAt = Date.now();
        say({ type: 'progress', phase: 'answering', chars: 0 });
      }
      const got = fresh === undefined ? '' : replyText(fresh);
      if (got.length > MAX_TAB_REPLY) throw new Miss('too-large', site.reply, String(got.length));
      if (got !== text) {
        text = got;
        steadySince = Date.now();
        say({ type: 'progress', phase: 'answering', chars: text.length });
      }
      if (!busy && text.trim() !== '' && Date.now() - steadySince >= site.steadySeconds * 1000) break;
      if (Date.now() - sentAt > site.answerMinutes * 60_000) throw new Miss('not-settled', site.busy);
    }
    say({ type: 'progress', phase: 'reading', chars: text.length });
    say({ type: 'reply', text });
  }

  /** @param {Element} el */
  function shown(el) {
    return el instanceof HTMLElement
      ? el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'
      : true;
  }

  /** @param {Element} el */
  function disabled(el) {
    return el.hasAttribute('disabled') || el.getAttribute('aria-disabled') === 'true';
  }

  // Into a textarea or input through its own value setter (the page's framework hears an input event, as from typing);
  // into a contenteditable box as inserted text, which its editor takes as typing: line by line, with a line break
  // between (Shift+Enter), since text inserted with its newlines becomes a paragraph per line, and a page that reads
  // the box's text then sends every line followed by a blank one.
  /** @param {Element} input @param {string} message */
  function type(input, message) {
    if (input instanceof HTMLTextAreaElement || input instanceof HTMLInputElement) {
      const proto = input instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
      input.focus();
      Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(input, message);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
      return;
    }
    if (input instanceof HTMLElement) {
      input.focus();
      const range = document.createRange();
      range.selectNodeContents(input);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      const lines = message.split('\n');
      const done = lines.every(
        (line, i) =>
          (i === 0 || document.execCommand('insertLineBreak')) &&
          (line === '' || document.execCommand('insertText', false, line)),
      );
      if (!done) {
        input.textContent = message;
        input.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
      }
    }
  }

  /** @param {Element} input @param {string} message */
  function typed(input, message) {
    return squash(boxText(input)) === squash(message);
  }

  /** @param {Element} input */
  function boxText(input) {
    return input instanceof HTMLTextAreaElement || input instanceof HTMLInputElement
      ? input.value
      : input instanceof HTMLElement
        ? (input.textContent ?? '')
        : '';
  }

  /** @param {string} text */
  function squash(text) {
    return text.replace(/\s+/g, '');
  }

  // A reply as markdown again: code blocks fenced (with their language), inline code in backticks, lists, headings and
  // tables marked, paragraphs apart; the buttons and labels a chat draws around a code block left out.
  /** @param {Element} root */
  function replyText(root) {
    /** @type {string[]} */
    const out = [];
    /** @param {Node} node @param {string} list */
    const walk = (node, list) => {
      if (node.nodeType === Node.TEXT_NODE) return void out.push(node.textContent ?? '');
      if (!(node instanceof Element)) return;
      const tag = node.tagName.toLowerCase();
      if (['button', 'svg', 'style', 'script', 'noscript', 'textarea'].includes(tag)) return;
      if (node.getAttribute('aria-hidden') === 'true') return;
      // A code block, or its frame: one pre, with nothing around it but a short label and buttons.
      const pre =
        tag === 'pre'
          ? node
          : node !== root && node.querySelectorAll('pre').length === 1 && node.querySelector(PROSE) === null
            ? node.querySelector('pre')
            : null;
      if (pre !== null && (pre === node || outside(node, pre).length < 40)) {
        const code = pre.querySelector('code') ?? pre;
        const lang = /language-([\w+#.-]+)/.exec(code.className)?.[1] ?? '';
        const body = (code.textContent ?? '').replace(/\n$/, '');
        const fence = body.includes('```') ? '````' : '```';
        return void out.push(`\n\n${fence}${lang}\n${body}\n${fence}\n\n`);
      }
      if (tag === 'br') return void out.push('\n');
      if (tag === 'code') return void out.push(`\`${node.textContent ?? ''}\``);
      const heading = /^h([1-6])$/.exec(tag);
      const block =
        heading !== null || ['p', 'div', 'li', 'ul', 'ol', 'blockquote', 'table', 'hr', 'section'].includes(tag);
      if (block) out.push('\n');
      if (heading !== null) out.push(`${'#'.repeat(Number(heading[1]))} `);
      if (tag === 'li')
        out.push(list === 'ol' ? `${[...(node.parentElement?.children ?? [])].indexOf(node) + 1}. ` : '- ');
      if (tag === 'p' || heading !== null) out.push('\n');
      if (tag === 'tr') out.push('| ');
      for (const child of node.childNodes) walk(child, tag === 'ol' || tag === 'ul' ? tag : list);
      if (tag === 'td' || tag === 'th') out.push(' | ');
      if (block || tag === 'tr') out.push('\n');
      // A table's first row is its header: the line under it makes the rows a markdown table again.
      if (tag === 'tr' && node.closest('table')?.querySelector('tr') === node)
        out.push(`|${' --- |'.repeat(node.querySelectorAll(':scope > td, :scope > th').length)}\n`);
    };
    walk(root, '');
    return out
      .join('')
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }

  // The text of `el` outside its `pre`: a code block's label and buttons, when `el` is the block's frame.
  /** @param {Element} el @param {Element} pre */
  function outside(el, pre) {
    let text = '';
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n !== null; n = walker.nextNode())
      if (!pre.contains(n)) text += n.textContent ?? '';
    return text.trim();
  }
})();
