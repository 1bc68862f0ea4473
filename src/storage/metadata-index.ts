import type { Envelope, ListQuery, Metadata, StoreEvent } from './store.js';

interface Entry {
  /** `project \0 name`: byte-wise order (names are ASCII), the store's list order. */
  sort: string;
  metadata: Metadata;
}

const sortKey = (project: string, name: string) => `${project}\x00${name}`;

/**
 * Kind and metadata of every object of the kinds loaded so far, in list order, for lists that
 * need no spec (`metadata_only`): answering them reads no stored body. A kind is loaded once
 * (by its first such list) and kept current from the store's events.
 */
export class MetadataIndex {
  private readonly kinds = new Map<string, Entry[]>();

  has(kind: string): boolean {
    return this.kinds.has(kind);
  }

  /** `objects`: every object of `kind`, in list order. */
  load(kind: string, objects: Iterable<Envelope>): void {
    const entries: Entry[] = [];
    for (const o of objects) entries.push({ sort: sortKey(o.metadata.project ?? '', o.metadata.name), metadata: frozen(o.metadata) });
    this.kinds.set(kind, entries);
  }

  apply(e: StoreEvent): void {
    const entries = this.kinds.get(e.object.kind);
    if (!entries) return;
    const m = e.object.metadata;
    const sort = sortKey(m.project ?? '', m.name);
    const i = lowerBound(entries, sort);
    const present = i < entries.length && entries[i].sort === sort;
    if (e.type === 'DELETED') {
      if (present) entries.splice(i, 1);
    } else if (present) {
      entries[i] = { sort, metadata: frozen({ ...m }) };
    } else {
      entries.splice(i, 0, { sort, metadata: frozen({ ...m }) });
    }
  }

  /** The store's list semantics, items with `spec: {}` (their metadata is the index's own, frozen: no copy of 100,000 objects per list). */
  list(q: ListQuery): Envelope[] {
    const entries = this.kinds.get(q.kind) ?? [];
    let from = q.project === undefined ? '' : sortKey(q.project, q.namePrefix ?? '');
    const after = q.after ? sortKey(q.after.project, q.after.name) : undefined;
    if (after !== undefined && after >= from) from = after;
    let i = lowerBound(entries, from);
    if (after !== undefined && i < entries.length && entries[i].sort === after) i++;
    const out: Envelope[] = [];
    const limit = q.limit ?? Infinity;
    for (; i < entries.length && out.length < limit; i++) {
      const m = entries[i].metadata;
      if (q.project !== undefined && (m.project ?? '') !== q.project) break;
      if (q.namePrefix && !m.name.startsWith(q.namePrefix)) {
        if (q.project !== undefined) break;
        continue;
      }
      out.push({ kind: q.kind, metadata: m, spec: {} });
    }
    return out;
  }
}

function frozen(m: Metadata): Metadata {
  if (m.tags) Object.freeze(m.tags);
  return Object.freeze(m);
}

function lowerBound(entries: readonly Entry[], sort: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid].sort < sort) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
