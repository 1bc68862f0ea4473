import type { Level } from 'level';
import { HIGH, SEP, metadataRecordKey, objectKey } from './level-keys.js';
import { batches } from './level-read.js';
import { frozen, type IndexEntry, type LoadedPlaces, MetadataIndex } from './metadata-index.js';
import type { Mutex } from './mutex.js';
import type { Envelope, ListQuery, Metadata, StoreEvent } from './store.js';

/**
 * A load of the metadata index shares the main thread with writes committed this recently: it
 * reads 1,000,000 keys in about 0.9 s of CPU, which creates going on at the time otherwise lose.
 */
const LOAD_SHARE_WINDOW_MS = 200;

/**
 * Metadata records read per getMany. One getMany for a list of everything (100,000 records) held
 * every key and value at once in native memory and again as strings: P5's RSS 232-248 MB, 201-217
 * in steps of 1,000.
 */
const READ_STEP = 1_000;

/** The `spec` of every item of a metadata_only list: shared, frozen. */
const EMPTY_SPEC = Object.freeze({});

/** What the metadata index needs from LevelStore. */
export interface LevelMetadataAccess {
  db(): Level<string, string>;
  /** Held while a group of writes is planned and committed. */
  writes: Mutex;
  /** A read through the store's recovery (level-recovery.ts). */
  read<T>(fn: () => Promise<T>): Promise<T>;
  /** Bumped by every commit. */
  generation(): number;
}

/**
 * LevelStore's metadata index (metadata-index.ts): each kind loaded once, by its first
 * `metadata_only` or name-prefix list, from a snapshot of its metadata records' keys; kept
 * current by every commit; the metadata a list needs read from the records and kept.
 */
export class LevelMetadata {
  private readonly index = new MetadataIndex();
  /** The kinds being loaded. */
  private readonly loads = new Map<string, Promise<void>>();
  /** When the last commit ended (performance.now()): a load yields to writes going on. */
  private lastCommit = -Infinity;

  constructor(private readonly o: LevelMetadataAccess) {}

  /** A metadata_only list: kind and metadata of each object, `spec` {}. */
  async list(q: ListQuery): Promise<Envelope[]> {
    await this.load(q.kind);
    return this.withMetadata(q.kind, this.index.list(q));
  }

  /** The list's entries when `q.kind` is loaded (undefined when it is not). */
  entries(q: ListQuery): IndexEntry[] | undefined {
    return this.index.has(q.kind) ? this.index.list(q) : undefined;
  }

  /** After a commit (under the write lock): its events, in revision order. */
  committed(events: readonly StoreEvent[]): void {
    this.lastCommit = performance.now();
    for (const e of events) this.index.apply(e);
  }

  /** Loads `kind` once (lists asking meanwhile wait for the same load). */
  load(kind: string): Promise<void> {
    if (this.index.has(kind)) return Promise.resolve();
    let loading = this.loads.get(kind);
    if (!loading) {
      loading = this.loadNow(kind).finally(() => this.loads.delete(kind));
      this.loads.set(kind, loading);
    }
    return loading;
  }

  /**
   * Index entries as listed items (spec `{}`), their metadata read from their records where the
   * index does not hold it yet (kept there, frozen, unless a commit ran meanwhile: it may have
   * changed one of them). An object deleted since the index listed it is left out.
   */
  private async withMetadata(kind: string, entries: readonly IndexEntry[]): Promise<Envelope[]> {
    const missing = entries.filter((e) => e.metadata === undefined);
    if (!missing.length) return entries.map((e) => ({ kind, metadata: e.metadata!, spec: EMPTY_SPEC }));
    const generation = this.o.generation();
    const read = new Map<IndexEntry, Metadata>();
    for (let i = 0; i < missing.length; i += READ_STEP) {
      const some = missing.slice(i, i + READ_STEP);
      const raws = await this.o.read(() =>
        this.o.db().getMany(some.map((e) => metadataRecordKey(objectKey({ kind, project: e.project, name: e.name })))),
      );
      some.forEach((e, j) => {
        if (raws[j] !== undefined) read.set(e, frozen(JSON.parse(raws[j]!) as Metadata));
      });
    }
    if (generation === this.o.generation()) for (const m of read.values()) this.index.remember(kind, m);
    return entries.flatMap((e) => {
      const metadata = e.metadata ?? read.get(e);
      return metadata ? [{ kind, metadata, spec: EMPTY_SPEC }] : [];
    });
  }

  /**
   * Reads the keys of `kind`'s metadata records (the objects' places, not their metadata) from a
   * snapshot taken under the write lock, where the index starts buffering the kind's events (no
   * commit between the two); the read itself holds no lock, so writes go on while it runs (at
   * 1,000,000 dashboards the load held it 2.4-3 s). The events committed meanwhile are applied
   * after it. The records, not the objects: a scan of the objects read every body (LevelDB reads
   * keys and values together), and the pages of its table files, mapped into memory, stayed in the
   * process's resident memory (68 MB for 100,000 2 KB dashboards).
   */
  private async loadNow(kind: string): Promise<void> {
    const prefix = metadataRecordKey(`o${SEP}${kind}${SEP}`);
    const records = await this.o.writes.run(async () => {
      this.index.loadFrom(kind);
      // the iterator's snapshot is taken as it is made
      return this.o.db().keys({ gte: prefix, lt: prefix + HIGH });
    });
    const all: LoadedPlaces = { projects: [], names: [] };
    // one string per project, not one per object
    const projects = new Map<string, string>();
    try {
      // a step's work counts from before its read: the keys arrive as strings made on the main thread
      let started = performance.now();
      for await (const batch of batches(records)) {
        for (const key of batch) {
          const end = key.indexOf(SEP, prefix.length);
          const p = key.slice(prefix.length, end);
          let project = projects.get(p);
          if (project === undefined) {
            project = p;
            projects.set(p, p);
          }
          all.projects.push(project);
          all.names.push(ownString(key.slice(end + 1)));
        }
        // while writes go on, the load takes at most a fifth of the main thread (it waits four times what it worked)
        if (performance.now() - this.lastCommit < LOAD_SHARE_WINDOW_MS)
          await new Promise((r) => setTimeout(r, 4 * (performance.now() - started)));
        started = performance.now();
      }
    } catch (e) {
      this.index.cancel(kind);
      throw e;
    }
    this.index.load(kind, all);
  }
}

/**
 * `s` as a string of its own: a slice of a longer string (a name cut out of its key) keeps the
 * whole of it alive, 104 bytes per name where a copy takes 48.
 */
const ownString = (s: string) => Buffer.from(s).toString();
