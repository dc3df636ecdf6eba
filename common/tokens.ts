// How many tokens a text takes, estimated. A real tokenizer differs per model (DeepSeek, Llama, Qwen and OpenAI's
// each have their own) and costs ~85 ms per 370 KB message; this estimate costs about a millisecond and is calibrated
// to come out a little above OpenAI's cl100k tokenizer, the more wasteful of its two on Cyrillic and Chinese, so a
// budget built on it errs toward room to spare. Measured (test/tokens.test.ts keeps it within 0-35% above cl100k):
// deepwork's own sources +9% against cl100k (+8% against o200k), the original Russian README +6% (+43%), a Chinese
// article +4% (+30%); about 1.2 ms for 400 KB.

// Characters per token: ASCII (code, English) and other alphabets (Cyrillic, Greek, accents); CJK ideographs and
// kana take about one token each or more.
const ASCII_PER_TOKEN = 3.4;
const OTHER_PER_TOKEN = 1.8;
const CJK_TOKENS = 1.1;

export function estimateTokens(text: string): number {
  let ascii = 0;
  let cjk = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    else if (c >= 0x3000 && c < 0xa000) cjk++;
    else if (c >= 0xdc00 && c < 0xe000)
      continue; // the second half of a surrogate pair: counted with the first
    else other++;
  }
  return Math.ceil(ascii / ASCII_PER_TOKEN + other / OTHER_PER_TOKEN + cjk * CJK_TOKENS);
}
