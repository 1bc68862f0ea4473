import type { Authorizer, Principal } from '../auth/authorizer.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { filterPredicate, isExpired } from '../resources/listing.js';
import { mask } from '../resources/masking.js';
import type { Envelope, ListQuery, Store, StoreEvent } from '../storage/store.js';

/** What a watch stream carries (API.md §6). */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  revision: number;
  object?: Envelope;
}

export interface WatchQuery {
  project?: string;
  namePrefix?: string;
  filters?: Record<string, string>;
  /** Resume after this revision; without it the stream starts with the current objects. */
  since?: number;
}

/**
 * Watch streams: store events -> the callers that may see them. Same filters and permissions
 * as the list; permissions are re-read whenever a role or binding changes, so a watcher that
 * loses access stops receiving that project's events.
 */
export class Watcher {
  private readonly streams = new Set<AbortController>();
  private readonly rbacKinds: Set<string>;
  /** Snapshots being read, by query (see `snapshot`). */
  private readonly snapshots = new Map<string, Promise<{ items: Envelope[]; revision: number }>>();

  constructor(private readonly o: { store: Store; registry: KindRegistry; authorizer: Authorizer; bookmarkMs: number; now?: () => number }) {
    this.rbacKinds = new Set(o.registry.all().filter((d) => d.authz || d.isPrincipal).map((d) => d.kind));
  }

  /**
   * Checks permissions and `since` (throwing 403/410 before anything is sent), then returns the
   * events to stream until `signal` aborts or the watcher closes.
   */
  async open(p: Principal, d: KindDescriptor, q: WatchQuery, signal: AbortSignal): Promise<AsyncIterable<WatchEvent>> {
    const controller = new AbortController();
    const stop = AbortSignal.any([signal, controller.signal]);
    const readable = await this.readable(p, d, q);
    let start = q.since;
    let initial: Envelope[] = [];
    const live = () => this.o.store.watch({ since: start, signal: stop });
    let events: AsyncIterable<StoreEvent>;
    if (start === undefined) {
      const snap = await this.snapshot({ kind: d.kind, ...(q.project !== undefined ? { project: q.project } : d.scope === 'global' ? { project: '' } : {}), ...(q.namePrefix ? { namePrefix: q.namePrefix } : {}) });
      start = snap.revision;
      initial = snap.items;
    }
    events = live();
    this.streams.add(controller);
    stop.addEventListener('abort', () => this.streams.delete(controller), { once: true });
    return this.stream(p, d, q, readable, initial, start, events, stop);
  }

  /**
   * A list and its revision, shared by the watches that open while it is being read: a hundred
   * clients opening watches on a project of 1,600 10 KB dashboards held a hundred parsed copies
   * (gigabytes). Sharing is correct however late a watcher joins: its events resume from the
   * snapshot's revision, so writes committed meanwhile arrive as events.
   */
  private snapshot(q: ListQuery): Promise<{ items: Envelope[]; revision: number }> {
    const key = JSON.stringify(q);
    let shared = this.snapshots.get(key);
    if (!shared) {
      shared = this.o.store.snapshot(q).finally(() => this.snapshots.delete(key));
      this.snapshots.set(key, shared);
    }
    return shared;
  }

  /** How many streams are open (a metric). */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Ends every open stream (server shutdown). */
  closeAll(): void {
    for (const c of this.streams) c.abort();
  }

  private async *stream(p: Principal, d: KindDescriptor, q: WatchQuery, readable0: '*' | ReadonlySet<string>, initial: Envelope[], startRev: number, events: AsyncIterable<StoreEvent>, stop: AbortSignal): AsyncGenerator<WatchEvent> {
    let readable = readable0;
    const now = this.o.now ?? Date.now;
    const matches = filterPredicate(d, q.filters);
    const projectOf = (o: Envelope) => (d.isProjectScope ? o.metadata.name : (o.metadata.project ?? ''));
    const visible = (o: Envelope) =>
      o.kind === d.kind &&
      (q.project === undefined || o.metadata.project === q.project) &&
      (!q.namePrefix || o.metadata.name.startsWith(q.namePrefix)) &&
      matches(o) &&
      (readable === '*' || readable.has(projectOf(o)));
    for (const o of initial) if (visible(o) && !isExpired(d, o, now())) yield { type: 'ADDED', revision: startRev, object: mask(d, o) };
    let revision = startRev;
    const it = events[Symbol.asyncIterator]();
    // One pending next() at a time: a bookmark tick must not drop the event still on its way.
    let pending: Promise<IteratorResult<StoreEvent>> | undefined;
    // A BOOKMARK is due bookmarkMs after the last line sent, however busy other kinds or projects are.
    let bookmarkAt = Date.now() + this.o.bookmarkMs;
    // One timer per bookmark interval, not one per event: it stays armed across events and, when
    // it fires early (lines went out meanwhile), is armed again for the rest of the interval.
    let timer: NodeJS.Timeout | undefined;
    let bookmark: Promise<'bookmark'> | undefined;
    try {
      for (;;) {
        pending ??= it.next();
        bookmark ??= new Promise<'bookmark'>((r) => (timer = setTimeout(() => r('bookmark'), Math.max(0, bookmarkAt - Date.now()))));
        const next = await Promise.race([pending, bookmark]);
        if (next === 'bookmark') {
          bookmark = undefined;
          if (Date.now() < bookmarkAt) continue;
          bookmarkAt = Date.now() + this.o.bookmarkMs;
          yield { type: 'BOOKMARK', revision: Math.max(revision, await this.o.store.revision()) };
          continue;
        }
        pending = undefined;
        if (next.done || stop.aborted) return;
        const e = next.value;
        revision = e.revision;
        if (this.rbacKinds.has(e.object.kind)) {
          try {
            readable = await this.readable(p, d, q);
          } catch {
            return; // lost read permission on the watched project
          }
        }
        if (visible(e.object)) {
          bookmarkAt = Date.now() + this.o.bookmarkMs;
          yield { type: e.type, revision: e.revision, object: mask(d, e.object) };
        }
      }
    } finally {
      clearTimeout(timer);
      await it.return?.();
    }
  }

  private async readable(p: Principal, d: KindDescriptor, q: WatchQuery): Promise<'*' | ReadonlySet<string>> {
    if (d.scope === 'project' && q.project !== undefined) {
      await this.o.authorizer.authorize(p, 'read', { kind: d.kind, project: q.project });
      return '*';
    }
    if (d.scope === 'project' || d.isProjectScope) return this.o.authorizer.readableProjects(p, d.kind);
    await this.o.authorizer.authorize(p, 'read', { kind: d.kind });
    return '*';
  }
}
