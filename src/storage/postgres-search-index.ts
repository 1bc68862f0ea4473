import type { LogFn } from '../lib/log-fn.js';
import type { PostgresPool } from './postgres-pool.js';
import { searchRows, searchVector } from './postgres-search.js';
import type { Envelope, SearchCandidate, SearchQuery } from './store.js';

/** How long a check that every row has its search column holds (rows written by a store without the index are indexed once the next check sees them). */
const UNINDEXED_CHECK_MS = 10_000;

/** The `exclusive` key of the background indexing: one replica at a time. */
const SEARCH_INDEXING_LOCK = 'search-index';

/**
 * PostgresStore's search index: the search column every write fills (`vectorOf`), the searches
 * that read it (postgres-search.ts), and the background indexing of rows written without it.
 */
export class PostgresSearchIndex {
  /** The kinds the search column indexes (none: the store writes NULL, "not indexed", for every object). */
  private readonly kinds: ReadonlySet<string>;
  /** The background indexing of rows written without the search column (see fillSearch), while it runs. */
  private indexing?: Promise<void> | undefined;
  /** When no row lacked its search column, last checked (performance.now()). */
  private indexedAt = -Infinity;
  private closing = false;

  constructor(
    private readonly o: {
      db: PostgresPool;
      kinds: readonly string[];
      /** Where the indexing's news goes. */
      log: LogFn;
      /** The store's `exclusive`: the indexing runs on one replica at a time. */
      exclusive: <T>(key: string, fn: () => Promise<T>) => Promise<T>;
    },
  ) {
    this.kinds = new Set(o.kinds);
  }

  /** After the store opened: whether every row has its column is checked again at the next search. */
  opened(): void {
    this.closing = false;
    this.indexedAt = -Infinity;
  }

  /** Before the store closes: the indexing stops after its page. */
  async stop(): Promise<void> {
    this.closing = true;
    await this.indexing;
  }

  /**
   * Candidates from the search column (postgres-search.ts); undefined without the index, or while
   * rows are not indexed yet (written before the column, or by a store without it): they are then
   * indexed in the background. Whether any row lacks its column is checked again at most
   * every UNINDEXED_CHECK_MS.
   */
  async search(q: SearchQuery): Promise<AsyncIterable<SearchCandidate> | undefined> {
    if (!this.kinds.size) return undefined;
    if (performance.now() - this.indexedAt > UNINDEXED_CHECK_MS) {
      const { rows } = await this.o.db.query('SELECT 1 FROM dashplane_objects WHERE search IS NULL LIMIT 1', [], 'dashplane_unindexed');
      if (rows.length) {
        this.indexing ??= this.o
          .exclusive(SEARCH_INDEXING_LOCK, () => this.fillSearch())
          .catch((e) => {
            if (!this.closing)
              this.o.log('warn', `the search index was not completed (searches read every object until it is): ${(e as Error).message}`);
          })
          .finally(() => (this.indexing = undefined));
        return undefined;
      }
      this.indexedAt = performance.now();
    }
    return searchRows((text, values) => this.o.db.query(text, values), q);
  }

  /** The search column of `obj` (NULL, "not indexed", from a store without the index). */
  vectorOf(obj: Envelope): string | null {
    return this.kinds.size ? searchVector(obj, this.kinds) : null;
  }

  /**
   * Indexes the rows without a search column, a page at a time, on one replica at a time (the
   * lock): each row is updated only if still unindexed and unchanged (a write meanwhile indexed it,
   * or changed it and will be read again).
   */
  private async fillSearch(): Promise<void> {
    const started = performance.now();
    let done = 0;
    while (!this.closing) {
      const { rows } = await this.o.db.query<{ kind: string; project: string; name: string; text: string }>(
        'SELECT kind, project, name, doc::text AS text FROM dashplane_objects WHERE search IS NULL ORDER BY kind, project, name LIMIT 200',
      );
      if (!rows.length) break;
      const vectors = rows.map((r) => searchVector(JSON.parse(r.text) as Envelope, this.kinds));
      const updated = await this.o.db.query(
        `UPDATE dashplane_objects o SET search = v.search::tsvector
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS v(kind, project, name, doc, search)
          WHERE o.kind = v.kind COLLATE "C" AND o.project = v.project COLLATE "C" AND o.name = v.name COLLATE "C" AND o.search IS NULL AND o.doc::text = v.doc`,
        [rows.map((r) => r.kind), rows.map((r) => r.project), rows.map((r) => r.name), rows.map((r) => r.text), vectors],
      );
      done += updated.rowCount ?? 0;
    }
    if (done) this.o.log('info', `search index: ${done} objects indexed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}
