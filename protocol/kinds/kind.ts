// What one request kind is on the protocol's side: its keyword, the words models use for it instead, how its one-line
// payload reads, how it is named in the step log and taught in the instructions; and how each of its results reads in
// the next message, and what stands for it once dropped to fit the window. Each kind is one file beside this one; the
// table of them is protocol/requests.ts, typed so that the compiler names whatever a new kind still lacks.

export type Kind<R> = {
  // As the model writes it: `NEED`.
  keyword: string;
  // What the payload is, in the form the instructions and the fixes write: `path` in `=== NEED: path ===`.
  form: string;
  // Words models use for this request instead (`read`, `grep`): answered with the keyword to use.
  synonyms: readonly string[];
  // The payload after the keyword, as the model wrote it; undefined when it asks for nothing.
  read(payload: string, line: number): R | undefined;
  describe(request: R): string;
  // Its lines in the instructions: an example request, then what it sends back. `{needChars}` and the like are the
  // limits (protocol/transcript.ts fills them in).
  teach: string;
};

// How a result reads in the next message, the one-line note that stands for it once dropped, and what to ask instead
// when it never fit the window at all (`share`: about the part of it a message has room for); undefined, or a
// function's undefined: the generic note and advice (protocol/results.ts).
// `once`: a result sent with one step's results only (a map of the code that came late), and the line that stands for
// it in the messages after.
export type ResultText<T> = {
  render(result: T): string;
  dropped?: (result: T, step: number) => string;
  unsent?: (result: T, share: number) => string | undefined;
  once?: (result: T, step: number) => string;
};

// The texts of a map of result variants, one per variant.
export type ResultTexts<M> = { [K in keyof M]: ResultText<M[K]> };
