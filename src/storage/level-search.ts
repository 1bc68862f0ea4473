import type { Level } from 'level';
import type { LogFn } from '../lib/log-fn.js';
import { termsOf } from '../lib/search-terms.js';
import { type BatchOp, HIGH, SEARCH_KEY, SEP } from './level-keys.js';
import { type SearchPlan, type SearchReads, searchIndex } from './level-search-query.js';
import type { Envelope, ObjectKey, SearchCandidate, SearchQuery } from './store.js';
import { keyOf } from './store.js';

/**
 * Version of the index's layout and of the terms it holds (search-terms.ts). A store indexed
 * otherwise, or for other kinds, is indexed again in the background at open.
 */
const INDEX_VERSION = 1;

/** Objects indexed per batch by the background build. */
const BUILD_CHUNK = 200;

/** An object's part of a search key: kind, project, name (as in its object key, without the type letter). */
export const docOf = (k: ObjectKey) => `${k.kind}${SEP}${k.project}${SEP}${k.name}`;
/** The key of one index entry: a term (`class` a, b, p, s; e: a whole name or title; o: an object with too many terms, term ''). */
export const termKey = (cls: string, term: string, doc: string) => `x${SEP}${cls}${SEP}${term}${SEP}${doc}`;
/** The key of an object's search record: its index entries, each its class letter then its term, joined by NUL. */
export const searchRecordKey = (doc: string) => `y${SEP}${doc}`;

/** What the background build needs from the store. */
export interface BuildAccess {
  /** Runs `fn` while no write is being planned or committed (the store's write lock). */
  locked<T>(fn: () => Promise<T>): Promise<T>;
  /** Writes a batch (under `locked`). */
  batch(ops: BatchOp[]): Promise<void>;
}

/**
 * LevelStore's search index: for every object of a searchable kind, one empty `x` key per term
 * (search-terms.ts) — class, term, then the object — and a `y` record listing them. Both are
 * written in the same batch as the object (a create, an update's changed terms, a delete), so
 * the index never disagrees with the objects, whatever stops the process. A search reads the
 * keys of the terms its words are prefixes of, never the objects (level-search-query.ts).
 *
 * A data directory written before the index, or by a store opened without it (which drops the
 * `m` marker in its first write), is indexed again in the background; searches meanwhile get no
 * answer from the index (`search` is undefined) and read the objects as before.
 */
export class LevelSearch {
  private readonly kinds: ReadonlySet<string>;
  private readonly marker: string;
  /** Every object of `kinds` is in the index. */
  private ready = false;
  /** A marker written by an earlier store is still there: this one (without the index) drops it in its first write. */
  private staleMarker = false;
  private stopped = false;
  private building?: Promise<void>;

  /** @param plan (tests) the plan every search takes where it applies, instead of the one estimated cheapest */
  constructor(
    private readonly db: Level<string, string>,
    kinds: readonly string[],
    private readonly log: LogFn,
    private readonly plan?: SearchPlan,
  ) {
    this.kinds = new Set(kinds);
    this.marker = JSON.stringify({ version: INDEX_VERSION, kinds: [...this.kinds].sort() });
  }

  /**
   * Whether a write of `kind` must read the object's search record first: a kind this store
   * indexes, or any kind for a store without the index (it drops what the record lists, and the
   * next store with the index indexes the object again).
   */
  tracks(kind: string): boolean {
    return this.kinds.size === 0 || this.kinds.has(kind);
  }

  /**
   * Reads the marker; starts the background build when the index is not complete (`empty`: a new
   * store, complete at once). An index of this version for other kinds (a version that made a kind
   * searchable, or stopped) is complete for the kinds both index: searches use it at once, and only
   * the kinds it lacks are indexed in the background (at 1,000,000 dashboards, reading every object
   * while the whole index was built again took each search minutes and gigabytes).
   */
  async open(empty: boolean, access: BuildAccess): Promise<void> {
    const stored = await this.db.get(SEARCH_KEY);
    if (this.kinds.size === 0) {
      this.staleMarker = stored !== undefined;
      return;
    }
    if (stored === this.marker) this.ready = true;
    else if (empty) {
      await this.db.put(SEARCH_KEY, this.marker);
      this.ready = true;
    } else {
      const had = indexedKinds(stored);
      if (had) this.ready = true;
      const kinds = had ? [...this.kinds].filter((k) => !had.has(k)) : [...this.kinds];
      this.building = this.build(access, kinds, had !== undefined).catch((e) =>
        this.log('warn', `the search index was not built (searches read every object until the next start): ${(e as Error).message}`),
      );
    }
  }

  /** Stops the background build (before the database closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.building;
  }

  /** The ops a commit adds: none, or (once, from a store without the index) the marker's removal. */
  commitOps(): BatchOp[] {
    if (!this.staleMarker) return [];
    this.staleMarker = false;
    return [{ type: 'del', key: SEARCH_KEY }];
  }

  /** The index ops of writing `obj`, whose search record was `old`. */
  writeOps(obj: Envelope, old: string | undefined): BatchOp[] {
    const doc = docOf(keyOf(obj));
    const next = this.kinds.has(obj.kind) ? recordOf(obj) : undefined;
    if (next === old) return [];
    const before = new Set(old === undefined ? [] : old.split(SEP));
    const after = new Set(next === undefined ? [] : next.split(SEP));
    const ops: BatchOp[] = [];
    for (const e of before) if (!after.has(e)) ops.push({ type: 'del', key: entryKey(e, doc) });
    for (const e of after) if (!before.has(e)) ops.push({ type: 'put', key: entryKey(e, doc), value: '' });
    ops.push(next === undefined ? { type: 'del', key: searchRecordKey(doc) } : { type: 'put', key: searchRecordKey(doc), value: next });
    return ops;
  }

  /** The index ops of deleting the object `doc` (see docOf), whose search record was `old`. */
  deleteOps(doc: string, old: string | undefined): BatchOp[] {
    if (old === undefined) return [];
    return [...old.split(SEP).map((e) => ({ type: 'del' as const, key: entryKey(e, doc) })), { type: 'del', key: searchRecordKey(doc) }];
  }

  /** Candidates of `q` from the index; undefined while it is being built. */
  search(q: SearchQuery, reads: SearchReads): AsyncIterable<SearchCandidate> | undefined {
    return this.ready ? searchIndex(this.db, q, reads, this.plan) : undefined;
  }

  /**
   * Indexes every object of `kinds` that has no search record (`recheck`: every object whose record
   * is not what it gives, such as one left from when its kind was last searchable), a chunk at a
   * time: the chunk's objects are read and their entries made outside the write lock, then written
   * under it for those still unchanged with the record read (a write meanwhile indexed it, or
   * deleted it).
   */
  private async build(access: BuildAccess, kinds: readonly string[], recheck: boolean): Promise<void> {
    const started = performance.now();
    let indexed = 0;
    for (const kind of kinds) {
      const prefix = `o${SEP}${kind}${SEP}`;
      let after: string | undefined;
      for (;;) {
        if (this.stopped) return;
        const range = after === undefined ? { gte: prefix, lt: prefix + HIGH } : { gt: after, lt: prefix + HIGH };
        const keys = await this.db.keys({ ...range, limit: BUILD_CHUNK }).all();
        if (!keys.length) break;
        after = keys[keys.length - 1];
        const records = await this.db.getMany(keys.map((k) => searchRecordKey(k.slice(2))));
        const missing = recheck ? keys : keys.filter((_, i) => records[i] === undefined);
        const had = recheck ? records : missing.map(() => undefined);
        if (!missing.length) continue;
        const values = await this.db.getMany(missing);
        indexed += await access.locked(async () => {
          const [now, recordsNow] = await Promise.all([
            this.db.getMany(missing),
            this.db.getMany(missing.map((k) => searchRecordKey(k.slice(2)))),
          ]);
          const ops = missing.flatMap((_, i) =>
            values[i] !== undefined && now[i] === values[i] && recordsNow[i] === had[i]
              ? this.writeOps(JSON.parse(values[i]!) as Envelope, had[i])
              : [],
          );
          await access.batch(ops);
          return ops.filter((op) => op.key.startsWith('y') && op.type === 'put').length;
        });
      }
    }
    if (this.stopped) return;
    await access.locked(() => access.batch([{ type: 'put', key: SEARCH_KEY, value: this.marker }]));
    this.ready = true;
    this.log('info', `search index built: ${indexed} objects added in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

/** The kinds a marker of this version says are indexed (undefined: no marker, or another version's). */
function indexedKinds(stored: string | undefined): Set<string> | undefined {
  if (stored === undefined) return undefined;
  try {
    const m = JSON.parse(stored) as { version?: unknown; kinds?: unknown };
    return m.version === INDEX_VERSION && Array.isArray(m.kinds) ? new Set(m.kinds as string[]) : undefined;
  } catch {
    return undefined;
  }
}

/** An object's search record: its entries (class letter and term), joined by NUL. */
export function recordOf(obj: Envelope): string {
  const t = termsOf(obj);
  const entries = t.overflow ? ['o'] : [...t.terms].map(([term, cls]) => cls + term);
  for (const e of t.exact) entries.push(`e${e}`);
  return entries.join(SEP);
}

/** The key of one entry of a search record. */
const entryKey = (entry: string, doc: string) => termKey(entry[0], entry.slice(1), doc);
