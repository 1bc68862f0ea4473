import { forbidden, unauthorized } from '../errors.js';
import type { KindRegistry } from '../kinds/registry.js';
import { getPath } from '../resources/object-path.js';
import type { Store } from '../storage/store.js';
import type { Action, Authorizer, AuthzTarget, NarrowedPermission, Principal } from './authorizer.js';
import { GrantsCache, roleKey, subjectKey, type Grants, type Permission } from './grants.js';

export type { Permission };

/** Key of the global permissions in a permission map (as Perses). */
export const GLOBAL = '*';

/** Whether a permission list grants `action` on `kind` (`*` matches any action or kind). */
export function grants(perms: readonly Permission[], action: Action, kind: string): boolean {
  return perms.some((p) => (p.actions.includes(action) || p.actions.includes('*')) && (p.scopes.includes(kind) || p.scopes.includes('*')));
}

/**
 * RBAC of API.md §12: guest permissions (people only), then GlobalRoles, then the project's Roles,
 * all additive, for the principal itself, the Groups listing it, the groups its identity provider
 * reports and the roles its provider's role mappings give. Roles, bindings and groups come from a
 * cache that every change to them drops (GrantsCache), so a change holds on the very next request.
 * An API token narrowed to some permissions is refused anything outside them.
 */
export class RbacAuthorizer implements Authorizer {
  private readonly grants: GrantsCache;
  private readonly principalKinds: Set<string>;
  private readonly anonymousCreate: Map<string, string>;
  /** The kind of people (User): a principal without `subject` is one of them. */
  private readonly userKind: string;
  /** The kind provider groups are named as in bindings (Group). */
  private readonly groupKind: string;

  constructor(private readonly opts: { store: Store; registry: KindRegistry; guest: readonly Permission[]; config: unknown }) {
    const all = opts.registry.all();
    const find = (authz: 'role' | 'binding', scope: 'global' | 'project') => {
      const d = all.find((k) => k.authz === authz && k.scope === scope);
      if (!d) throw new Error(`RBAC needs a ${scope} ${authz} kind`);
      return d;
    };
    const groups = all.filter((d) => d.subject === 'group' && d.members);
    if (!groups.length) throw new Error('RBAC needs a group kind');
    this.grants = new GrantsCache({
      store: opts.store,
      globalRole: find('role', 'global'),
      globalBinding: find('binding', 'global'),
      projectRole: find('role', 'project'),
      projectBinding: find('binding', 'project'),
      groups,
      scopes: opts.registry.scopes,
    });
    this.groupKind = groups[0].kind;
    this.principalKinds = new Set(all.filter((d) => d.isPrincipal).map((d) => d.kind));
    this.userKind = [...this.principalKinds][0];
    this.anonymousCreate = new Map(all.filter((d) => d.anonymousCreateUnless).map((d) => [d.kind, d.anonymousCreateUnless!]));
  }

  async authorize(p: Principal, action: Action, t: AuthzTarget): Promise<void> {
    if (p.internal) return;
    if (action === 'create' && this.anonymousCreateAllowed(t.kind)) return;
    if (p.anonymous) throw unauthorized('sign in first: this request needs an access token');
    if (p.token?.permissions && !narrowedAllows(p.token.permissions, action, t)) {
      throw forbidden(`this API token is narrowed to fewer permissions: it may not ${action} ${t.kind}${where(t)}; use a token created with that permission`);
    }
    if (this.isPerson(p) && this.principalKinds.has(t.kind) && t.name === p.name && (action === 'read' || action === 'update')) return;
    const g = await this.grants.get();
    if (grants(this.globalOf(p, g), action, t.kind)) return;
    if (t.project !== undefined && grants(this.projectOf(p, g, t.project), action, t.kind)) return;
    throw forbidden(`${this.describe(p)} may not ${action} ${t.kind}${where(t)}; ask an owner or administrator for a role that grants it`);
  }

  async readableProjects(p: Principal, kind: string): Promise<'*' | ReadonlySet<string>> {
    if (p.internal) return '*';
    if (p.anonymous) throw unauthorized('sign in first: this request needs an access token');
    const narrowed = p.token?.permissions;
    const g = await this.grants.get();
    const allowedBy = (project: string | undefined) => !narrowed || narrowedAllows(narrowed, 'read', { kind, ...(project !== undefined ? { project } : {}) });
    if (grants(this.globalOf(p, g), 'read', kind) && allowedBy(undefined)) return '*';
    const out = new Set<string>();
    const globalRead = grants(this.globalOf(p, g), 'read', kind);
    if (globalRead) for (const project of narrowedProjects(narrowed!)) if (allowedBy(project)) out.add(project);
    for (const [project, perms] of this.allProjectsOf(p, g)) if (grants(perms, 'read', kind) && allowedBy(project)) out.add(project);
    return out;
  }

  /** `{"*": global permissions, "<project>": that project's}` for GET /api/v1/users/{name}/permissions. */
  async permissionsOf(p: Principal): Promise<Record<string, Permission[]>> {
    const g = await this.grants.get();
    const out: Record<string, Permission[]> = { [GLOBAL]: this.globalOf(p, g) };
    for (const [project, perms] of this.allProjectsOf(p, g)) out[project] = perms;
    return out;
  }

  private anonymousCreateAllowed(kind: string): boolean {
    const unless = this.anonymousCreate.get(kind);
    return unless !== undefined && getPath(this.opts.config, unless) !== true;
  }

  /** People (users), as opposed to service accounts: guest permissions and self-service apply to them. */
  private isPerson(p: Principal): boolean {
    return !p.subject || p.subject.kind === this.userKind;
  }

  private describe(p: Principal): string {
    return this.isPerson(p) ? `user "${p.name}"` : `${p.subject!.kind} "${p.name}"`;
  }

  /** The principal's own subject key, its Groups' and its provider groups'. */
  private keysOf(p: Principal, g: Grants): string[] {
    const self = subjectKey(p.subject ?? { kind: this.userKind, name: p.name });
    const keys = new Set([self, ...(g.memberOf.get(self) ?? [])]);
    for (const group of p.groups ?? []) keys.add(subjectKey({ kind: this.groupKind, name: group }));
    return [...keys];
  }

  private globalOf(p: Principal, g: Grants): Permission[] {
    const out: Permission[] = this.isPerson(p) ? [...this.opts.guest] : [];
    for (const key of this.keysOf(p, g)) out.push(...(g.global.get(key) ?? []));
    for (const r of p.roles ?? []) if (r.project === undefined) out.push(...(g.roles.get(roleKey('', r.role)) ?? []));
    return out;
  }

  private projectOf(p: Principal, g: Grants, project: string): Permission[] {
    return this.allProjectsOf(p, g).get(project) ?? [];
  }

  /** Project -> permissions there, projects in the order their first binding was found. */
  private allProjectsOf(p: Principal, g: Grants): Map<string, Permission[]> {
    const out = new Map<string, Permission[]>();
    const add = (project: string, perms: readonly Permission[]) => out.set(project, [...(out.get(project) ?? []), ...perms]);
    for (const key of this.keysOf(p, g)) for (const [project, perms] of g.projects.get(key) ?? []) add(project, perms);
    for (const r of p.roles ?? []) {
      const perms = r.project !== undefined ? g.roles.get(roleKey(r.project, r.role)) : undefined;
      if (perms) add(r.project!, perms);
    }
    return out;
  }
}

/** Whether a token's narrowed permissions allow `action` on the target (a global target: only permissions without projects). */
function narrowedAllows(perms: readonly NarrowedPermission[], action: Action, t: AuthzTarget): boolean {
  return perms.some(
    (n) =>
      (n.actions.includes(action) || n.actions.includes('*')) &&
      (n.scopes.includes(t.kind) || n.scopes.includes('*')) &&
      (n.projects === undefined || (t.project !== undefined && n.projects.includes(t.project))),
  );
}

/** Every project a narrowed token names (where a global read still reaches). */
function narrowedProjects(perms: readonly NarrowedPermission[]): string[] {
  return perms.flatMap((n) => n.projects ?? []);
}

function where(t: AuthzTarget): string {
  return t.project !== undefined ? ` in project "${t.project}"` : '';
}

