import type { Envelope, ListQuery, ObjectKey, ObjectStore } from './store.js';

/**
 * Objects of a few small, often-read kinds (sessions and users: every authenticated request reads
 * both), kept in memory until the store reports a write to them. Every read first calls
 * `store.sync()`, which delivers every event committed before it by any replica, so a cached
 * object is as fresh as a read from the store: a logout or user deletion anywhere holds on the
 * next request. Cached objects are frozen, because callers share them.
 */
export class ReadCache {
  private readonly entries = new Map<string, Envelope>();
  /** Bumped by every event of a cached kind: a read that started before one is not kept. */
  private generation = 0;
  private readonly kinds: ReadonlySet<string>;

  constructor(
    private readonly store: ObjectStore,
    kinds: readonly string[],
    private readonly maxEntries = 10_000,
  ) {
    this.kinds = new Set(kinds);
    store.onEvent((e) => {
      if (!this.kinds.has(e.object.kind)) return;
      this.generation++;
      this.entries.delete(cacheKey(e.object.kind, e.object.metadata.project ?? '', e.object.metadata.name));
    });
  }

  /**
   * `store.get`, from memory when nothing changed the object since it was last read. `synced`:
   * the caller has just called `store.sync()` itself (one round trip for several reads).
   */
  async get(key: ObjectKey, opts: { synced?: boolean | undefined } = {}): Promise<Envelope | undefined> {
    if (!this.kinds.has(key.kind)) return this.store.get(key);
    if (!opts.synced) await this.store.sync();
    const k = cacheKey(key.kind, key.project, key.name);
    const hit = this.entries.get(k);
    if (hit) return hit;
    const generation = this.generation;
    const obj = await this.store.get(key);
    if (obj && generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(k, deepFreeze(obj));
    }
    return obj;
  }
}

/**
 * Whole lists of a few small kinds per scope (a project's datasources and the global ones: every
 * write of a dashboard lists both for its warnings), kept until the store reports a write of that
 * kind in that scope. As ReadCache, every read first calls `store.sync()`, so a kept list is as
 * fresh as a list from the store; lists are frozen, because callers share them. On LevelDB each
 * list was an iterator, whose native memory waits for the garbage collector: two per create.
 */
export class ListCache {
  private readonly lists = new Map<string, Envelope[]>();
  /** Bumped by every event of a kept kind: a list read before one is not kept. */
  private generation = 0;
  private readonly kinds: ReadonlySet<string>;

  constructor(
    private readonly store: ObjectStore,
    kinds: readonly string[],
    private readonly maxLists = 1_000,
  ) {
    this.kinds = new Set(kinds);
    store.onEvent((e) => {
      if (!this.kinds.has(e.object.kind)) return;
      this.generation++;
      this.lists.delete(scopeKey(e.object.kind, e.object.metadata.project ?? ''));
    });
  }

  /** `store.list`; a whole scope of a kept kind (`kind` and `project` only) from memory when nothing changed it since. */
  async list(q: ListQuery): Promise<Envelope[]> {
    const whole = Object.keys(q).every((k) => k === 'kind' || k === 'project');
    if (!whole || !this.kinds.has(q.kind)) return this.store.list(q);
    await this.store.sync();
    const k = scopeKey(q.kind, q.project ?? '');
    const hit = this.lists.get(k);
    if (hit) return hit;
    const generation = this.generation;
    const items = await this.store.list(q);
    if (generation === this.generation) {
      if (this.lists.size >= this.maxLists) this.lists.delete(this.lists.keys().next().value!);
      this.lists.set(k, deepFreeze(items));
    }
    return items;
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
