// The requests a model can make, in one table: each kind is a file of protocol/kinds/ (its keyword, synonyms, payload,
// name, instruction lines, results), and the executor has an answerer per kind (reading/executor.ts). Both tables are
// typed over the kinds, so the compiler names whatever a new kind still lacks. The markers, the parser's look for
// markup, the instructions and the demo bridge all derive from this table.

import type { Kind } from './kinds/kind.ts';
import { need, type NeedRequest } from './kinds/need.ts';
import { list, type ListRequest } from './kinds/list.ts';
import { find, type FindRequest } from './kinds/find.ts';
import { outline, type OutlineRequest } from './kinds/outline.ts';

export type { NeedRequest, ListRequest, FindRequest, OutlineRequest };

export type Request = NeedRequest | ListRequest | FindRequest | OutlineRequest;
export type RequestKind = Request['kind'];
// The member of the union with that kind.
export type RequestOf<K extends RequestKind> = Extract<Request, { kind: K }>;
// The same as a mapped type, whose `kind` is K itself: what a table over the kinds is indexed with.
type Requested<K extends RequestKind> = { [P in K]: RequestOf<P> & { kind: P } }[K];

export const kinds: { [K in RequestKind]: Kind<RequestOf<K>> } = { need, list, find, outline };

export const requestKinds = Object.keys(kinds).filter(isRequestKind);

export function isRequestKind(word: string): word is RequestKind {
  return Object.hasOwn(kinds, word);
}

export function kindOf<K extends RequestKind>(kind: K): Kind<RequestOf<K>> {
  const table: { [P in RequestKind]: Kind<RequestOf<P>> } = kinds;
  return table[kind];
}

export function describeRequest<K extends RequestKind>(request: Requested<K>): string {
  return kindOf<K>(request.kind).describe(request);
}

// A request as the model should write it: `=== NEED: a.js ===`.
export function requestLine(request: Request): string {
  return `=== ${describeRequest(request).replace(' ', ': ')} ===`;
}

// Each kind's form as the instructions write it: `=== NEED: path ===`.
export function requestForms(): string[] {
  return requestKinds.map((k) => `=== ${kinds[k].keyword}: ${kinds[k].form} ===`);
}

// The words models use for a request, to the kind they mean.
export const synonyms: ReadonlyMap<string, RequestKind> = new Map(
  requestKinds.flatMap((k) => kinds[k].synonyms.map((word) => [word, k] as const)),
);
