// How the searchers of a run — the main thread and its workers — share its files, and one searcher's part of a search.

import type { Keeper } from './keeper.ts';
import { searchFile, startSearch, type Hit, type SearchJob } from './job.ts';

// A file of the run, as the walk gave it: read at `target` when it is a symlink the walk accepted, else at root + rel.
export type SearchFile = { rel: string; target?: string | undefined };

// The run's files are shared in chunks of CHUNK_FILES files in walk order. `owner[c]` is the searcher that reads chunk
// c (-1: nobody yet): the first to reach it claims it, so the work balances however late a searcher starts, and a
// later search leaves each chunk to the searcher that kept its bytes. `limits[t]`, per search, is the last chunk whose
// hits for text t can still be among its first ones: once a searcher has its own hits past the cap by chunk c, no hit
// after chunk c is needed, from anyone.
export const CHUNK_FILES = 256;
export type Plan = { owner: Int8Array<ArrayBufferLike>; limits: Int32Array<ArrayBufferLike> };

// A run's owners, every chunk unclaimed; shared with the workers for the whole run.
export function newOwners(files: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(Math.max(1, Math.ceil(files / CHUNK_FILES)));
  new Int8Array(buffer).fill(-1);
  return buffer;
}

// Marks every chunk of a run that nobody holds as closed: a run that is over, whose read ahead (ahead.ts) in a worker
// then claims nothing more of it. A search of it would skip those chunks too; none comes, the run being over.
export function closeOwners(owners: SharedArrayBuffer): void {
  const owner = new Int8Array(owners);
  for (let c = 0; c < owner.length; c++) Atomics.compareExchange(owner, c, -1, CLOSED);
}
const CLOSED = -2;

// A search's limits, none reached yet; made afresh for every search.
export function newLimits(texts: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(Math.max(1, texts) * 4);
  new Int32Array(buffer).fill(0x7fffffff);
  return buffer;
}

// One searcher's part in a run: the run's `count` files (read through its keeper, which holds their paths), the shared
// plan, and which searcher this is (0 the main thread, 1… the workers).
export type Share = { count: number; plan: Plan; me: number };

// Searches the chunks this searcher owns or claims, in order, for every text still open there. `more`: told once, after
// this searcher's first chunk, when texts are still open (the main thread then asks its workers to join).
export function searchShared(job: SearchJob, share: Share, keeper: Keeper, more?: () => void): Hit[] {
  const { count, plan, me } = share;
  const texts = job.texts.length;
  const search = startSearch(job, keeper);
  const left = search.left;
  const wanted = job.texts.map(() => 0);
  const inRange = new Uint8Array(texts);
  const chunks = Math.ceil(count / CHUNK_FILES);
  let first = true;
  for (let c = 0; c < chunks; c++) {
    let open = false;
    for (let t = 0; t < texts; t++) if (c <= Atomics.load(plan.limits, t) && (left[t] ?? 0) > 0) open = true;
    if (!open) break;
    const owner = Atomics.load(plan.owner, c);
    if (owner !== me && (owner !== -1 || Atomics.compareExchange(plan.owner, c, -1, me) !== -1)) continue;
    const end = Math.min(count, (c + 1) * CHUNK_FILES);
    // The texts this chunk is searched for: those whose limit is not before it (looked at once per chunk; a limit
    // lowered meanwhile only costs a few files searched for nothing). `wanted` is reused from file to file.
    for (let t = 0; t < texts; t++) inRange[t] = c <= Atomics.load(plan.limits, t) ? 1 : 0;
    for (let index = c * CHUNK_FILES; index < end; index++) {
      let any = false;
      for (let t = 0; t < texts; t++) {
        wanted[t] = inRange[t] === 1 ? (left[t] ?? 0) : 0;
        if ((wanted[t] ?? 0) > 0) any = true;
      }
      if (!any) break;
      searchFile(search, index, wanted);
    }
    let still = false;
    for (let t = 0; t < texts; t++) {
      if ((left[t] ?? 0) > 0) {
        still = true;
        continue;
      }
      // Lowers limits[t] to c, unless another searcher lowered it further meanwhile.
      for (let now = Atomics.load(plan.limits, t); now > c; now = Atomics.load(plan.limits, t)) {
        if (Atomics.compareExchange(plan.limits, t, now, c) === now) break;
      }
    }
    if (first && still) more?.();
    first = false;
  }
  return search.hits;
}

// Claims the run's first chunk for searcher `me` when nobody holds it yet.
export function claimFirst(plan: Plan, me: number): void {
  if (plan.owner.length > 0) Atomics.compareExchange(plan.owner, 0, -1, me);
}

// Whether searcher `me` holds a chunk whose hits this search may need: one up to the last chunk any text still wants
// (a text short of its cap wants them all).
export function holdsWanted(plan: Plan, me: number): boolean {
  let last = 0;
  for (let t = 0; t < plan.limits.length; t++) last = Math.max(last, Atomics.load(plan.limits, t));
  for (let c = 0; c < plan.owner.length && c <= last; c++) if (Atomics.load(plan.owner, c) === me) return true;
  return false;
}
