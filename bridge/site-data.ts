// A chat site as data: what the pult reads from the sites folder (bridge/sites.ts) and the extension works with
// (extension/, through ui/extension-contract.ts). Types only, importing nothing, so the extension's check takes it in.

// A chat site. `match`: its pages, as match patterns (`https://chat.deepseek.com/*`). CSS selectors: `input` the
// message box, `send` its Send button, `busy` what shows while the chat answers, `reply` the chat's replies (the last is
// the newest), `loggedOut` what shows instead of the chat when logged out, `notice` where the chat says a message was
// too long. `newChat`: the address of a new chat. A reply is taken once unchanged for `steadySeconds` with `busy` gone;
// none begun within `startSeconds` of Send, or none steady within `answerMinutes`, is a miss.
export type SiteData = {
  key: string;
  name: string;
  match: string[];
  newChat?: string;
  input: string;
  send: string;
  busy: string;
  reply: string;
  loggedOut?: string;
  notice?: string;
  steadySeconds: number;
  startSeconds: number;
  answerMinutes: number;
};
