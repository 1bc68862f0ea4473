import { forbidden, unauthorized } from '../errors.js';
import type { KindRegistry } from '../kinds/registry.js';
import { getPath } from '../resources/object-path.js';
import type { Store } from '../storage/store.js';
import type { Action, Authorizer, AuthzTarget, Principal } from './authorizer.js';
import { GrantsCache, type Permission } from './grants.js';

export type { Permission };

/** Key of the global permissions in a permission map (as Perses). */
export const GLOBAL = '*';

/** Whether a permission list grants `action` on `kind` (`*` matches any action or kind). */
export function grants(perms: readonly Permission[], action: Action, kind: string): boolean {
  return perms.some((p) => (p.actions.includes(action) || p.actions.includes('*')) && (p.scopes.includes(kind) || p.scopes.includes('*')));
}

/**
 * RBAC of docs/api.md §12: guest permissions, then GlobalRoles, then the project's Roles, all
 * additive. Roles and bindings come from a cache that every change to them drops (GrantsCache),
 * so a change holds on the very next request.
 */
export class RbacAuthorizer implements Authorizer {
  private readonly grants: GrantsCache;
  private readonly principalKinds: Set<string>;
  private readonly anonymousCreate: Map<string, string>;

  constructor(private readonly opts: { store: Store; registry: KindRegistry; guest: readonly Permission[]; config: unknown }) {
    const find = (authz: 'role' | 'binding', scope: 'global' | 'project') => {
      const d = opts.registry.all().find((k) => k.authz === authz && k.scope === scope);
      if (!d) throw new Error(`RBAC needs a ${scope} ${authz} kind`);
      return d;
    };
    this.grants = new GrantsCache({ store: opts.store, globalRole: find('role', 'global'), globalBinding: find('binding', 'global'), projectRole: find('role', 'project'), projectBinding: find('binding', 'project') });
    this.principalKinds = new Set(opts.registry.all().filter((d) => d.isPrincipal).map((d) => d.kind));
    this.anonymousCreate = new Map(opts.registry.all().filter((d) => d.anonymousCreateUnless).map((d) => [d.kind, d.anonymousCreateUnless!]));
  }

  async authorize(p: Principal, action: Action, t: AuthzTarget): Promise<void> {
    if (p.internal) return;
    if (action === 'create' && this.anonymousCreateAllowed(t.kind)) return;
    if (p.anonymous) throw unauthorized('sign in first: this request needs an access token');
    if (this.principalKinds.has(t.kind) && t.name === p.name && (action === 'read' || action === 'update')) return;
    if (grants(await this.globalPermissions(p.name), action, t.kind)) return;
    if (t.project !== undefined && grants(await this.projectPermissions(p.name, t.project), action, t.kind)) return;
    const where = t.project !== undefined ? ` in project "${t.project}"` : '';
    throw forbidden(`user "${p.name}" may not ${action} ${t.kind}${where}; ask an owner or administrator for a role that grants it`);
  }

  async readableProjects(p: Principal, kind: string): Promise<'*' | ReadonlySet<string>> {
    if (p.internal) return '*';
    if (p.anonymous) throw unauthorized('sign in first: this request needs an access token');
    if (grants(await this.globalPermissions(p.name), 'read', kind)) return '*';
    const out = new Set<string>();
    for (const [project, perms] of await this.allProjectPermissions(p.name)) if (grants(perms, 'read', kind)) out.add(project);
    return out;
  }

  /** `{"*": global permissions, "<project>": that project's}` for GET /api/v1/users/{name}/permissions. */
  async permissionsOf(user: string): Promise<Record<string, Permission[]>> {
    const out: Record<string, Permission[]> = { [GLOBAL]: await this.globalPermissions(user) };
    for (const [project, perms] of await this.allProjectPermissions(user)) out[project] = perms;
    return out;
  }

  private anonymousCreateAllowed(kind: string): boolean {
    const unless = this.anonymousCreate.get(kind);
    return unless !== undefined && getPath(this.opts.config, unless) !== true;
  }

  private async globalPermissions(user: string): Promise<Permission[]> {
    return [...this.opts.guest, ...((await this.grants.get()).global.get(user) ?? [])];
  }

  private async projectPermissions(user: string, project: string): Promise<Permission[]> {
    return (await this.grants.get()).projects.get(user)?.get(project) ?? [];
  }

  private async allProjectPermissions(user: string): Promise<ReadonlyMap<string, Permission[]>> {
    return (await this.grants.get()).projects.get(user) ?? new Map();
  }
}
