import type { ObjectStore } from '../storage/store.js';

/**
 * A value computed from every object of a few kinds (all roles and bindings; all folders), kept
 * until one of them changes: the store's events (every replica's) drop it, and `get` first calls
 * `sync` (unless the caller just did), which delivers every event committed before the request,
 * so a change holds on the very next request on any replica.
 */
export class DerivedCache<T> {
  private current?: Promise<T> | undefined;
  /** Bumped by every relevant event: a computation started before one is not kept. */
  private generation = 0;

  constructor(
    private readonly store: ObjectStore,
    kinds: Iterable<string>,
    private readonly compute: () => Promise<T>,
  ) {
    const watched = new Set(kinds);
    store.onEvent((e) => {
      if (!watched.has(e.object.kind)) return;
      this.generation++;
      this.current = undefined;
    });
  }

  /** `synced`: the caller's request has called `store.sync()` already (Principal.synced). */
  async get(synced = false): Promise<T> {
    if (!synced) await this.store.sync();
    if (this.current) return this.current;
    const generation = this.generation;
    const computing = this.compute();
    this.current = computing;
    computing.then(
      () => {
        if (this.generation !== generation && this.current === computing) this.current = undefined;
      },
      () => {
        if (this.current === computing) this.current = undefined;
      },
    );
    return computing;
  }
}
