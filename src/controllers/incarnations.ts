import type { ObjectStore, StoreEvent } from '../storage/store.js';

/**
 * When the current project of each name was created, for one watch stream. A project can be
 * deleted and its name created again by anyone; the event log still holds the earlier project's
 * events (its objects' whole contents), while permissions only say who may read the project that
 * exists now. So an event of a project-scoped object older than the creation of its project's
 * current incarnation belongs to an earlier project of that name, and the watcher never sends it.
 *
 * What is known of a project is looked up from the store when first needed, then follows the
 * stream (a project ADDED in it starts a newer incarnation). The stream calls `forget` whenever it
 * reads its permissions again, so this is always at least as fresh as the permissions it judges
 * events with: a lagging stream never lets a reader of a new project see the old one's events.
 */
export class Incarnations {
  /** Project name -> revision its current incarnation was created at; null: no such project. */
  private readonly starts = new Map<string, number | null>();

  constructor(private readonly o: { store: ObjectStore; projectKind: string }) {}

  /** The revision the current project named `project` was created at (null: none exists), if known. */
  known(project: string): number | null | undefined {
    return this.starts.get(project);
  }

  /** Reads it from the store (and remembers it). */
  async lookUp(project: string): Promise<number | null> {
    const start = (await this.o.store.createdRevision({ kind: this.o.projectKind, project: '', name: project })) ?? null;
    this.starts.set(project, start);
    return start;
  }

  /** Follows the stream: a project created again starts a newer incarnation (never an older one). */
  observe(e: StoreEvent): void {
    if (e.type !== 'ADDED' || e.object.kind !== this.o.projectKind) return;
    const known = this.starts.get(e.object.metadata.name);
    if (known !== undefined) this.starts.set(e.object.metadata.name, Math.max(known ?? 0, e.revision));
  }

  /** Everything is looked up again when next needed. */
  forget(): void {
    this.starts.clear();
  }
}
