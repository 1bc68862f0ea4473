import type { ListQuery, Metadata, StoreEvent } from './store.js';

/** One object of a list's answer: its place, and its metadata when the index holds it. */
export interface IndexEntry {
  readonly project: string;
  readonly name: string;
  /** Frozen; set by the index from the object's events, or remembered from its metadata record. */
  readonly metadata?: Metadata;
}

/** A kind's objects as a load reads them, in list order: parallel arrays of places. */
export interface LoadedPlaces {
  /** One string per project, shared by its objects. */
  projects: string[];
  /** Strings of their own (not slices of the keys they were read from: a slice keeps its key). */
  names: string[];
}

/**
 * Entries per chunk of a kind's sorted metadata (a full chunk splits in two halves): an insert or
 * a delete moves at most this many, where one sorted array of 1,000,000 moved half of them (creates
 * fell from 2,295/s to 849/s once it was loaded).
 */
const CHUNK = 1_024;

/**
 * A run of a kind's entries in list order, as parallel arrays: an object per entry, with a name
 * sliced out of its LevelDB key, took 139 bytes per entry (297 MB for 2,134,000 dashboards); a
 * project string shared by its entries, a name of its own and a metadata slot once one is known
 * take about 60.
 */
class Chunk {
  constructor(
    readonly projects: string[],
    readonly names: string[],
    /** Made when the chunk first holds a metadata. */
    public metadata?: (Metadata | undefined)[],
  ) {}

  get size(): number {
    return this.names.length;
  }

  /** Whether entry `i` comes before (project, name): byte-wise order (names are ASCII), the store's list order. */
  before(i: number, project: string, name: string): boolean {
    const p = this.projects[i];
    return p < project || (p === project && this.names[i] < name);
  }

  is(i: number, project: string, name: string): boolean {
    return this.names[i] === name && this.projects[i] === project;
  }

  /** The position of the first entry at or after (project, name). */
  lowerBound(project: string, name: string): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.before(mid, project, name)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  entry(i: number): IndexEntry {
    const metadata = this.metadata?.[i];
    return metadata ? { project: this.projects[i], name: this.names[i], metadata } : { project: this.projects[i], name: this.names[i] };
  }

  setMetadata(i: number, m: Metadata | undefined): void {
    if (m === undefined && !this.metadata) return;
    this.metadata ??= new Array<Metadata | undefined>(this.size);
    this.metadata[i] = m;
  }

  insert(i: number, project: string, name: string, m: Metadata | undefined): void {
    this.projects.splice(i, 0, project);
    this.names.splice(i, 0, name);
    if (this.metadata || m) {
      this.metadata ??= new Array<Metadata | undefined>(this.size - 1);
      this.metadata.splice(i, 0, m);
    }
  }

  remove(i: number): void {
    this.projects.splice(i, 1);
    this.names.splice(i, 1);
    this.metadata?.splice(i, 1);
  }

  /** Cuts the chunk at `at`: keeps the entries before it, returns the others as a chunk. */
  cut(at: number): Chunk {
    return new Chunk(this.projects.splice(at), this.names.splice(at), this.metadata?.splice(at));
  }
}

/**
 * One kind's metadata in list order, as sorted chunks: finding a position is two binary searches
 * (the chunk, then the entry), an insert or a delete moves at most CHUNK entries.
 */
class SortedChunks {
  private chunks: Chunk[] = [];

  constructor(all: LoadedPlaces) {
    for (let i = 0; i < all.names.length; i += CHUNK / 2)
      this.chunks.push(new Chunk(all.projects.slice(i, i + CHUNK / 2), all.names.slice(i, i + CHUNK / 2)));
  }

  /** The position of the first entry at or after (project, name): chunk and index in it. */
  lowerBound(project: string, name: string): [number, number] {
    let lo = 0;
    let hi = this.chunks.length;
    // the first chunk whose last entry is at or after the key
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.chunks[mid];
      if (c.before(c.size - 1, project, name)) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.chunks.length) return [lo, 0];
    return [lo, this.chunks[lo].lowerBound(project, name)];
  }

  /** Whether (c, i) holds (project, name). */
  is(c: number, i: number, project: string, name: string): boolean {
    const chunk = this.chunks[c];
    return chunk !== undefined && i < chunk.size && chunk.is(i, project, name);
  }

  /** Calls `fn` with the entries from (c, i) on, in order, until it returns false. */
  each(c: number, i: number, fn: (chunk: Chunk, i: number) => boolean): void {
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c];
      for (; i < chunk.size; i++) if (!fn(chunk, i)) return;
    }
  }

  /** Puts (project, name) at its place with `m` (replacing the metadata of the entry there). */
  put(project: string, name: string, m: Metadata | undefined): void {
    if (this.chunks.length === 0) {
      this.chunks.push(new Chunk([project], [name], m ? [m] : undefined));
      return;
    }
    let [c, i] = this.lowerBound(project, name);
    if (c === this.chunks.length) {
      c--;
      i = this.chunks[c].size;
    }
    const chunk = this.chunks[c];
    if (i < chunk.size && chunk.is(i, project, name)) {
      chunk.setMetadata(i, m);
      return;
    }
    chunk.insert(i, project, name, m);
    if (chunk.size > CHUNK) this.chunks.splice(c + 1, 0, chunk.cut(CHUNK / 2));
  }

  /** Sets the metadata of (project, name) when it is there. */
  remember(project: string, name: string, m: Metadata): void {
    const [c, i] = this.lowerBound(project, name);
    if (this.is(c, i, project, name)) this.chunks[c].setMetadata(i, m);
  }

  /** Removes the entry of (project, name), if there is one. */
  delete(project: string, name: string): void {
    const [c, i] = this.lowerBound(project, name);
    if (!this.is(c, i, project, name)) return;
    const chunk = this.chunks[c];
    chunk.remove(i);
    if (chunk.size === 0) this.chunks.splice(c, 1);
  }
}

/** What the index keeps of an event committed while its kind loads (not the object: a 10 KB body each). */
interface Pending {
  deleted: boolean;
  project: string;
  name: string;
  metadata: Metadata;
}

/**
 * The objects of the kinds loaded so far, in list order, with their metadata once known, for lists
 * that need no spec (`metadata_only`) and for finding names: answering them reads no stored body.
 * A kind is loaded once (by its first such list) and kept current from the store's events; while
 * it loads, its events wait in a buffer and are applied once the load ends (the store reads a
 * snapshot of the keys of the metadata records and buffers every event committed after it: no
 * write waits for a load). Loading reads keys only: parsing 1,000,000 metadata records took 2.5 s
 * of the main thread, which creates share; a list reads and keeps the metadata it lacks.
 */
export class MetadataIndex {
  private readonly kinds = new Map<string, SortedChunks>();
  /** Kinds being loaded: what the events committed since their snapshot change. */
  private readonly loading = new Map<string, Pending[]>();

  has(kind: string): boolean {
    return this.kinds.has(kind);
  }

  /** Starts buffering `kind`'s events: call at the instant of the snapshot the load reads (no commit in between). */
  loadFrom(kind: string): void {
    this.loading.set(kind, []);
  }

  /** `all`: every object of `kind` in the snapshot, in list order; then the events buffered since. */
  load(kind: string, all: LoadedPlaces): void {
    const entries = new SortedChunks(all);
    this.kinds.set(kind, entries);
    const buffered = this.loading.get(kind) ?? [];
    this.loading.delete(kind);
    for (const p of buffered) change(entries, p);
  }

  /** A load that failed: its buffered events are dropped (the next list loads the kind again). */
  cancel(kind: string): void {
    this.loading.delete(kind);
  }

  apply(e: StoreEvent): void {
    const kind = e.object.kind;
    const buffered = this.loading.get(kind);
    const entries = this.kinds.get(kind);
    if (!buffered && !entries) return;
    const m = e.object.metadata;
    const p: Pending = { deleted: e.type === 'DELETED', project: m.project ?? '', name: m.name, metadata: frozen({ ...m }) };
    if (buffered) buffered.push(p);
    else change(entries!, p);
  }

  /** Keeps `m` (read from its record) as the metadata of its entry, when the entry is there. */
  remember(kind: string, m: Metadata): void {
    this.kinds.get(kind)?.remember(m.project ?? '', m.name, m);
  }

  /** The store's list semantics, as entries (the store reads the metadata they lack). */
  list(q: ListQuery): IndexEntry[] {
    const entries = this.kinds.get(q.kind);
    if (!entries) return [];
    let from = q.project === undefined ? { project: '', name: '' } : { project: q.project, name: q.namePrefix ?? '' };
    const after = q.after;
    if (after !== undefined && (after.project > from.project || (after.project === from.project && after.name >= from.name))) from = after;
    let [c, i] = entries.lowerBound(from.project, from.name);
    if (after !== undefined && entries.is(c, i, after.project, after.name)) i++;
    const out: IndexEntry[] = [];
    const limit = q.limit ?? Infinity;
    entries.each(c, i, (chunk, j) => {
      if (out.length >= limit) return false;
      if (q.project !== undefined && chunk.projects[j] !== q.project) return false;
      if (q.namePrefix && !chunk.names[j].startsWith(q.namePrefix)) return q.project === undefined;
      out.push(chunk.entry(j));
      return true;
    });
    return out;
  }
}

function change(entries: SortedChunks, p: Pending): void {
  if (p.deleted) entries.delete(p.project, p.name);
  else entries.put(p.project, p.name, p.metadata);
}

/** `m` frozen with its tags: shared by every list that answers it. */
export function frozen(m: Metadata): Metadata {
  if (m.tags) Object.freeze(m.tags);
  return Object.freeze(m);
}
