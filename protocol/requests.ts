// The requests a model can make, in one table: each kind's keyword, how its one-line payload reads, and how it is
// named in the step log. A new kind is one entry here and one answerer in reading/execute.ts; both tables are typed
// over the kinds, so the compiler names whatever a new kind still lacks.

// What each kind carries besides its kind and line.
type Payloads = {
  need: { paths: string[] };
  list: { mask: string };
  // `scope`: a folder or mask the search keeps to (`=== FIND: text IN lib/ ===`), or undefined for the whole folder.
  find: { text: string; scope: string | undefined };
};

export type RequestKind = keyof Payloads;
export type Request<K extends RequestKind = RequestKind> = { [P in K]: { kind: P; line: number } & Payloads[P] }[K];
// The same, as the member of the union with that kind: what a type predicate on `kind` narrows to.
export type RequestOf<K extends RequestKind> = Extract<Request, { kind: K }>;
export type NeedRequest = Request<'need'>;
export type ListRequest = Request<'list'>;
export type FindRequest = Request<'find'>;

type RequestText<K extends RequestKind> = {
  // The payload after the keyword, as the model wrote it; undefined when it asks for nothing.
  read(payload: string, line: number): Request<K> | undefined;
  describe(request: Request<K>): string;
};

export const requestKinds: { [K in RequestKind]: RequestText<K> } = {
  need: {
    read: (payload, line) => {
      const paths = [...new Set(payload.split(',').map(cleanPath).filter((p) => p !== ''))];
      return paths.length > 0 ? { kind: 'need', paths, line } : undefined;
    },
    describe: (r) => `NEED ${r.paths.join(', ')}`,
  },
  list: {
    read: (payload, line) => {
      const mask = cleanPath(payload);
      return mask !== '' ? { kind: 'list', mask, line } : undefined;
    },
    describe: (r) => `LIST ${r.mask}`,
  },
  find: {
    read: (payload, line) => {
      const { text: raw, scope } = splitScope(payload);
      const text = unwrap(raw, '`');
      return text !== '' ? { kind: 'find', text, scope, line } : undefined;
    },
    describe: (r) => (r.scope === undefined ? `FIND ${r.text}` : `FIND ${r.text} IN ${r.scope}`),
  },
};

export function isRequestKind(keyword: string): keyword is RequestKind {
  return Object.hasOwn(requestKinds, keyword);
}

export function describeRequest<K extends RequestKind>(request: Request<K>): string {
  const text: RequestText<K> = requestKinds[request.kind];
  return text.describe(request);
}

// `text IN lib/` and `text IN src/**/*.ts`: the last ` IN ` followed by one word that reads as a folder or mask (with a
// / or a *, or a file name with an extension), so a text like `WHERE id IN (1, 2)` stays whole.
function splitScope(payload: string): { text: string; scope: string | undefined } {
  const at = payload.lastIndexOf(' IN ');
  if (at === -1) return { text: payload, scope: undefined };
  const scope = cleanPath(payload.slice(at + 4));
  const looksLikePath = scope !== '' && !/\s/.test(scope) && (/[/*]/.test(scope) || /^[\w.-]+\.\w{1,10}$/.test(scope));
  return looksLikePath ? { text: payload.slice(0, at), scope } : { text: payload, scope: undefined };
}

// A path as models write it: in backticks or quotes, with `./` in front.
export function cleanPath(raw: string): string {
  let path = unwrap(unwrap(unwrap(raw.trim(), '`'), '"'), "'").trim();
  while (path.startsWith('./')) path = path.slice(2);
  return path;
}

function unwrap(text: string, quote: string): string {
  const t = text.trim();
  return t.length >= 2 && t.startsWith(quote) && t.endsWith(quote) ? t.slice(1, -1) : t;
}
