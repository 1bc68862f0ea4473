import { forbidden, unauthorized } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { getPath } from '../resources/object-path.js';
import type { Envelope, Store } from '../storage/store.js';
import type { Action, Authorizer, AuthzTarget, Principal } from './authorizer.js';

/** `{actions, scopes}` as in Role/GlobalRole specs and the guest permissions. */
export interface Permission {
  actions: string[];
  scopes: string[];
}

/** Key of the global permissions in a permission map (as Perses). */
export const GLOBAL = '*';

interface Binding {
  role: string;
  subjects: { kind: string; name: string }[];
}

function grants(perms: readonly Permission[], action: Action, kind: string): boolean {
  return perms.some((p) => (p.actions.includes(action) || p.actions.includes('*')) && (p.scopes.includes(kind) || p.scopes.includes('*')));
}

/**
 * RBAC of API.md §12, read from the store on every request so a change holds on the very next
 * one: guest permissions, then GlobalRoles, then the project's Roles, all additive.
 */
export class RbacAuthorizer implements Authorizer {
  private readonly globalRole: KindDescriptor;
  private readonly globalBinding: KindDescriptor;
  private readonly projectRole: KindDescriptor;
  private readonly projectBinding: KindDescriptor;
  private readonly principalKinds: Set<string>;
  private readonly anonymousCreate: Map<string, string>;

  constructor(private readonly opts: { store: Store; registry: KindRegistry; guest: readonly Permission[]; config: unknown }) {
    const find = (authz: 'role' | 'binding', scope: 'global' | 'project') => {
      const d = opts.registry.all().find((k) => k.authz === authz && k.scope === scope);
      if (!d) throw new Error(`RBAC needs a ${scope} ${authz} kind`);
      return d;
    };
    this.globalRole = find('role', 'global');
    this.globalBinding = find('binding', 'global');
    this.projectRole = find('role', 'project');
    this.projectBinding = find('binding', 'project');
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
    const perms = [...this.opts.guest];
    for (const b of await this.opts.store.list({ kind: this.globalBinding.kind, project: '' })) {
      if (!binds(b, user)) continue;
      const role = await this.opts.store.get({ kind: this.globalRole.kind, project: '', name: (b.spec as Binding).role });
      if (role) perms.push(...permissionsIn(role));
    }
    return perms;
  }

  private async projectPermissions(user: string, project: string): Promise<Permission[]> {
    const perms: Permission[] = [];
    for (const b of await this.opts.store.list({ kind: this.projectBinding.kind, project })) {
      if (!binds(b, user)) continue;
      const role = await this.opts.store.get({ kind: this.projectRole.kind, project, name: (b.spec as Binding).role });
      if (role) perms.push(...permissionsIn(role));
    }
    return perms;
  }

  private async allProjectPermissions(user: string): Promise<Map<string, Permission[]>> {
    const out = new Map<string, Permission[]>();
    for (const b of await this.opts.store.list({ kind: this.projectBinding.kind })) {
      if (!binds(b, user)) continue;
      const project = b.metadata.project!;
      const role = await this.opts.store.get({ kind: this.projectRole.kind, project, name: (b.spec as Binding).role });
      if (role) out.set(project, [...(out.get(project) ?? []), ...permissionsIn(role)]);
    }
    return out;
  }
}

function binds(binding: Envelope, user: string): boolean {
  return ((binding.spec as Binding).subjects ?? []).some((s) => s.kind === 'User' && s.name === user);
}

function permissionsIn(role: Envelope): Permission[] {
  return ((role.spec as { permissions?: Permission[] }).permissions ?? []).map((p) => ({ actions: p.actions, scopes: p.scopes }));
}
