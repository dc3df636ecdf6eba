// What the protocol asks of the world around it, in one place: a bridge to the model, a reader of the project
// folder, and the limits a step is answered within. The protocol imports nothing but common/; a bridge, the executor
// and the tests' fakes implement these.

import type { Request } from './requests.ts';
import type { Result } from './results.ts';

// Anything that takes a message and returns the model's reply: the Ollama-style and OpenAI-compatible clients, the
// copy-and-paste bridge, the demo, a test's fake.
export type Bridge = {
  label: string;
  // The model's name, for what is kept per model (how often its EDITs applied): `deepseek-chat`, `DeepSeek web chat`.
  model?: string;
  // The model keeps the chat's history (a web chat a person pastes into): after a chat's first message, each message
  // carries only what is new, and the message that stands on its own is offered beside it (ChatOptions.standalone),
  // for a new chat.
  keepsChat?: boolean;
  // `tokens` is the message's estimated size and `window` the whole window the run budgets for: a bridge that sets
  // the model's context size (Ollama's num_ctx) sizes it from them.
  chat(message: string, options: ChatOptions): Promise<ChatReply>;
  // The model's window in tokens, when the bridge can tell (Ollama's /api/show).
  window?(signal: AbortSignal): Promise<number | undefined>;
};

// `onProgress`: the characters of the answer so far, and of the model's reasoning, which is not part of it;
// `onText`: each piece of the answer as it arrives, for a console that shows it streaming.
export type ChatOptions = {
  signal: AbortSignal;
  onProgress?: (chars: number, thinking: number) => void;
  onText?: (text: string) => void;
  tokens?: number;
  window?: number;
  // For a bridge that keeps the chat: the message that stands on its own (the instructions, the tree, the question and
  // what was learned so far, within the window), to send instead in a new chat.
  standalone?: { message: string; tokens: number };
};

// The model's reply. `promptTokens`: what the server says it read of the prompt; `truncated`: the server's word that
// it cut the prompt; `cut`: the server's word that it cut the reply at its output limit.
// `newChat`: the reply came from a new chat, sent the standalone message.
export type ChatReply = { text: string; promptTokens?: number; truncated?: string; cut?: string; newChat?: boolean };

// The project folder, read-only, as the loop reads it (reading/executor.ts is the one there is).
export type Reader = {
  limits: Limits;
  // `earlier`: file results still in the conversation, by key, with their step: asked again, they are not resent.
  answer(requests: readonly Request[], earlier?: ReadonlyMap<string, number>): Promise<Result[]>;
  // The folder tree for the first message, within `maxChars` (the limits' treeChars when not given).
  tree(maxChars?: number): string;
  // A file's text as it is now, for checking the model's EDITs before they are written.
  text(path: string): FileText;
  // Starts afresh: the folder is walked again and files read again. A run calls it when its question starts; within
  // a run, LIST, FIND and the tree see the folder as it was then, and FIND keeps what it read for the next step.
  reset(): void;
  // The files most likely to matter for a question, ranked, for the map of the code in the first message; undefined
  // when the folder has too few source files for a map to help (a reader without maps need not have it).
  map?(focus: MapFocus): MapJob | undefined;
  // A message went to the model: until its reply comes, the reader may do what it put off (the executor keeps its walk
  // for the next run then).
  waiting?(): void;
};

// What a map is made for: the question and the files the user attached (as given).
// `found`: the files where the texts the question quotes were found outside tests, once that search is done
// (protocol/quoted.ts): the code that makes an error message, or a flag, is where the map should start. The map waits
// for them before it ranks, as long as it can without keeping a message waiting longer.
export type MapFocus = { question: string; files: readonly string[]; found?: () => Promise<readonly string[]> };

// A map being made. `soon`: what it needs is at hand (its files read in an earlier run, or few to read), so it is
// expected within about a second, and the first message waits for it that long; else it follows in a later message.
// `big`: the folder has more source files than a tree shows, so the map takes part of the tree's room.
export type MapJob = { soon: boolean; big: boolean; files: Promise<MapFile[]> };

// A file of the map, most likely to matter first, with its main definitions, the most used first. `rank`: its rank as a
// share of the first file's (1 for the first). `names`: how many names the file defines in all, `defs` among them.
export type MapFile = {
  path: string;
  rank: number;
  defs: Array<{ name: string; first: number; last: number }>;
  names: number;
};

// A file's text for an EDIT's check, or why there is none.
export type FileText = { kind: 'text'; text: string } | { kind: 'missing' } | { kind: 'refused'; reason: string };

// What one step's requests are answered within.
export type Limits = {
  // Characters of file text sent for all NEED requests of one step.
  needChars: number;
  // Paths per LIST request.
  listPaths: number;
  // Hits per FIND request.
  findHits: number;
  // Characters of a FIND hit's line; longer lines are clipped around the hit.
  findLineChars: number;
  // Characters of the folder tree in the first message.
  treeChars: number;
  // Entries shown per folder, in the tree and in a folder's listing.
  folderEntries: number;
  // Paths read for all NEED requests of one step; the rest are named back to ask for in the next step.
  needPaths: number;
  // Missing paths per step for which the closest existing paths are looked up.
  suggestions: number;
  // Characters of outline sent for all OUTLINE requests of one step.
  outlineChars: number;
  // Files outlined for all OUTLINE requests of one step.
  outlineFiles: number;
  // Bytes of files parsed for all OUTLINE requests of one step: what bounds their time (about 2 MB a second here).
  outlineBytes: number;
};

export const defaultLimits: Limits = {
  needChars: 200_000,
  listPaths: 300,
  findHits: 100,
  findLineChars: 200,
  treeChars: 4_000,
  folderEntries: 100,
  needPaths: 100,
  suggestions: 10,
  outlineChars: 60_000,
  outlineFiles: 300,
  outlineBytes: 16 << 20,
};
