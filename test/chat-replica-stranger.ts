// A chat page the extension's built-in sites and test/chat-replica.ts were not written for, shaped as today's chats are
// rather than as deepwork expects: the input a contenteditable box with role="textbox" deep in wrappers, its
// placeholder drawn by CSS; an icon-only Send button,
// disabled until there is text, that becomes "Stop generating" while the answer streams; user turns and assistant
// turns alike `.turn`, both with a `.markdown.prose` body; a "thinking" block streamed before the answer, in a
// `.markdown.prose` of its own, then folded away; the answer streamed in chunks, code blocks under a header bar with the
// language and a "Copy code" button, highlighted into spans. What the "model" answers is a queue the test fills.

import http from 'node:http';
import { serveOnLoopback } from './helpers.ts';

export type Stranger = {
  url: string;
  answers: string[];
  sent: string[];
  // How long the "model" takes before its first word (the Stop button shows only then, as on a page that waits for
  // its server before it changes the button).
  firstWordMs: number;
  // Holds the "model"'s next answers until the function it gives is called.
  hold: () => () => void;
  close: () => Promise<void>;
};

export async function startStranger(): Promise<Stranger> {
  const answers: string[] = [];
  const sent: string[] = [];
  let held = Promise.resolve();
  const hold = () => {
    let release = () => {};
    held = new Promise<void>((resolve) => (release = resolve));
    return release;
  };
  const stranger: Stranger = { url: '', answers, sent, firstWordMs: 0, hold, close: async () => {} };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/api/send') {
        sent.push(body);
        const next = answers.shift() ?? 'No more answers.';
        const answer = () => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(next);
        return void held.then(() => (stranger.firstWordMs > 0 ? setTimeout(answer, stranger.firstWordMs) : answer()));
      }
      if (req.method === 'GET' && (req.url === '/' || req.url?.startsWith('/c/')))
        return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      res.writeHead(404).end();
    });
  });
  const { port, close } = await serveOnLoopback(server, true);
  stranger.url = `http://127.0.0.1:${port}/`;
  stranger.close = close;
  return stranger;
}

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Lumen Chat</title>
<style>
body{font:15px system-ui,sans-serif;margin:0;display:flex;flex-direction:column;height:100vh}
.thread{flex:1;overflow:auto;padding:1rem}
.turn{margin:.75rem 0;display:flex;gap:.5rem}
.turn .who{font-weight:600;width:4rem}
.thinking{border-left:3px solid #ccc;padding-left:.5rem;color:#666;font-size:13px}
.thinking.folded .thinking-body{display:none}
.code-block{border:1px solid #ddd;border-radius:6px;margin:.5rem 0}
.code-header{display:flex;justify-content:space-between;background:#eee;padding:2px 8px;font-size:12px}
pre{margin:0;padding:8px;overflow:auto}
.composer{border-top:1px solid #ddd;padding:.5rem}
.composer-box{display:flex;align-items:flex-end;gap:.5rem;border:1px solid #bbb;border-radius:12px;padding:6px}
.editor-scroll{flex:1;max-height:200px;overflow:auto}
.editor{outline:none;min-height:1.5em}
.editor.is-empty:before{content:attr(data-placeholder);color:#999;position:absolute;pointer-events:none}
.editor p{margin:0}
button.icon{width:32px;height:32px;border-radius:50%;border:0;background:#000;color:#fff}
button.icon:disabled{background:#ccc}
</style></head>
<body>
<header><span class="brand">Lumen</span> <a href="/" class="new-chat">New chat</a></header>
<div class="thread" role="log" aria-live="polite"></div>
<form class="composer" onsubmit="return false">
  <div class="composer-box">
    <button type="button" class="icon attach" aria-label="Attach files"><svg width="16" height="16"><path d="M2 2h12v12z"/></svg></button>
    <div class="editor-scroll"><div class="editor-host">
      <div class="editor is-empty" contenteditable="true" role="textbox" aria-multiline="true" aria-label="Message Lumen"
        data-placeholder="Ask Lumen anything…" translate="no"><p><br></p></div>
    </div></div>
    <div class="composer-actions">
      <button type="button" class="icon primary" aria-label="Send message" disabled><svg width="16" height="16"><path d="M8 2l6 12H2z"/></svg></button>
    </div>
  </div>
</form>
<script>
const thread = document.querySelector('.thread');
const editor = document.querySelector('.editor');
const button = document.querySelector('.composer-actions button');
let streaming = false;
// The editor's text, as the page sends it.
function lines() { return editor.innerText.replace(/\\n$/, '').split('\\n'); }
function value() { return lines().join('\\n'); }
function redrawEditor() {
  const empty = value().trim() === '';
  editor.classList.toggle('is-empty', empty);
  if (!streaming) button.disabled = empty;
}
editor.addEventListener('input', () => queueMicrotask(redrawEditor));
function esc(s) { return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]); }
function inline(s) {
  return esc(s).replace(/\`([^\`]+)\`/g, '<code>$1</code>').replace(/\\*\\*([^*]+)\\*\\*/g, '<strong>$1</strong>');
}
function highlight(code) {
  return esc(code).replace(/\\b(const|let|export|default|import|from|function|return)\\b/g, '<span class="hl-kw">$1</span>');
}
// A small markdown: fenced code (closed or still open while streaming), lists, tables, paragraphs.
function render(md) {
  const parts = md.split(/^\`\`\`/m);
  let html = '';
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      const nl = part.indexOf('\\n');
      const lang = nl < 0 ? part : part.slice(0, nl);
      const code = nl < 0 ? '' : part.slice(nl + 1).replace(/\\n$/, '');
      html += '<div class="code-block"><div class="code-header"><span class="code-lang">' + esc(lang || 'plaintext') +
        '</span><button class="copy-code" type="button"><svg width="12" height="12"></svg><span>Copy code</span></button></div>' +
        '<div class="code-body"><pre><code class="hljs">' + highlight(code) + '</code></pre></div></div>';
      return;
    }
    for (const block of part.split(/\\n\\n+/)) {
      const t = block.trim();
      if (t === '') continue;
      const rows = t.split('\\n');
      if (rows.every((r) => /^[-*] /.test(r))) html += '<ul>' + rows.map((r) => '<li>' + inline(r.slice(2)) + '</li>').join('') + '</ul>';
      else if (rows.length > 1 && rows.every((r) => r.startsWith('|'))) {
        const cells = (r) => r.split('|').slice(1, -1).map((c) => c.trim());
        html += '<table><thead><tr>' + cells(rows[0]).map((c) => '<th>' + inline(c) + '</th>').join('') + '</tr></thead><tbody>' +
          rows.slice(2).map((r) => '<tr>' + cells(r).map((c) => '<td>' + inline(c) + '</td>').join('') + '</tr>').join('') + '</tbody></table>';
      } else html += '<p>' + rows.map(inline).join('<br>') + '</p>';
    }
  });
  return html;
}
function turn(who) {
  const t = document.createElement('div');
  t.className = 'turn';
  t.innerHTML = '<div class="who">' + (who === 'user' ? 'You' : 'Lumen') + '</div><div class="turn-content"></div>';
  thread.append(t);
  return t.querySelector('.turn-content');
}
const tick = () => new Promise((r) => setTimeout(r, 25));
async function stream(into, text) {
  for (let at = 0; at < text.length; at += 23) { into.innerHTML = render(text.slice(0, at)); await tick(); }
  into.innerHTML = render(text);
}
async function go() {
  const message = value();
  if (message.trim() === '' || streaming) return;
  const mine = turn('user');
  mine.innerHTML = '<div class="markdown prose user-text"></div>';
  mine.firstChild.textContent = message;
  editor.innerHTML = '<p><br></p>';
  redrawEditor();
  streaming = true;
  button.disabled = true;
  const answer = await (await fetch('/api/send', { method: 'POST', body: message })).text();
  button.disabled = false;
  button.setAttribute('aria-label', 'Stop generating');
  const body = turn('assistant');
  body.innerHTML = '<div class="thinking"><div class="thinking-head">Thinking…</div><div class="thinking-body"><div class="markdown prose"></div></div></div><div class="answer"><div class="markdown prose"></div></div><div class="turn-actions"><button aria-label="Copy">⧉</button><button aria-label="Good response">👍</button></div>';
  await stream(body.querySelector('.thinking .markdown'), 'The user asks about a file. Let me think about which file holds it, and whether I need to read it first. I should answer only from what I have read.');
  body.querySelector('.thinking-head').textContent = 'Thought for 2 seconds';
  body.querySelector('.thinking').classList.add('folded');
  await stream(body.querySelector('.answer .markdown'), answer);
  streaming = false;
  button.setAttribute('aria-label', 'Send message');
  redrawEditor();
}
button.addEventListener('click', () => { if (!button.disabled && !streaming) void go(); });
editor.addEventListener('keydown', (e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); void go(); } });
</script></body></html>`;
