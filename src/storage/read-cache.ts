import type { Envelope, ListQuery, ObjectKey, ObjectStore } from './store.js';

/**
 * What ReadCache and ListCache share: values of some kinds kept in memory, dropped by the store's
 * events of those kinds (under the key `keyOf` gives an event's object), and a generation that
 * tells a read an event overtook (it is then not kept). Kept values are frozen: callers share them.
 */
abstract class EventDropped<V> {
  private readonly entries = new Map<string, V>();
  /** Bumped by every event of a kept kind: a read that started before one is not kept. */
  private generation = 0;
  protected readonly kinds: ReadonlySet<string>;

  constructor(
    protected readonly store: ObjectStore,
    kinds: readonly string[],
    private readonly maxEntries: number,
    keyOf: (o: Envelope) => string,
  ) {
    this.kinds = new Set(kinds);
    store.onEvent((e) => {
      if (!this.kinds.has(e.object.kind)) return;
      this.generation++;
      this.entries.delete(keyOf(e.object));
    });
  }

  /** The value kept under `key`, or `read`'s, kept when `keep` says so and no event overtook it. */
  protected async cached(key: string, read: () => Promise<V>, keep: (v: V) => boolean): Promise<V> {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const generation = this.generation;
    const v = await read();
    if (keep(v) && generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, deepFreeze(v));
    }
    return v;
  }
}

/**
 * Objects of a few small, often-read kinds (sessions and users: every authenticated request reads
 * both), kept in memory until the store reports a write to them. Every read first calls
 * `store.sync()`, which delivers every event committed before it by any replica, so a cached
 * object is as fresh as a read from the store: a logout or user deletion anywhere holds on the
 * next request. Cached objects are frozen, because callers share them.
 */
export class ReadCache extends EventDropped<Envelope | undefined> {
  constructor(store: ObjectStore, kinds: readonly string[], maxEntries = 10_000) {
    super(store, kinds, maxEntries, (o) => cacheKey(o.kind, o.metadata.project ?? '', o.metadata.name));
  }

  /**
   * `store.get`, from memory when nothing changed the object since it was last read. `synced`:
   * the caller has just called `store.sync()` itself (one round trip for several reads).
   */
  async get(key: ObjectKey, opts: { synced?: boolean | undefined } = {}): Promise<Envelope | undefined> {
    if (!this.kinds.has(key.kind)) return this.store.get(key);
    if (!opts.synced) await this.store.sync();
    return this.cached(
      cacheKey(key.kind, key.project, key.name),
      () => this.store.get(key),
      (o) => o !== undefined,
    );
  }
}

/**
 * Whole lists of a few small kinds per scope (a project's datasources and the global ones: every
 * write of a dashboard lists both for its warnings), kept until the store reports a write of that
 * kind in that scope. As ReadCache, every read first calls `store.sync()`, so a kept list is as
 * fresh as a list from the store; lists are frozen, because callers share them. On LevelDB each
 * list was an iterator, whose native memory waits for the garbage collector: two per create.
 */
export class ListCache extends EventDropped<Envelope[]> {
  constructor(store: ObjectStore, kinds: readonly string[], maxLists = 1_000) {
    super(store, kinds, maxLists, (o) => scopeKey(o.kind, o.metadata.project ?? ''));
  }

  /** `store.list`; a whole scope of a kept kind (`kind` and `project` only) from memory when nothing changed it since. */
  async list(q: ListQuery): Promise<Envelope[]> {
    const whole = Object.keys(q).every((k) => k === 'kind' || k === 'project');
    if (!whole || !this.kinds.has(q.kind)) return this.store.list(q);
    await this.store.sync();
    return this.cached(
      scopeKey(q.kind, q.project ?? ''),
      () => this.store.list(q),
      () => true,
    );
  }
}

const cacheKey = (kind: string, project: string, name: string) => `${kind}\x00${project}\x00${name}`;
const scopeKey = (kind: string, project: string) => `${kind}\x00${project}`;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
