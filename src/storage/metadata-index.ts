import type { Envelope, ListQuery, Metadata, StoreEvent } from './store.js';

/** Byte-wise (project, name) order (names are ASCII): the store's list order. */
function before(m: Metadata, project: string, name: string): boolean {
  const p = m.project ?? '';
  return p < project || (p === project && m.name < name);
}

const same = (m: Metadata, project: string, name: string) => (m.project ?? '') === project && m.name === name;

/** The `spec` of every listed item: shared, frozen. */
const EMPTY_SPEC = Object.freeze({});

/**
 * Kind and metadata of every object of the kinds loaded so far, in list order, for lists that
 * need no spec (`metadata_only`) and for finding names: answering them reads no stored body. A
 * kind is loaded once (by its first such list) and kept current from the store's events. Each
 * object costs its frozen metadata and one array slot (180 bytes for a dashboard's metadata).
 */
export class MetadataIndex {
  private readonly kinds = new Map<string, Metadata[]>();

  has(kind: string): boolean {
    return this.kinds.has(kind);
  }

  /** `all`: the metadata of every object of `kind`, in list order. */
  load(kind: string, all: Metadata[]): void {
    for (const m of all) frozen(m);
    this.kinds.set(kind, all);
  }

  apply(e: StoreEvent): void {
    const entries = this.kinds.get(e.object.kind);
    if (!entries) return;
    const m = e.object.metadata;
    const project = m.project ?? '';
    const i = lowerBound(entries, project, m.name);
    const present = i < entries.length && same(entries[i], project, m.name);
    if (e.type === 'DELETED') {
      if (present) entries.splice(i, 1);
    } else if (present) {
      entries[i] = frozen({ ...m });
    } else {
      entries.splice(i, 0, frozen({ ...m }));
    }
  }

  /** The store's list semantics, items with `spec: {}` (their metadata is the index's own, frozen: no copy of 100,000 objects per list). */
  list(q: ListQuery): Envelope[] {
    const entries = this.kinds.get(q.kind) ?? [];
    let from = q.project === undefined ? { project: '', name: '' } : { project: q.project, name: q.namePrefix ?? '' };
    const after = q.after;
    if (after !== undefined && (after.project > from.project || (after.project === from.project && after.name >= from.name))) from = after;
    let i = lowerBound(entries, from.project, from.name);
    if (after !== undefined && i < entries.length && same(entries[i], after.project, after.name)) i++;
    const out: Envelope[] = [];
    const limit = q.limit ?? Infinity;
    for (; i < entries.length && out.length < limit; i++) {
      const m = entries[i];
      if (q.project !== undefined && (m.project ?? '') !== q.project) break;
      if (q.namePrefix && !m.name.startsWith(q.namePrefix)) {
        if (q.project !== undefined) break;
        continue;
      }
      out.push({ kind: q.kind, metadata: m, spec: EMPTY_SPEC });
    }
    return out;
  }
}

function frozen(m: Metadata): Metadata {
  if (m.tags) Object.freeze(m.tags);
  return Object.freeze(m);
}

function lowerBound(entries: readonly Metadata[], project: string, name: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(entries[mid], project, name)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
