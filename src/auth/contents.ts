import type { KindDescriptor } from '../kinds/descriptor.js';
import type { ObjectStore } from '../storage/store.js';
import { DerivedCache } from './derived-cache.js';

/**
 * What every container (Folder) lists, by project: kept until a container changes, on any replica
 * (DerivedCache), so a dashboard added to or removed from a folder is covered, or not, by the
 * folder's permissions from the next request on.
 */
export class ContentsIndex {
  constructor(
    /** `project\0container` -> the names it lists. */
    private readonly listed: ReadonlyMap<string, ReadonlySet<string>>,
    private readonly containerKinds: ReadonlyMap<string, string>,
  ) {}

  /** Whether (kind, name) in `project` is one of the named containers, or listed by one of them. */
  covers(project: string, containers: readonly string[], kind: string, name: string): boolean {
    if (this.containerKinds.has(kind)) return containers.includes(name);
    if (![...this.containerKinds.values()].includes(kind)) return false;
    return containers.some((c) => this.listed.get(`${project}\u0000${c}`)?.has(name) === true);
  }
}

export class ContentsCache {
  private readonly cache: DerivedCache<ContentsIndex>;

  constructor(private readonly o: { store: ObjectStore; containers: readonly KindDescriptor[] }) {
    this.cache = new DerivedCache(
      o.store,
      o.containers.map((d) => d.kind),
      () => this.compute(),
    );
  }

  /** `synced`: see DerivedCache.get. */
  get(synced?: boolean): Promise<ContentsIndex> {
    return this.cache.get(synced);
  }

  private async compute(): Promise<ContentsIndex> {
    const listed = new Map<string, Set<string>>();
    for (const d of this.o.containers) {
      for (const obj of await this.o.store.list({ kind: d.kind }))
        listed.set(`${obj.metadata.project ?? ''}\u0000${obj.metadata.name}`, new Set(d.contents!.names(obj)));
    }
    return new ContentsIndex(listed, new Map(this.o.containers.map((d) => [d.kind, d.contents!.kind])));
  }
}
