import type { Principal } from '../auth/authorizer.js';
import { notFound } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { Envelope, ObjectKey, Store, VersionEntry } from '../storage/store.js';
import { mask } from './masking.js';
import type { ResourceService } from './service.js';

/**
 * Version history of the kinds that keep one (docs/api.md §7): list, read, restore. The entries are
 * written by the store in the same atomic write as each change; restoring goes through the
 * ordinary write pipeline, so it is validated, authorised and recorded like any update.
 */
export class HistoryService {
  constructor(private readonly o: { service: ResourceService; store: Store }) {}

  /** Versions kept for an object, newest first, without the current one. */
  async listVersions(p: Principal, d: KindDescriptor, project: string, name: string): Promise<VersionEntry[]> {
    await this.o.service.authorize(p, 'read', d, project, name);
    const key = historyKey(d, project, name);
    const current = await this.o.store.get(key);
    const versions = (await this.o.store.listVersions(key)).filter((v) => !current || v.version < current.metadata.version);
    if (!current && versions.length === 0) throw notFound(`${d.kind} "${name}" has no history`);
    return versions;
  }

  /** The whole object as it was at `version`. */
  async getVersion(p: Principal, d: KindDescriptor, project: string, name: string, version: number): Promise<Envelope> {
    await this.o.service.authorize(p, 'read', d, project, name);
    const obj = await this.o.store.getVersion(historyKey(d, project, name), version);
    if (!obj) throw notFound(`${d.kind} "${name}" has no version ${version} (see .../versions)`);
    return mask(d, obj);
  }

  /** Makes the content of `version` the new latest version (re-creating a deleted object). */
  async restore(p: Principal, d: KindDescriptor, project: string, name: string, version: number): Promise<Envelope> {
    const old = await this.getVersion(p, d, project, name, version);
    const body = { kind: d.kind, metadata: { name, ...(d.scope === 'project' ? { project } : {}), ...(old.metadata.tags ? { tags: old.metadata.tags } : {}) }, spec: old.spec };
    const target = { name, ...(d.scope === 'project' ? { project } : {}) };
    const key = historyKey(d, project, name);
    if (await this.o.store.get(key)) return this.o.service.update(p, d, body, target);
    // a deleted object comes back with the next version number and keeps its history
    const last = (await this.o.store.listVersions(key))[0]?.version ?? version;
    return this.o.service.create(p, d, body, target, { continueHistoryAt: last + 1 });
  }
}

function historyKey(d: KindDescriptor, project: string, name: string): ObjectKey {
  if (!d.history) throw notFound(`${d.kind} keeps no version history`);
  return { kind: d.kind, project: d.scope === 'project' ? project : '', name };
}
