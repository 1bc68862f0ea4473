import type { Principal } from '../access/authorizer.js';
import { notFound, preconditionFailed } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { DeletedEntry, Envelope, HistoryStore, ManagerEntry, ObjectKey, ObjectStore, VersionEntry } from '../storage/store.js';
import { MANAGER } from './managers.js';
import { mask } from './masking.js';
import type { ResourceService, UpdateResult, WriteOptions } from './service.js';

/**
 * Version history of the kinds that keep one (docs/api.md §7): list, read, restore; and every object's field
 * managers. The entries are written by the store in the same atomic write as each change;
 * restoring goes through the ordinary write pipeline, so it is validated, authorised and recorded
 * like any update (by the manager `restore`).
 */
export class HistoryService {
  /** `store`: its history, and the objects as they are now (`get`); writes go through `service`. */
  constructor(private readonly o: { service: ResourceService; store: HistoryStore & Pick<ObjectStore, 'get'> }) {}

  /** Versions kept for an object, newest first, without the current one. */
  async listVersions(p: Principal, d: KindDescriptor, project: string, name: string): Promise<VersionEntry[]> {
    await this.o.service.authorize(p, 'read', d, project, name);
    const key = historyKey(d, project, name);
    const current = await this.o.store.get(key);
    const versions = (await this.o.store.listVersions(key)).filter((v) => !current || v.version < current.metadata.version);
    if (!current && versions.length === 0) throw notFound(`${d.kind} "${name}" has no history`);
    return versions;
  }

  /**
   * The deleted objects of a kind (in a project) whose history is kept, most recently changed
   * first, each with its last version: what a restore of that version brings back.
   */
  async listDeleted(p: Principal, d: KindDescriptor, project: string): Promise<DeletedEntry[]> {
    if (!d.history) throw notFound(`${d.kind} keeps no version history`);
    await this.o.service.authorize(p, 'read', d, project, '');
    const entries = await this.o.store.listDeleted({ kind: d.kind, project: d.scope === 'project' ? project : '' });
    return entries.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.name < b.name ? -1 : 1));
  }

  /** The whole object as it was at `version`. */
  async getVersion(p: Principal, d: KindDescriptor, project: string, name: string, version: number): Promise<Envelope> {
    await this.o.service.authorize(p, 'read', d, project, name);
    const obj = await this.o.store.getVersion(historyKey(d, project, name), version);
    if (!obj) throw notFound(`${d.kind} "${name}" has no version ${version} (see .../versions)`);
    return mask(d, obj);
  }

  /**
   * The latest write of each field manager to the object, newest first: the first entry wrote the
   * current version (one made before managers were recorded is told from its history entry, else
   * "unknown").
   */
  async listManagers(p: Principal, d: KindDescriptor, project: string, name: string): Promise<ManagerEntry[]> {
    const current = await this.o.service.get(p, d, project, name);
    const key = { kind: d.kind, project: d.scope === 'project' ? project : '', name };
    const record = await this.o.store.managers(key);
    const { version, updatedAt } = current.metadata;
    if (record[0]?.version === version) return record;
    const entry = d.history ? (await this.o.store.listVersions(key)).find((v) => v.version === version) : undefined;
    return [entry ?? { version, updatedAt, updatedBy: 'unknown', manager: 'unknown' }, ...record];
  }

  /** Makes the content of `version` the new latest version (re-creating a deleted object); with `skipUnchanged`, unchanged when it is the latest content already. */
  /** Writes `version` back as the newest one (a deleted object comes back); `w` as for any write (dryRun, If-Match, skipUnchanged). */
  async restore(
    p: Principal,
    d: KindDescriptor,
    project: string,
    name: string,
    version: number,
    w: Pick<WriteOptions, 'dryRun' | 'ifMatch' | 'skipUnchanged'> = {},
  ): Promise<UpdateResult> {
    const old = await this.getVersion(p, d, project, name, version);
    const body = {
      kind: d.kind,
      metadata: { name, ...(d.scope === 'project' ? { project } : {}), ...(old.metadata.tags ? { tags: old.metadata.tags } : {}) },
      spec: old.spec,
    };
    const target = { name, ...(d.scope === 'project' ? { project } : {}) };
    const key = historyKey(d, project, name);
    const by = { manager: MANAGER.restore };
    if (await this.o.store.get(key)) return this.o.service.update(p, d, body, target, { ...w, ...by });
    if (w.ifMatch !== undefined) throw preconditionFailed(`${d.kind} "${name}" is deleted: If-Match "${w.ifMatch}" cannot match`);
    // a deleted object comes back with the next version number and keeps its history
    const last = (await this.o.store.listVersions(key))[0]?.version ?? version;
    return {
      object: await this.o.service.create(p, d, body, target, {
        continueHistoryAt: last + 1,
        ...by,
        ...(w.dryRun ? { dryRun: true } : {}),
      }),
      unchanged: false,
    };
  }
}

function historyKey(d: KindDescriptor, project: string, name: string): ObjectKey {
  if (!d.history) throw notFound(`${d.kind} keeps no version history`);
  return { kind: d.kind, project: d.scope === 'project' ? project : '', name };
}
