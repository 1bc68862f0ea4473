import { auditDraft } from '../audit/drafts.js';
import { SYSTEM, type Principal } from '../access/authorizer.js';
import type { AuditDraft } from '../storage/audit-types.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { keyOf, type Envelope, type ObjectStore } from '../storage/store.js';
import { MANAGER } from './managers.js';
import { SUBJECTS_PATH } from './grantees.js';
import { getPath, setPathIfParentExists } from '../lib/object-path.js';

interface SubjectRef {
  kind: string;
  name: string;
}

/**
 * A deleted principal (user, service account) leaves every binding and every group: otherwise
 * whatever is created next under that name would inherit its roles. A binding left without
 * subjects is deleted; a group may be left empty. A principal of a project-scoped kind is only
 * named by bindings of its own project.
 */
export async function forgetSubject(
  o: { store: ObjectStore; registry: KindRegistry; now: () => Date },
  d: KindDescriptor,
  project: string | undefined,
  name: string,
  by: Principal,
): Promise<void> {
  // dashplane's own writes, audited with the request that caused them
  const self: Principal = { ...SYSTEM, ...(by.origin ? { origin: by.origin } : {}) };
  const audit = (action: 'update' | 'delete', obj: Envelope) => [
    auditDraft(
      self,
      {
        action,
        manager: MANAGER.dashplane,
        kind: obj.kind,
        ...(obj.metadata.project !== undefined ? { project: obj.metadata.project } : {}),
        name: obj.metadata.name,
        versionBefore: obj.metadata.version,
        ...(action === 'update' ? { versionAfter: obj.metadata.version + 1 } : {}),
      },
      o.now(),
    ),
  ];
  const same = (s: SubjectRef, where: string | undefined) =>
    s.kind === d.kind && s.name === name && (d.scope !== 'project' || where === project);
  for (const b of o.registry.all().filter((k) => k.authz === 'binding')) {
    for (const obj of await o.store.list({ kind: b.kind, ...(d.scope === 'project' ? { project } : {}) })) {
      const subjects = (getPath(obj, SUBJECTS_PATH) ?? []) as SubjectRef[];
      const kept = subjects.filter((s) => !same(s, obj.metadata.project));
      if (kept.length === subjects.length) continue;
      if (kept.length === 0) await o.store.delete(keyOf(obj), { expectedVersion: obj.metadata.version, audit: audit('delete', obj) });
      else await rewrite(o, obj, SUBJECTS_PATH, kept, audit('update', obj));
    }
  }
  for (const g of o.registry.all().filter((k) => k.members?.kind === d.kind)) {
    for (const obj of await o.store.list({ kind: g.kind })) {
      const members = getPath(obj, g.members!.path);
      if (!Array.isArray(members) || !members.includes(name)) continue;
      await rewrite(
        o,
        obj,
        g.members!.path,
        members.filter((m) => m !== name),
        audit('update', obj),
      );
    }
  }
}

/** Stores `obj` with `value` at `path`, as dashplane's own write. */
async function rewrite(
  o: { store: ObjectStore; now: () => Date },
  obj: Envelope,
  path: string,
  value: unknown,
  audit: AuditDraft[],
): Promise<void> {
  const version = obj.metadata.version;
  const next = structuredClone(obj);
  next.metadata = { ...next.metadata, version: version + 1, updatedAt: o.now().toISOString() };
  setPathIfParentExists(next, path, value);
  await o.store.update(next, { expectedVersion: version, writer: { by: SYSTEM.name, manager: MANAGER.dashplane }, audit });
}
