// The chat sites the browser extension (extension/) works in, as data: the built-in ones below, and one JSON file per
// site in the `sites` folder of deepwork's home (beside config.json), which add sites or replace a built-in one of the
// same key. The pult serves them to the extension, so a site that changed its page is fixed by editing a file.

import fs from 'node:fs';
import path from 'node:path';
import { isRecord } from '../common/unknown.ts';

import type { SiteData } from './site-data.ts';

export type { SiteData } from './site-data.ts';

const TIMES = { steadySeconds: 3, startSeconds: 30, answerMinutes: 15 };

// The built-in sites. The selectors are facts gathered from other projects' adapters and these sites' pages as they
// describe them (ids and data-testid attributes, which outlive class names); written here afresh. Taken on
// 2026-12-03 and not checked against the live sites from this machine: a selector that misses turns the step into
// copy and paste and the pult names it, and a file in the sites folder fixes it.
export const BUILT_IN_SITES: readonly SiteData[] = [
  {
    key: 'deepseek',
    name: 'DeepSeek',
    match: ['https://chat.deepseek.com/*'],
    newChat: 'https://chat.deepseek.com/',
    input: 'textarea#chat-input, textarea[placeholder]',
    send: 'div[role="button"][aria-disabled="false"]:has(svg):last-of-type, button[type="submit"]',
    busy: 'div[role="button"]:has(rect), .ds-loading',
    reply: '.ds-markdown',
    loggedOut: 'input[type="password"]',
    ...TIMES,
  },
  {
    key: 'chatgpt',
    name: 'ChatGPT',
    match: ['https://chatgpt.com/*', 'https://chat.openai.com/*'],
    newChat: 'https://chatgpt.com/',
    input: '#prompt-textarea',
    send: 'button[data-testid="send-button"]',
    busy: 'button[data-testid="stop-button"]',
    reply: '[data-message-author-role="assistant"] .markdown',
    loggedOut: '[data-testid="login-button"]',
    ...TIMES,
  },
  {
    key: 'qwen',
    name: 'Qwen',
    match: ['https://chat.qwen.ai/*'],
    newChat: 'https://chat.qwen.ai/',
    input: 'textarea#chat-input',
    send: 'button#send-message-button',
    busy: 'button#stop-message-button, .stop-button',
    reply: '.response-message-content, .markdown-content-container',
    ...TIMES,
  },
  {
    key: 'kimi',
    name: 'Kimi',
    match: ['https://www.kimi.com/*', 'https://kimi.moonshot.cn/*'],
    newChat: 'https://www.kimi.com/',
    input: '.chat-input-editor[contenteditable="true"], div[contenteditable="true"]',
    send: '.send-button-container:not(.disabled), .send-button',
    busy: '.send-button-container.stop, .stop-message-btn',
    reply: '.segment-assistant .markdown, .markdown-container',
    ...TIMES,
  },
  {
    key: 'aistudio',
    name: 'Gemini in AI Studio',
    match: ['https://aistudio.google.com/*'],
    newChat: 'https://aistudio.google.com/prompts/new_chat',
    input: 'ms-prompt-input-wrapper textarea, ms-chunk-input textarea',
    send: 'run-button button, button[aria-label="Run"]',
    busy: 'run-button button.stoppable, button[aria-label="Stop"]',
    reply: 'ms-chat-turn .chat-turn-container.model ms-cmark-node, ms-chat-turn .model-prompt-container',
    ...TIMES,
  },
];

// What the sites folder gave: the sites (built-ins with the folder's over them) and each file it could not read, with
// the sentence that says what to fix.
export type Sites = { sites: SiteData[]; problems: Array<{ file: string; problem: string }> };

const KEY = /^[a-z0-9][a-z0-9-]{0,39}$/;
// A match pattern as Chromium takes it: a scheme (or *), a host (*, *.name or a name), a path from `/`.
const MATCH = /^(https?|\*):\/\/(\*|(\*\.)?[A-Za-z0-9.-]+)(:(\d{1,5}|\*))?\/.*$/;
const MAX_FILE = 64 * 1024;
const MAX_SITES = 100;

// The sites: the built-in ones, and the folder's (a missing folder, or none named, is none). Never throws: a file it
// cannot take is a problem the pult shows, and the others still count.
export function loadSites(folder: string | undefined): Sites {
  const byKey = new Map(BUILT_IN_SITES.map((s) => [s.key, s]));
  const problems: Sites['problems'] = [];
  let names: string[];
  try {
    names = folder === undefined ? [] : fs.readdirSync(folder).filter((n) => n.endsWith('.json'));
  } catch {
    names = [];
  }
  for (const name of names.sort().slice(0, MAX_SITES)) {
    const file = path.join(folder ?? '', name);
    const read = readSite(file, name.slice(0, -'.json'.length));
    if (typeof read === 'string') problems.push({ file, problem: read });
    else byKey.set(read.key, read);
  }
  return { sites: [...byKey.values()], problems };
}

function readSite(file: string, key: string): SiteData | string {
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_FILE) return `it is over ${MAX_FILE / 1024} KB; a site's file is a few lines.`;
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return `it could not be read (${error instanceof Error ? error.message : String(error)}).`;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `it is not JSON (${error instanceof Error ? error.message : String(error)}).`;
  }
  return checkSite(value, key);
}

// A site as a file gives it, checked field by field; the file's name (without .json) is its key. A sentence that says
// what is wrong, with the value and what to write, when it is not a site.
export function checkSite(value: unknown, key: string): SiteData | string {
  if (!KEY.test(key)) return `its name "${key}" is not a key: use lower-case letters, digits and "-" (deepseek.json).`;
  if (!isRecord(value)) return 'it is not a JSON object: write {"name": …, "match": […], "input": …, …}.';
  const text = (field: string, required: boolean): string | undefined | Error => {
    const v = value[field];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string' || v.trim() === '' || v.length > 2_000)
      return new Error(`"${field}" must be ${required ? 'a' : 'absent or a'} non-empty string (got ${shown(v)}).`);
    return v;
  };
  const fields = ['name', 'input', 'send', 'busy', 'reply', 'loggedOut', 'notice', 'newChat'] as const;
  const got: Partial<Record<(typeof fields)[number], string>> = {};
  for (const field of fields) {
    const v = text(field, ['name', 'input', 'send', 'busy', 'reply'].includes(field));
    if (v instanceof Error) return v.message;
    if (v !== undefined) got[field] = v;
  }
  const match = value.match;
  if (!Array.isArray(match) || match.length === 0 || !match.every((m) => typeof m === 'string' && MATCH.test(m)))
    return `"match" must be a list of URL patterns such as "https://chat.example.com/*" (got ${shown(match)}).`;
  if (got.newChat !== undefined && !/^https?:\/\//.test(got.newChat))
    return `"newChat" must be an http(s) address (got ${shown(got.newChat)}).`;
  const times = { ...TIMES };
  for (const [field, max] of [
    ['steadySeconds', 60],
    ['startSeconds', 600],
    ['answerMinutes', 240],
  ] as const) {
    const v = value[field];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !(v > 0) || v > max) return `"${field}" must be a number above 0 and at most ${max}.`;
    times[field] = v;
  }
  const { name = '', input = '', send = '', busy = '', reply = '', ...optional } = got;
  return { key, name, match: match as string[], input, send, busy, reply, ...optional, ...times };
}

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
