// The web chats a person pastes into, and what each takes: the longest message, and the most a chat holds before it
// says it is full ("Достигнут предел длины" on DeepSeek). None of these chats publishes a character limit for a
// message; the figures are what their models' windows allow, taken conservatively (a character is about a third of a
// token in code, and a chat keeps room for its answers), as of 2026-12. A user's config overrides them
// (pasteMaxChars, pasteChatChars): when a chat refuses a message, lower them; when it takes more, raise them.

export type ChatSite = {
  name: string;
  // The longest message to paste, and what the whole chat may hold (messages and replies), in characters.
  messageChars: number;
  chatChars: number;
};

export const CHAT_SITES = {
  // DeepSeek's web chat: a 128K-token window (V3/R1); a pasted message past about 100K characters is refused.
  deepseek: { name: 'DeepSeek', messageChars: 60_000, chatChars: 300_000 },
  // ChatGPT: a 128K-token window for GPT-4o in the web app on paid plans, less on free; long pastes become files.
  chatgpt: { name: 'ChatGPT', messageChars: 50_000, chatChars: 250_000 },
  // Qwen Chat: windows of 128K tokens and more.
  qwen: { name: 'Qwen', messageChars: 60_000, chatChars: 300_000 },
  // Kimi: a long-context chat (hundreds of thousands of characters).
  kimi: { name: 'Kimi', messageChars: 100_000, chatChars: 500_000 },
  // Gemini in AI Studio: a window of a million tokens.
  gemini: { name: 'Gemini in AI Studio', messageChars: 200_000, chatChars: 1_500_000 },
  // Claude: a 200K-token window; a long paste becomes an attachment.
  claude: { name: 'Claude', messageChars: 60_000, chatChars: 400_000 },
  // Another chat: what most take.
  other: { name: 'another chat', messageChars: 30_000, chatChars: 150_000 },
} as const satisfies Record<string, ChatSite>;

export type ChatSiteName = keyof typeof CHAT_SITES;

export function isChatSiteName(value: unknown): value is ChatSiteName {
  return typeof value === 'string' && Object.hasOwn(CHAT_SITES, value);
}

// A site's limits, with the config's own figures over them.
export function chatLimits(site: ChatSiteName, messageChars?: number, chatChars?: number): ChatSite {
  const preset: ChatSite = CHAT_SITES[site];
  return {
    name: preset.name,
    messageChars: messageChars ?? preset.messageChars,
    chatChars: chatChars ?? preset.chatChars,
  };
}

// What chats say, in place of an answer, when a message or the whole chat is too long. A short reply that says one of
// these is the chat's notice, not the model's answer.
const NOTICES: readonly RegExp[] = [
  /превышен лимит длины сообщения/i,
  /достигнут предел длины/i,
  /(сообщение|запрос) слишком длинн/i,
  /(диалог|чат|беседа) слишком длинн/i,
  /message (you submitted )?(was|is) too long/i,
  /(conversation|chat|thread) is too long/i,
  /(reached|exceeds?|exceeded) the (maximum|max|length) (length|limit|context)/i,
  /length limit (reached|exceeded)/i,
  /maximum (context|conversation) length/i,
  /prompt is too long/i,
  /message (is )?too long/i,
];

// The notice a pasted reply is, when it is one; undefined for an answer.
export function limitNotice(reply: string): string | undefined {
  if (reply.length > 600) return undefined;
  return NOTICES.some((re) => re.test(reply)) ? reply.replace(/\s+/g, ' ').trim().slice(0, 120) : undefined;
}
