import { endAtExpiry, revokedEnd } from '../access/credential-end.js';
import type { Authorizer, Principal, Revocation, Visible } from '../access/authorizer.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { ApiError } from '../errors.js';
import { StreamEnd, streamEndOf } from '../lib/stream-end.js';
import { filterPredicate, isExpired, requireProject } from '../resources/listing.js';
import { mask } from '../resources/masking.js';
import type { Envelope, ListQuery, ObjectStore, StoreEvent } from '../storage/store.js';
import { FilterMoves } from './filter-moves.js';
import { StreamView } from './stream-view.js';

/**
 * What a watch stream carries (docs/api.md §6): changes, BOOKMARKs, and a final ERROR when the
 * stream ends before its client leaves, with the revision to resume from (absent: list again).
 */
export type WatchEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; revision: number; object: Envelope }
  | { type: 'BOOKMARK'; revision: number; object?: undefined }
  | { type: 'ERROR'; revision?: number; error: ApiError; object?: undefined };

/** How far one stream may fall behind the live events (watch.max_backlog_events, watch.max_backlog_bytes). */
export interface WatchLimits {
  maxEvents: number;
  maxBytes: number;
}

/** How a stream ends that cannot show a deletion its client may need (StreamView.unsentDeletion). */
const GAP = new StreamEnd(
  'Gone',
  'this watch cannot show the deletions of objects the client may hold, of a project that was deleted (or deleted and created again): its permissions say nothing of that project any more',
  'drop the objects held',
);

export interface WatchQuery {
  project?: string;
  /** `project` comes from the URL path: a project that does not exist is a 400, as for the list. */
  projectInPath?: boolean;
  namePrefix?: string;
  filters?: Record<string, string>;
  /** Resume after this revision; without it the stream starts with the current objects. */
  since?: number;
}

/**
 * Watch streams: store events -> the callers that may see them. Same filters and permissions
 * as the list (StreamView); permissions are re-read whenever a role or binding changes, so a
 * watcher that loses access stops receiving that project's events. A reader of some projects is
 * never sent the objects of an earlier project of the same name (deleted, then created again);
 * where that hides a deletion its client may need, the stream ends with a 410 ERROR (list again)
 * rather than pass over it. A stream also ends, with an ERROR saying where to resume, when its
 * client falls behind or its credential expires or is revoked.
 */
export class Watcher {
  private readonly streams = new Set<AbortController>();
  private readonly rbacKinds: Set<string>;
  /** Snapshots being read, by query (see `snapshot`). */
  private readonly snapshots = new Map<string, Promise<{ items: Envelope[]; revision: number }>>();

  constructor(
    private readonly o: {
      store: ObjectStore;
      registry: KindRegistry;
      authorizer: Authorizer;
      bookmarkMs: number;
      backlog: WatchLimits;
      now?: () => number;
      /** What ends a stream's principal (a logout, a revoked token): the stream ends with it. */
      revocation?: Revocation;
    },
  ) {
    this.rbacKinds = new Set(
      o.registry
        .all()
        .filter((d) => d.authz || d.isPrincipal || d.subject || d.contents)
        .map((d) => d.kind),
    );
  }

  /**
   * Checks permissions and `since` (throwing 403/410 before anything is sent), then returns the
   * events to stream until `life` aborts: its owner aborts it when the client leaves; the watcher
   * aborts it with a StreamEnd when the client falls behind (backlog), its credential expires or
   * is revoked, and then ends the events with an ERROR; and without one when the server closes.
   */
  async open(p: Principal, d: KindDescriptor, q: WatchQuery, life: AbortController): Promise<AsyncIterable<WatchEvent>> {
    const stop = life.signal;
    const readable = await this.readable(p, d, q);
    if (d.scope === 'project' && q.project !== undefined && q.projectInPath)
      await requireProject(this.o.store, this.o.registry.projectKind.kind, q.project, p.synced);
    await this.refuseEarlierIncarnation(d, q);
    let start = q.since;
    let initial: Envelope[] = [];
    if (start === undefined) {
      const snap = await this.snapshot({
        kind: d.kind,
        ...(q.project !== undefined ? { project: q.project } : d.scope === 'global' ? { project: '' } : {}),
        ...(q.namePrefix ? { namePrefix: q.namePrefix } : {}),
      });
      start = snap.revision;
      initial = snap.items;
    }
    // a resumed stream replays the log up to here: the past its permissions, read now, cannot judge
    const replayedTo = q.since === undefined ? start : await this.o.store.revision();
    const limits = this.o.backlog;
    const fellBehind = new StreamEnd(
      'Gone',
      `this watch fell behind: more than ${limits.maxEvents} events or ${limits.maxBytes} bytes of events were waiting for its client (watch.max_backlog_events, watch.max_backlog_bytes)`,
      'read the stream as it comes, or watch fewer objects (one project, a name prefix)',
    );
    const events = this.o.store.watch({ since: start, signal: stop, backlog: { ...limits, overflow: () => life.abort(fellBehind) } });
    this.streams.add(life);
    const stopExpiry = endAtExpiry(p, life, this.o.now);
    const closed = () => {
      this.streams.delete(life);
      stopExpiry();
    };
    if (stop.aborted) closed();
    else stop.addEventListener('abort', closed, { once: true });
    return this.stream({ p, d, q, readable, initial, startRev: start, replayedTo, events, stop });
  }

  /**
   * A watch of one project resuming from before that project was created answers 410 (Gone), as
   * a `since` older than the event log does: the client may hold objects of an earlier project of
   * the same name, whose deletion it would never hear of (those events are not sent to readers of
   * the new project), so it must list again. Checked after the permission check: whoever may not
   * read the project learns nothing of its age. Cross-project watches are filtered instead
   * (Incarnations): a 410 there, whenever any project was created since, would make every
   * client of every project list again.
   */
  private async refuseEarlierIncarnation(d: KindDescriptor, q: WatchQuery): Promise<void> {
    if (d.scope !== 'project' || q.project === undefined || q.since === undefined) return;
    const created = await this.o.store.createdRevision({ kind: this.o.registry.projectKind.kind, project: '', name: q.project });
    // since = created - 1 has seen everything before the project: nothing of an earlier one is missed
    if (created !== undefined && q.since < created - 1) {
      throw new ApiError(
        'Gone',
        `revision ${q.since} is older than project "${q.project}" (created at revision ${created}); watch again without since: the stream starts with every current object (an ADDED event each), then goes live`,
      );
    }
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

  private async *stream(o: {
    p: Principal;
    d: KindDescriptor;
    q: WatchQuery;
    readable: Visible;
    initial: Envelope[];
    startRev: number;
    /** The revision a resumed stream replays up to (its start for one that is not resumed). */
    replayedTo: number;
    events: AsyncIterable<StoreEvent>;
    stop: AbortSignal;
  }): AsyncGenerator<WatchEvent> {
    const { p, d, q, initial, startRev, stop } = o;
    const now = this.o.now ?? Date.now;
    const matches = filterPredicate(d, q.filters);
    const moves = new FilterMoves(Object.keys(q.filters ?? {}).length > 0, q.since === undefined);
    const view = new StreamView({
      d,
      q,
      store: this.o.store,
      projectKind: this.o.registry.projectKind.kind,
      readable: o.readable,
      read: () => this.readable(p, d, q),
      replayedTo: o.replayedTo,
    });
    /** Everything up to this revision was sent to the client or is not for it. */
    let revision = startRev;
    /** The final event for `end`: with the revision to resume from, unless the client must list again. */
    const ending = (end: StreamEnd, resumable = true): WatchEvent => ({
      type: 'ERROR',
      ...(resumable ? { revision } : {}),
      error: end.error(resumable ? revision : undefined),
    });
    const it = o.events[Symbol.asyncIterator]();
    // One pending next() at a time: a bookmark tick must not drop the event still on its way.
    let pending: Promise<IteratorResult<StoreEvent>> | undefined;
    // A BOOKMARK is due bookmarkMs after the last line sent, however busy other kinds or projects are.
    let bookmarkAt = Date.now() + this.o.bookmarkMs;
    // One timer per bookmark interval, not one per event: it stays armed across events and, when
    // it fires early (lines went out meanwhile), is armed again for the rest of the interval. It
    // settles the wait it finds (a fresh promise per wait: one long-lived promise raced against
    // each event kept every event alive until it settled, and ran a 160 MB server out of memory).
    let timer: NodeJS.Timeout | undefined;
    let tick: ((v: 'bookmark') => void) | undefined;
    try {
      for (const o of initial) {
        // ended before the client had every current object: it cannot resume
        const end = streamEndOf(stop);
        if (end) return yield ending(end, false);
        let show: boolean;
        try {
          show = (await view.visible(o, startRev)) && !isExpired(d, o, now());
        } catch {
          return; // lost read permission on the watched project
        }
        if (show && matches(o)) {
          moves.sent(o);
          view.sent(o);
          yield { type: 'ADDED', revision: startRev, object: mask(d, o) };
        }
      }
      for (;;) {
        const end = streamEndOf(stop);
        if (end) return yield ending(end);
        pending ??= it.next();
        const event = pending;
        const next = await new Promise<IteratorResult<StoreEvent> | 'bookmark'>((resolve, reject) => {
          tick = resolve;
          event.then(resolve, reject);
          timer ??= setTimeout(
            () => {
              timer = undefined;
              tick?.('bookmark');
            },
            Math.max(0, bookmarkAt - Date.now()),
          );
        });
        tick = undefined;
        if (next === 'bookmark') {
          if (Date.now() < bookmarkAt) continue;
          bookmarkAt = Date.now() + this.o.bookmarkMs;
          // the revision processed, not the store's: events up to the store's may still be on their way
          yield { type: 'BOOKMARK', revision };
          continue;
        }
        pending = undefined;
        if (next.done || stop.aborted) {
          const end = streamEndOf(stop);
          if (end) yield ending(end);
          return;
        }
        const e = next.value;
        view.observe(e);
        if (this.o.revocation?.concerns(p, e.object) && !(await this.o.revocation.stillValid(p))) return yield ending(revokedEnd(p));
        let show: boolean;
        try {
          if (this.rbacKinds.has(e.object.kind)) await view.reread();
          show = view.visibleNow(e.object, e.revision) ?? (await view.visible(e.object, e.revision));
          if (!show && (await view.unsentDeletion(e))) return yield ending(GAP, false);
        } catch {
          return; // lost read permission on the watched project
        }
        const type = show ? moves.typeOf(e.type, e.object, matches(e.object)) : undefined;
        if (type) {
          bookmarkAt = Date.now() + this.o.bookmarkMs;
          view.sent(e.object);
          yield { type, revision: e.revision, object: mask(d, e.object) };
        }
        revision = e.revision;
      }
    } finally {
      clearTimeout(timer);
      await it.return?.();
    }
  }

  private readable(p: Principal, d: KindDescriptor, q: WatchQuery): Promise<Visible> {
    if (d.scope === 'project' && q.project !== undefined) return this.o.authorizer.readable(p, d.kind, q.project);
    if (d.scope === 'project' || d.isProjectScope) return this.o.authorizer.readable(p, d.kind);
    return this.o.authorizer.readable(p, d.kind, '');
  }
}
