// The headings of a message to the model and of the results in it, as functions: the conversation, the results, the
// demo bridge and the bench all write and read them from here, so a heading changed here changes everywhere.

export const heading = {
  projectFolder: '=== PROJECT FOLDER ===',
  map: '=== MAP OF THE CODE ===',
  quoted: '=== WHERE THE TEXT THE QUESTION QUOTES OCCURS ===',
  attached: '=== FILES ATTACHED BY THE USER ===',
  piped: '=== TEXT GIVEN BY THE USER WITH THE QUESTION ===',
  pipedEnd: '=== END OF THE TEXT ===',
  question: '=== QUESTION ===',
  answerEnd: '=== END OF YOUR ANSWER ===',
  resultEnd: '=== END RESULT ===',
  // `question`: the earlier question it belongs to, in a continued conversation.
  answer: (step: number, question?: number) =>
    `=== YOUR ANSWER AT STEP ${step}${question === undefined ? '' : ` OF QUESTION ${question}`} ===`,
  results: (step: number, question?: number) =>
    `=== RESULTS OF YOUR REQUESTS AT STEP ${step}${question === undefined ? '' : ` OF QUESTION ${question}`} ===`,
  earlierQuestion: (n: number) => `=== EARLIER QUESTION ${n} ===`,
  finalAnswer: (n: number) => `=== YOUR FINAL ANSWER TO QUESTION ${n} ===`,
  // One result's first line: the request it answers, and what it is.
  result: (request: string, what: string) => `=== RESULT ${request}: ${what} ===`,
} as const;

// The same headings, found again in a message (the demo bridge reads what it is sent).
export const found = {
  // Each of this question's answers (not an earlier question's).
  answer: /^=== YOUR ANSWER AT STEP \d+ ===$/gm,
  results: /^=== RESULTS OF YOUR REQUESTS AT STEP \d+ ===$/m,
  question: `${heading.question}\n`,
  // A NEED's result with its line count: the path and the count.
  fileResult: /^=== RESULT NEED ([^:]+): ([\d,]+) lines ===$/gm,
} as const;
