import type { Level } from 'level';
import { LazySearch } from './level-search-lazy.js';
import { inBoundOrder, type SearchReads } from './level-search-order.js';
import { ENTRY_BYTES, Plan, RECORD_BYTES } from './level-search-plan.js';
import type { SearchCandidate, SearchQuery } from './store.js';

export type { SearchReads };

/** The plans of a search (see searchIndex). */
export type SearchPlan = 'records' | 'whole' | 'lazy';

/** Reading a search record in a range costs about four index entries read (level-search-plan.ts). */
const RECORD_SCAN_COST = 4;

/** Below this many entries the rarest term is read whole (and the others checked against it); above, the search reads lazily. */
const DRIVER_MAX = 5_000;
/** Most search records read whole (those of the places the caller may read, when few: else the search reads lazily, skipping the others). */
const RECORDS_MAX = 10_000;

/**
 * The candidates of `q` from LevelStore's search index (level-search.ts), best bound first, equal
 * bounds in key order, each with its text. The plan is chosen from LevelDB's estimates of what each
 * reads:
 * - the search records of the objects the caller may read, when they are few (a caller who may
 *   read a few projects);
 * - a rare term (at most DRIVER_MAX entries): its entries whole, narrowed by the other terms'
 *   entries, or by the candidates' search records when those are fewer to read;
 * - otherwise, lazily (level-search-lazy.ts): for each combination of the words' classes, best first,
 *   the objects holding all of them, read as the caller asks — a search satisfied by titles never
 *   reads its words' other entries.
 * Every step reads in slices (an await between them): other requests are served meanwhile.
 */
export async function* searchIndex(
  db: Level<string, string>,
  q: SearchQuery,
  reads: SearchReads,
  force?: SearchPlan,
): AsyncGenerator<SearchCandidate> {
  const plan = new Plan(db, q);
  try {
    yield* planned(db, q, plan, reads, force);
  } finally {
    await plan.close();
  }
}

async function* planned(
  db: Level<string, string>,
  q: SearchQuery,
  plan: Plan,
  reads: SearchReads,
  force?: SearchPlan,
): AsyncGenerator<SearchCandidate> {
  const terms = q.words.flatMap((w, i) => w.terms.map((term) => ({ word: i, term })));
  const sizes = await Promise.all(terms.map((t) => plan.entriesBytes(t.term)));
  const order = terms.map((t, i) => ({ ...t, entries: sizes[i] / ENTRY_BYTES })).sort((a, b) => a.entries - b.entries);
  const records = (await plan.recordsBytes()) / RECORD_BYTES;
  const chosen: SearchPlan =
    force === 'records'
      ? 'records'
      : force === 'whole' || force === 'lazy'
        ? force
        : records <= RECORDS_MAX && (order[0].entries > DRIVER_MAX || records * RECORD_SCAN_COST < order[0].entries)
          ? 'records'
          : order[0].entries <= DRIVER_MAX
            ? 'whole'
            : 'lazy';
  if (chosen === 'records') return yield* inBoundOrder(await plan.fromRecords(), reads);
  if (chosen === 'whole') return yield* inBoundOrder(await plan.fromEntries(order), reads);
  const lazy = new LazySearch(db, q, plan);
  try {
    yield* lazy.run(order, reads);
  } finally {
    await lazy.close();
  }
}
