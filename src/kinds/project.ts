import type { Envelope } from '../storage/store.js';
import type { HookCall, KindDescriptor } from './descriptor.js';
import { Project } from './generated/validators.js';

/**
 * The roles every new project gets (docs/api.md §12). They name only kinds Perses knows: a
 * Perses client (percli, its Go SDK) refuses to read a role naming a scope it does not know
 * (`unknown scope "Playlist" used`), and every project's roles would become unreadable to it.
 */
const DEFAULT_ROLES: Record<string, { actions: string[]; scopes: string[] }[]> = {
  owner: [{ actions: ['*'], scopes: ['*'] }],
  editor: [
    { actions: ['*'], scopes: ['Dashboard', 'Datasource', 'Folder', 'Secret', 'Variable', 'EphemeralDashboard'] },
    { actions: ['read'], scopes: ['Project', 'Role', 'RoleBinding'] },
  ],
  viewer: [{ actions: ['read'], scopes: ['*'] }],
};

/** owner/editor/viewer Roles and an owner RoleBinding for the signed-in creator (none when auth is off). */
function defaultRoles(obj: Envelope, call: HookCall): Envelope[] {
  if (call.principal.anonymous || call.principal.internal) return [];
  const metadata = (name: string) => ({ name, project: obj.metadata.name, createdAt: '', updatedAt: '', version: 0 });
  return [
    ...Object.entries(DEFAULT_ROLES).map(([name, permissions]) => ({ kind: 'Role', metadata: metadata(name), spec: { permissions } })),
    { kind: 'RoleBinding', metadata: metadata('owner'), spec: { role: 'owner', subjects: [ownerSubject(call)] } },
  ];
}

/** The creator as a binding subject: a user by name, or what the principal says it is (a global service account). */
function ownerSubject(call: HookCall): { kind: string; name: string } {
  const s = call.principal.subject;
  return s ? { kind: s.kind, name: s.name } : { kind: 'User', name: call.principal.name };
}

/** Project: the global kind whose objects hold every project-scoped object. */
export const project: KindDescriptor = {
  kind: 'Project',
  plural: 'projects',
  shortNames: ['proj', 'prj'],
  scope: 'global',
  validate: Project,
  isProjectScope: true,
  searchable: true,
  hooks: {
    companions: defaultRoles,
    /** A Project without a spec (Perses' own samples have some) gets the empty one Perses writes back. */
    normalize(body) {
      if (body.spec === undefined || body.spec === null) body.spec = {};
    },
  },
};
