// What a person copies into a web chat for one question, with same-chat messages against resending everything each
// time: `npm run measure:paste`. A four-step question on this repository — a FIND, two NEEDs, an EDIT — is run through
// the copy-and-paste bridge with this script as the person and the chat; each step's message (what is copied) is
// counted, and so is the message that stands on its own (what every step copied before same-chat messages). Also
// checked: every message under the chat's per-message limit, and the chat's size as deepwork counts it against the sum
// of what went in and came out. Written to bench/paste.json and printed.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createExecutor } from '../reading/executor.ts';
import { runLoop } from '../protocol/loop.ts';
import { loadTexts } from '../protocol/transcript.ts';
import { createPasteBridge, newChat } from '../bridge/paste.ts';
import { CHAT_SITES } from '../bridge/chat-sites.ts';
import { formatCount } from '../common/text.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');

// The chat's replies, one per step: what a model asks, reads and changes on this repository.
const REPLIES = [
  "Let me find where the loop decides a reply is the answer.\n=== FIND: outcome('answered') ===",
  'It is in the loop; let me read it.\n=== NEED: protocol/loop.ts:1-60 ===',
  'And the contract it takes.\n=== NEED: protocol/contract.ts ===',
  [
    'The loop ends when a reply has no requests (protocol/loop.ts). A clearer first line:',
    '=== EDIT: protocol/loop.ts ===',
    '<<<<<<< SEARCH',
    '// The loop: send the transcript, read the reply, answer its requests, send the grown transcript, until the model',
    '=======',
    '// The loop: send the message, read the reply, answer its requests, send what is new, until the model',
    '>>>>>>> REPLACE',
    '=== END ===',
  ].join('\n'),
];

type Step = { step: number; copied: number; standalone: number; carries: string[] };

async function main(): Promise<void> {
  const limits = CHAT_SITES.deepseek;
  const chat = newChat();
  const steps: Step[] = [];
  let replied = 0;
  let carries: string[] = [];
  const bridge = createPasteBridge({
    limits,
    chat,
    onMessage: (step) => {
      const at = steps.length;
      steps.push({
        step: at + 1,
        copied: step.message.length,
        standalone: step.standalone?.message.length ?? step.message.length,
        carries,
      });
      const reply = REPLIES[at] ?? 'Done.';
      replied += reply.length;
      step.supply(reply);
    },
  });
  const executor = createExecutor(ROOT);
  try {
    await runLoop({
      bridge,
      executor,
      texts: loadTexts(executor.limits),
      question: 'Where is it decided that a reply is the final answer? Make the comment above the loop say it plainly.',
      steps: 8,
      onEvent: (e) => {
        if (e.kind === 'sending') carries = e.carries ?? ['the instructions, the folder tree and the question'];
      },
    });
  } finally {
    await executor.close();
  }
  const copied = steps.reduce((sum, s) => sum + s.copied, 0);
  const resent = steps.reduce((sum, s) => sum + s.standalone, 0);
  const ratio = copied / resent;
  const under = steps.every((s) => s.copied <= limits.messageChars);
  const counted = chat.chars === copied + replied;
  const report = {
    site: limits.name,
    messageChars: limits.messageChars,
    steps,
    copied,
    resent,
    ratio,
    under,
    chatChars: chat.chars,
    counted,
  };
  fs.writeFileSync(path.join(ROOT, 'bench', 'paste.json'), `${JSON.stringify(report, null, 2)}\n`);
  for (const s of steps) {
    process.stdout.write(
      `step ${s.step}: copied ${formatCount(s.copied)} characters (standing on its own: ${formatCount(s.standalone)}); carries ${s.carries.join(', ')}\n`,
    );
  }
  process.stdout.write(
    `In all: ${formatCount(copied)} characters copied in one chat, against ${formatCount(resent)} resending everything: ${(ratio * 100).toFixed(1)}% (target at most 40%). Every message under ${limits.name}'s ${formatCount(limits.messageChars)}: ${under ? 'yes' : 'no'}. The chat counted at ${formatCount(chat.chars)} characters, what went in and came out: ${counted ? 'yes' : 'no'}.\n`,
  );
  if (ratio > 0.4 || !under || !counted) process.exitCode = 1;
}

await main();
