// Local replicas of web chats for the extension's browser tests, on loopback: each page has an input (a textarea or a
// contenteditable box), a Send button, a busy indicator while the answer streams, and the answer as rendered markdown
// with code blocks and their Copy buttons. What the "model" answers is a queue the test fills; what was sent is kept.
// Each page also posts its whole DOM and storage to /probe after each answer, so a test can look for what a chat page
// must never see (the pult's token, a pairing code).

import http from 'node:http';
import { serveOnLoopback } from './helpers.ts';

// How a replica is drawn and behaves. The class names and attributes differ per replica, as the real sites differ.
export type Variant = {
  // A textarea or a contenteditable box, and the markup around it.
  input: 'textarea' | 'contenteditable';
  inputAttrs: string;
  send: string;
  busy: string;
  reply: string;
  // Logged out: a log-in form instead of the chat. `notice`: the chat answers with this notice instead of a reply.
  loggedOut?: boolean;
  notice?: string;
  // The answer streams without end: busy never goes.
  endless?: boolean;
  // Each chunk draws the reply as a new element (as some frameworks do), not into the same one.
  redraw?: boolean;
};

export const VARIANTS = {
  // DeepSeek-like: a textarea, a div button, a stop square while it streams.
  ds: {
    input: 'textarea',
    inputAttrs: 'id="chat-input" placeholder="Message DeepSeek"',
    send: '<div role="button" class="send-btn" aria-disabled="true">↑</div>',
    busy: '<div role="button" class="stop-btn">■</div>',
    reply: '<div class="ds-markdown"></div>',
  },
  // ChatGPT-like: a contenteditable box, buttons with data-testid.
  gpt: {
    input: 'contenteditable',
    inputAttrs: 'id="prompt-textarea" class="ProseMirror"',
    send: '<button data-testid="send-button" disabled>Send</button>',
    busy: '<button data-testid="stop-button">Stop</button>',
    reply: '<div data-message-author-role="assistant"><div class="markdown prose"></div></div>',
    redraw: true,
  },
  loggedout: {
    input: 'textarea',
    inputAttrs: 'id="chat-input"',
    send: '<button class="send">Send</button>',
    busy: '<span class="busy">…</span>',
    reply: '<div class="answer"></div>',
    loggedOut: true,
  },
  notice: {
    input: 'textarea',
    inputAttrs: 'id="chat-input"',
    send: '<button class="send">Send</button>',
    busy: '<span class="busy">…</span>',
    reply: '<div class="answer"></div>',
    notice: 'Превышен лимит длины сообщения. Начните новый чат.',
  },
  endless: {
    input: 'textarea',
    inputAttrs: 'id="chat-input"',
    send: '<button class="send">Send</button>',
    busy: '<span class="busy">…</span>',
    reply: '<div class="answer"></div>',
    endless: true,
  },
} as const satisfies Record<string, Variant>;

export type VariantName = keyof typeof VARIANTS;

export type Replica = {
  url: (variant: VariantName) => string;
  port: number;
  // The next answers of a variant's "model", in order; and every message sent to it.
  answers: Map<VariantName, string[]>;
  sent: Array<{ variant: string; text: string }>;
  probes: string[];
  // WebSocket upgrades asked of the replica's port: an extension fooled into pairing with it would ask one.
  upgrades: () => number;
  close: () => Promise<void>;
};

export async function startReplica(): Promise<Replica> {
  const answers = new Map<VariantName, string[]>();
  const sent: Replica['sent'] = [];
  const probes: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [, name = '', action = ''] = url.pathname.split('/');
    const variant = Object.hasOwn(VARIANTS, name) ? (name as VariantName) : undefined;
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (variant === undefined) return void res.writeHead(404).end();
      if (req.method === 'POST' && action === 'sent') {
        sent.push({ variant: name, text: body });
        const next = answers.get(variant)?.shift() ?? 'No more answers.';
        return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(next);
      }
      if (req.method === 'POST' && action === 'probe') {
        probes.push(body);
        return void res.writeHead(204).end();
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(name, VARIANTS[variant]));
    });
  });
  let upgrades = 0;
  server.on('upgrade', (_req, socket) => {
    upgrades++;
    socket.destroy();
  });
  const { port, close } = await serveOnLoopback(server, true);
  return { url: (v) => `http://127.0.0.1:${port}/${v}/`, port, answers, sent, probes, upgrades: () => upgrades, close };
}

function page(name: string, v: Variant): string {
  const input =
    v.input === 'textarea'
      ? `<textarea ${v.inputAttrs}></textarea>`
      : `<div contenteditable="true" ${v.inputAttrs}><p><br></p></div>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>Replica ${name}</title>
<style>body{font:14px sans-serif;margin:1rem} .user{background:#eef;margin:.5rem 0;white-space:pre-wrap;max-height:6em;overflow:hidden}
 .code-frame{border:1px solid #ccc;margin:.5rem 0} pre{margin:0;padding:.5rem;background:#f6f6f6}
 [contenteditable]{border:1px solid #999;min-height:3em} textarea{width:100%;height:5em} .hidden{display:none}</style></head>
<body>
${
  v.loggedOut === true
    ? '<form class="login"><h1>Log in</h1><input type="email"><input type="password"><button>Log in</button></form>'
    : `<main id="log"></main><div class="notices"></div>
<div class="composer">${input}<span id="send-slot">${v.send}</span><span id="busy-slot" class="hidden">${v.busy}</span></div>`
}
<script>
const V = ${JSON.stringify(v)};
const NAME = ${JSON.stringify(name)};
const log = document.getElementById('log');
const input = document.querySelector(V.input === 'textarea' ? 'textarea' : '[contenteditable]');
const send = document.getElementById('send-slot')?.firstElementChild;
const busy = document.getElementById('busy-slot');
function text() { return V.input === 'textarea' ? input.value : input.innerText; }
function clear() { if (V.input === 'textarea') input.value = ''; else input.innerHTML = '<p><br></p>'; }
function enable() {
  const empty = text().trim() === '';
  if (send.tagName === 'BUTTON') send.disabled = empty; else send.setAttribute('aria-disabled', String(empty));
}
input?.addEventListener('input', enable);
function esc(s) { return s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]); }
function render(md) {
  const parts = md.split(/^\`\`\`/m);
  let html = '';
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      const nl = part.indexOf('\\n');
      const lang = nl < 0 ? part : part.slice(0, nl);
      const code = nl < 0 ? '' : part.slice(nl + 1);
      html += '<div class="code-frame"><div class="code-head"><span>' + esc(lang || 'text') + '</span><button>Copy</button></div><pre><code class="language-' + esc(lang) + '">' + esc(code) + '</code></pre></div>';
    } else {
      for (const para of part.split(/\\n\\n+/)) if (para.trim() !== '') html += '<p>' + esc(para.trim()).replace(/\\n/g, '<br>') + '</p>';
    }
  });
  return html + '<div class="actions"><button>Copy</button><button>Regenerate</button></div>';
}
async function go() {
  const message = text();
  if (message.trim() === '') return;
  const mine = document.createElement('div'); mine.className = 'user'; mine.textContent = message; log.append(mine);
  clear(); enable();
  const answer = await (await fetch('/' + NAME + '/sent', { method: 'POST', body: message })).text();
  if (V.notice) {
    const n = document.createElement('div'); n.className = 'notice'; n.textContent = V.notice;
    document.querySelector('.notices').append(n);
    return;
  }
  busy.classList.remove('hidden');
  const holder = document.createElement('div');
  log.append(holder);
  const draw = (md) => {
    holder.innerHTML = V.reply;
    const target = holder.querySelector('.ds-markdown, .markdown, .answer');
    target.innerHTML = render(md);
  };
  for (let at = 0; at <= answer.length; at += 40) {
    if (V.redraw) draw(answer.slice(0, at)); else if (at === 0) draw(''); else draw(answer.slice(0, at));
    await new Promise((r) => setTimeout(r, 15));
  }
  draw(answer);
  if (V.endless) return;
  busy.classList.add('hidden');
  let store = '';
  for (let i = 0; i < localStorage.length; i++) store += localStorage.key(i) + '=' + localStorage.getItem(localStorage.key(i));
  fetch('/' + NAME + '/probe', { method: 'POST', body: document.documentElement.outerHTML + '\\n' + store + '\\n' + document.cookie });
}
send?.addEventListener('click', () => {
  if (send.disabled || send.getAttribute('aria-disabled') === 'true') return;
  void go();
});
</script></body></html>`;
}
