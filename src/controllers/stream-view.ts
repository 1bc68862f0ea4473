import type { Visible } from '../access/authorizer.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { Envelope, ObjectStore, StoreEvent } from '../storage/store.js';
import { Incarnations } from './incarnations.js';

/**
 * What one watch stream may show, with the list's filters and permissions; permissions are read
 * again (`reread`) whenever a role or binding changes. Objects of an earlier project of the same
 * name (deleted, then created again) are not shown to a reader of some projects (see
 * Incarnations): a reader of some projects reads them as they are now, and an earlier project of
 * the same name, its spec included, is none of its business. A reader of every project, across
 * projects, is shown every incarnation. The view also knows which projects' objects the stream
 * sent: a deletion of such an object it may not show is a gap the stream must not pass over in
 * silence (`unsentDeletion`).
 */
export class StreamView {
  private readable: Visible;
  private readonly incarnations: Incarnations;
  /** Projects (by `incarnationOf`) whose objects the stream sent: the client holds them. */
  private readonly sentFrom = new Set<string>();

  constructor(
    private readonly o: {
      d: KindDescriptor;
      /** The watch's query (WatchQuery): which objects, and whether it resumed from `since`. */
      q: { project?: string; namePrefix?: string; since?: number };
      store: ObjectStore;
      projectKind: string;
      /** The permissions when the stream opened. */
      readable: Visible;
      /** Reads them again. */
      read: () => Promise<Visible>;
      /** The revision a resumed stream replays up to (the past its permissions, read now, cannot judge). */
      replayedTo: number;
    },
  ) {
    this.readable = o.readable;
    this.incarnations = new Incarnations({ store: o.store, projectKind: o.projectKind });
  }

  /** Permissions read again, and with them what is known of projects (never older than they are). */
  async reread(): Promise<void> {
    this.readable = await this.o.read();
    this.incarnations.forget();
  }

  /** Follows the stream (a project created again starts a newer incarnation). */
  observe(e: StoreEvent): void {
    this.incarnations.observe(e);
  }

  /** Whether `o`, as of revision `rev`, may be shown. */
  async visible(o: Envelope, rev: number): Promise<boolean> {
    return this.wanted(o) && (await this.ofCurrentProject(o, rev)) && this.permitted(o);
  }

  /**
   * `visible` without a store read or an await when everything it needs is known (the usual
   * case: a thousand streams of one project each pay for every event); undefined otherwise.
   */
  visibleNow(o: Envelope, rev: number): boolean | undefined {
    if (!this.wanted(o)) return false;
    const project = this.incarnationOf(o);
    if (project !== undefined) {
      const start = this.incarnations.known(project);
      if (start === undefined || start === null) return undefined;
      if (rev < start) return false;
    }
    return this.permitted(o);
  }

  /** The stream sent `o`. */
  sent(o: Envelope): void {
    const project = this.o.q.project === undefined ? this.incarnationOf(o) : undefined;
    if (project !== undefined) this.sentFrom.add(project);
  }

  /**
   * A deletion not shown, across projects, of an object of a project that is gone (deleted, or
   * deleted and created again) which the client may hold: one of a project this stream sent
   * objects of, or, for a resumed stream, one it may hold from before `since` (any such deletion
   * the replay passes; a later one of a project it could read when it opened). Permissions read
   * now say nothing of that project, so the stream cannot tell whether the client may see it;
   * skipping it would leave the client the object for ever.
   */
  async unsentDeletion(e: StoreEvent): Promise<boolean> {
    const { q, replayedTo, readable: atOpen } = this.o;
    const project = q.project === undefined && e.type === 'DELETED' && this.wanted(e.object) ? this.incarnationOf(e.object) : undefined;
    if (project === undefined) return false;
    const start = await this.currentStart(project);
    if (start !== null && e.revision >= start) return false; // its project's: hidden by permissions, as for any live stream
    if (this.sentFrom.has(project)) return true;
    return (
      q.since !== undefined && (e.revision <= replayedTo || atOpen === '*' || atOpen(this.projectOf(e.object), e.object.metadata.name))
    );
  }

  /** Kind, project and name never change for an object; the filters' fields (spec.default...) may. */
  private wanted(o: Envelope): boolean {
    const q = this.o.q;
    return (
      o.kind === this.o.d.kind &&
      (q.project === undefined || o.metadata.project === q.project) &&
      (!q.namePrefix || o.metadata.name.startsWith(q.namePrefix))
    );
  }

  private permitted(o: Envelope): boolean {
    return this.readable === '*' || this.readable(this.projectOf(o), o.metadata.name);
  }

  private projectOf(o: Envelope): string {
    return this.o.d.isProjectScope ? o.metadata.name : (o.metadata.project ?? '');
  }

  /**
   * The project whose incarnation `o` is judged by: none for a reader of every project across
   * projects; else a project-scoped object's; a project's own.
   */
  private incarnationOf(o: Envelope): string | undefined {
    if (this.readable === '*' && this.o.q.project === undefined) return undefined;
    if (this.o.d.scope === 'project') return o.metadata.project ?? '';
    return this.o.d.isProjectScope ? o.metadata.name : undefined;
  }

  /** The revision the current project of that name was created at (null: none exists now), looked up if unknown. */
  private async currentStart(project: string): Promise<number | null> {
    const known = this.incarnations.known(project);
    return known === undefined ? this.incarnations.lookUp(project) : known;
  }

  /** `o`, as of `rev`, is in (or is) the project of its name that exists now (or in none: then permissions read now decide). */
  private async ofCurrentProject(o: Envelope, rev: number): Promise<boolean> {
    const project = this.incarnationOf(o);
    if (project === undefined) return true;
    let start = await this.currentStart(project);
    if (start === null) {
      // no such project now: judge with permissions read after it went, then look again
      await this.reread();
      start = await this.incarnations.lookUp(project);
    }
    return start === null || rev >= start;
  }
}
