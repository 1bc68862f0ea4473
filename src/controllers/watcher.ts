import type { Authorizer, Principal, Revocation, Visible } from '../access/authorizer.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { ApiError } from '../errors.js';
import { filterPredicate, isExpired, requireProject } from '../resources/listing.js';
import { mask } from '../resources/masking.js';
import type { Envelope, ListQuery, Store, StoreEvent } from '../storage/store.js';
import { Incarnations } from './incarnations.js';

/** What a watch stream carries (docs/api.md §6). */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  revision: number;
  object?: Envelope;
}

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
 * as the list; permissions are re-read whenever a role or binding changes, so a watcher that
 * loses access stops receiving that project's events. Events and snapshot items of an earlier
 * project of the same name (deleted, then created again) are never sent (see Incarnations), nor,
 * to a reader who may not read every project, that earlier project's own events.
 */
export class Watcher {
  private readonly streams = new Set<AbortController>();
  private readonly rbacKinds: Set<string>;
  /** Snapshots being read, by query (see `snapshot`). */
  private readonly snapshots = new Map<string, Promise<{ items: Envelope[]; revision: number }>>();

  constructor(
    private readonly o: {
      store: Store;
      registry: KindRegistry;
      authorizer: Authorizer;
      bookmarkMs: number;
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
   * events to stream until `signal` aborts or the watcher closes.
   */
  async open(p: Principal, d: KindDescriptor, q: WatchQuery, signal: AbortSignal): Promise<AsyncIterable<WatchEvent>> {
    const controller = new AbortController();
    const stop = AbortSignal.any([signal, controller.signal]);
    const readable = await this.readable(p, d, q);
    if (d.scope === 'project' && q.project !== undefined && q.projectInPath) await requireProject(this.o.store, this.o.registry.projectKind.kind, q.project, p.synced);
    await this.refuseEarlierIncarnation(d, q);
    let start = q.since;
    let initial: Envelope[] = [];
    const live = () => this.o.store.watch({ since: start, signal: stop });
    if (start === undefined) {
      const snap = await this.snapshot({
        kind: d.kind,
        ...(q.project !== undefined ? { project: q.project } : d.scope === 'global' ? { project: '' } : {}),
        ...(q.namePrefix ? { namePrefix: q.namePrefix } : {}),
      });
      start = snap.revision;
      initial = snap.items;
    }
    const events: AsyncIterable<StoreEvent> = live();
    this.streams.add(controller);
    stop.addEventListener('abort', () => this.streams.delete(controller), { once: true });
    return this.stream(p, d, q, readable, initial, start, events, stop);
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

  /** Ends every open stream (server shutdown). */
  closeAll(): void {
    for (const c of this.streams) c.abort();
  }

  private async *stream(
    p: Principal,
    d: KindDescriptor,
    q: WatchQuery,
    readable0: Visible,
    initial: Envelope[],
    startRev: number,
    events: AsyncIterable<StoreEvent>,
    stop: AbortSignal,
  ): AsyncGenerator<WatchEvent> {
    let readable = readable0;
    const now = this.o.now ?? Date.now;
    const matches = filterPredicate(d, q.filters);
    const projectOf = (o: Envelope) => (d.isProjectScope ? o.metadata.name : (o.metadata.project ?? ''));
    // kind, project and name never change for an object; the filters' fields (spec.default...) may
    const wanted = (o: Envelope) => o.kind === d.kind && (q.project === undefined || o.metadata.project === q.project) && (!q.namePrefix || o.metadata.name.startsWith(q.namePrefix));
    const moves = new FilterMoves(Object.keys(q.filters ?? {}).length > 0, q.since === undefined);
    const incarnations = new Incarnations({ store: this.o.store, projectKind: this.o.registry.projectKind.kind });
    /** Permissions read again, and with them what is known of projects (never older than they are). */
    const reread = async () => {
      readable = await this.readable(p, d, q);
      incarnations.forget();
    };
    /**
     * The project whose incarnation `o` is judged by: a project-scoped object's; a project's own,
     * unless the reader may read every project (a reader of some projects reads them as they are
     * now: an earlier project of the same name, its spec included, is none of its business).
     */
    const incarnationOf = (o: Envelope): string | undefined => {
      if (d.scope === 'project') return o.metadata.project ?? '';
      return d.isProjectScope && readable !== '*' ? o.metadata.name : undefined;
    };
    /** `o`, as of `rev`, is in (or is) the project of its name that exists now (or in none: then permissions read now decide). */
    const ofCurrentProject = async (o: Envelope, rev: number): Promise<boolean> => {
      const project = incarnationOf(o);
      if (project === undefined) return true;
      let start = incarnations.known(project);
      if (start === undefined) start = await incarnations.lookUp(project);
      if (start === null) {
        // no such project now: judge with permissions read after it went, then look again
        await reread();
        start = await incarnations.lookUp(project);
      }
      return start === null || rev >= start;
    };
    const visible = async (o: Envelope, rev: number) => wanted(o) && (await ofCurrentProject(o, rev)) && (readable === '*' || readable(projectOf(o), o.metadata.name));
    /**
     * `visible` without a store read or an await when everything it needs is known (the usual
     * case: a thousand streams of one project each pay for every event); undefined otherwise.
     */
    const visibleNow = (o: Envelope, rev: number): boolean | undefined => {
      if (!wanted(o)) return false;
      const project = incarnationOf(o);
      if (project !== undefined) {
        const start = incarnations.known(project);
        if (start === undefined || start === null) return undefined;
        if (rev < start) return false;
      }
      return readable === '*' || readable(projectOf(o), o.metadata.name);
    };
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
      for (const o of initial) {
        let show: boolean;
        try {
          show = (await visible(o, startRev)) && !isExpired(d, o, now());
        } catch {
          return; // lost read permission on the watched project
        }
        if (show && matches(o)) {
          moves.sent(o);
          yield { type: 'ADDED', revision: startRev, object: mask(d, o) };
        }
      }
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
        incarnations.observe(e);
        if (this.o.revocation?.concerns(p, e.object) && !(await this.o.revocation.stillValid(p))) return; // logged out, revoked
        let show: boolean;
        try {
          if (this.rbacKinds.has(e.object.kind)) await reread();
          show = visibleNow(e.object, e.revision) ?? (await visible(e.object, e.revision));
        } catch {
          return; // lost read permission on the watched project
        }
        const type = show ? moves.typeOf(e.type, e.object, matches(e.object)) : undefined;
        if (type) {
          bookmarkAt = Date.now() + this.o.bookmarkMs;
          yield { type, revision: e.revision, object: mask(d, e.object) };
        }
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

/**
 * Objects entering and leaving a watch's filters (`default=true`, `kind=...`), as a Kubernetes
 * watch reports them: a change that makes an object match is an ADDED, one that makes it stop
 * matching a DELETED (with the object as it is now), so a client's view built from the stream
 * equals the list. A stream that started with the current objects knows which ones the client
 * holds; one resumed with `since` does not, and reports a non-matching change of an object it
 * has not placed yet as DELETED once (the client may hold it from before).
 */
class FilterMoves {
  /** Keys the client holds (the last event sent for them matched), and keys it does not. */
  private readonly held = new Set<string>();
  private readonly notHeld = new Set<string>();

  constructor(
    private readonly filtered: boolean,
    /** The stream started with every current object (no `since`). */
    private readonly knowsAll: boolean,
  ) {}

  sent(o: Envelope): void {
    if (this.filtered) this.held.add(keyText(o));
  }

  /** The event to send for a store event of a visible object, or undefined for none. */
  typeOf(type: WatchEvent['type'], o: Envelope, matches: boolean): WatchEvent['type'] | undefined {
    if (!this.filtered) return type;
    const k = keyText(o);
    const held = this.held.has(k);
    const unknown = !held && !this.notHeld.has(k) && !this.knowsAll;
    if (type === 'DELETED') {
      this.held.delete(k);
      this.notHeld.delete(k);
      return held || (unknown && matches) ? 'DELETED' : undefined;
    }
    if (!matches) {
      this.held.delete(k);
      this.notHeld.add(k);
      return held || (unknown && type === 'MODIFIED') ? 'DELETED' : undefined;
    }
    this.held.add(k);
    this.notHeld.delete(k);
    if (type === 'ADDED' || held || unknown) return type;
    return 'ADDED';
  }
}

function keyText(o: Envelope): string {
  return `${o.metadata.project ?? ''}\u0000${o.metadata.name}`;
}
