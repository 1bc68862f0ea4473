import { forbidden, unauthorized } from '../errors.js';
import type { KindRegistry } from '../kinds/registry.js';
import { getPath } from '../lib/object-path.js';
import type { ObjectStore } from '../storage/store.js';
import type { Action, Authorizer, AuthzTarget, Principal, Visible } from '../access/authorizer.js';
import { ContentsCache, type ContentsIndex } from './contents.js';
import type { ResolvedConfig } from '../config.js';
import { GrantsCache, roleKey, subjectKey, type Grants, type Permission, type Subject } from './grants.js';
import { grants, narrowedAllows, narrowedProjects, objectScoped, permits } from './permits.js';
import type { SignUpLimit } from './sign-up-limit.js';

export type { Permission };
export { grants };

/** Key of the global permissions in a permission map (as Perses). */
export const GLOBAL = '*';

/**
 * RBAC of docs/api.md §12: guest permissions (people only), then GlobalRoles, then the project's Roles,
 * all additive, for the principal itself, the Groups listing it, the groups its identity provider
 * reports and the roles its provider's role mappings give. A permission may cover whole kinds or
 * named objects (`resources`) and folders with what they list (`folders`). Roles, bindings, groups
 * and folders come from caches that every change to them drops (on every replica), so a change
 * holds on the very next request. An API token narrowed to some permissions is refused anything
 * outside them.
 */
export class RbacAuthorizer implements Authorizer {
  private readonly grants: GrantsCache;
  private readonly decisions = new WeakMap<Grants, Set<string>>();
  private readonly contents: ContentsCache;
  private readonly principalKinds: Set<string>;
  private readonly anonymousCreate: Map<string, string>;
  /** The kind of people (User): a principal without `subject` is one of them. */
  private readonly userKind: string;
  /** The kind provider groups are named as in bindings (Group). */
  private readonly groupKind: string;

  constructor(
    private readonly opts: {
      store: ObjectStore;
      registry: KindRegistry;
      guest: readonly Permission[];
      config: Readonly<ResolvedConfig>;
      /** Told of every refusal of an authenticated principal before it is answered (the audit log). */
      onDenied?: (p: Principal, action: Action, t: AuthzTarget, message: string) => Promise<void>;
      /** Counts self-service sign-ups per client address (429 past the limit). */
      signUps?: SignUpLimit;
    },
  ) {
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
    this.contents = new ContentsCache({ store: opts.store, containers: all.filter((d) => d.contents) });
    this.groupKind = groups[0].kind;
    this.principalKinds = new Set(all.filter((d) => d.isPrincipal).map((d) => d.kind));
    this.userKind = [...this.principalKinds][0];
    this.anonymousCreate = new Map(all.filter((d) => d.anonymousCreateUnless).map((d) => [d.kind, d.anonymousCreateUnless!]));
  }

  async authorize(p: Principal, action: Action, t: AuthzTarget): Promise<void> {
    if (p.internal) return;
    if (action === 'create' && (await this.isSignUp(p, t))) return this.opts.signUps?.admit(p);
    if (p.anonymous) throw unauthorized('sign in first: this request needs an access token');
    const refused = await this.refusalOf(p, action, t);
    if (refused !== undefined) throw await this.denied(p, action, t, refused);
  }

  /**
   * Whether `p` creating `t` is a self-service sign-up: sign-up is open for the kind and no
   * permission of `p` allows the create (an administrator's create is not one).
   */
  async isSignUp(p: Principal, t: AuthzTarget): Promise<boolean> {
    if (p.internal || !this.anonymousCreateAllowed(t.kind)) return false;
    return p.anonymous || (await this.refusalOf(p, 'create', t)) !== undefined;
  }

  /** Why `p` may not do `action` on `t` (the 403's message), or undefined when it may. Records nothing. */
  private async refusalOf(p: Principal, action: Action, t: AuthzTarget): Promise<string | undefined> {
    if (p.token?.permissions && !narrowedAllows(p.token.permissions, action, t)) {
      return `this API token is narrowed to fewer permissions: it may not ${action} ${t.kind}${where(t.project)}; use a token created with that permission`;
    }
    if (this.isPerson(p) && this.principalKinds.has(t.kind) && t.name === p.name && (action === 'read' || action === 'update'))
      return undefined;
    const g = await this.grants.get(p.synced);
    const granted = this.granted(g);
    const decision = `${this.signatureOf(p)}\u0001${action}\u0001${t.kind}\u0001${t.project ?? '\u0002'}`;
    if (granted.has(decision)) return undefined;
    const perms = [...this.globalOf(p, g), ...(t.project !== undefined ? this.projectOf(p, g, t.project) : [])];
    if (grants(perms, action, t.kind)) {
      if (granted.size >= MAX_REMEMBERED_DECISIONS) granted.clear();
      granted.add(decision);
      return undefined;
    }
    const scoped = objectScoped(perms, action, t.kind);
    if (scoped.length) {
      const contents = await this.contentsFor(p, scoped);
      if (scoped.some((x) => permits(x, action, t, contents))) return undefined;
    }
    return this.refusalMessage(p, action, t);
  }

  async readable(p: Principal, kind: string, at?: string, opts: { requireSome?: boolean } = {}): Promise<Visible> {
    if (p.internal) return '*';
    if (p.anonymous) throw unauthorized('sign in first: this request needs an access token');
    const narrowed = p.token?.permissions;
    const allowed = (project: string | undefined) =>
      !narrowed || narrowedAllows(narrowed, 'read', { kind, ...(project ? { project } : {}) });
    const g = await this.grants.get(p.synced);
    const global = this.globalOf(p, g);
    if (grants(global, 'read', kind) && allowed(undefined)) return '*';
    const whole = new Set<string>();
    if (grants(global, 'read', kind) && narrowed)
      for (const project of narrowedProjects(narrowed)) if (allowed(project)) whole.add(project);
    const partial = new Map<string, Permission[]>();
    for (const [project, perms] of this.allProjectsOf(p, g)) {
      if (grants(perms, 'read', kind) && allowed(project)) whole.add(project);
      else if (objectScoped(perms, 'read', kind).length) partial.set(project, objectScoped(perms, 'read', kind));
    }
    const globalScoped = objectScoped(global, 'read', kind);
    if (at !== undefined) {
      if (whole.has(at)) return '*';
      if (!((globalScoped.length || partial.has(at)) && allowed(at || undefined)))
        throw await this.refusal(p, 'read', { kind, ...(at ? { project: at } : {}) });
    }
    if (at === undefined && opts.requireSome && !whole.size && !partial.size && !(globalScoped.length && allowed(undefined)))
      throw await this.refusal(p, 'read', { kind });
    const contents = await this.contentsFor(p, [...globalScoped, ...[...partial.values()].flat()]);
    const test = (project: string, name: string) => {
      if (whole.has(project)) return true;
      const t = { kind, name, ...(project ? { project } : {}) };
      return (
        allowed(project || undefined) && [...globalScoped, ...(partial.get(project) ?? [])].some((x) => permits(x, 'read', t, contents))
      );
    };
    // without a global permission naming objects, nothing outside these projects passes
    return globalScoped.length ? test : Object.assign(test, { projects: new Set([...whole, ...partial.keys()]) });
  }

  /** Whether any binding or group names `s` (as the store is now, every replica's writes included). */
  async namesSubject(s: Subject): Promise<boolean> {
    return (await this.grants.get()).named.has(subjectKey(s));
  }

  /** `{"*": global permissions, "<project>": that project's}` for GET /api/v1/users/{name}/permissions. */
  async permissionsOf(p: Principal): Promise<Record<string, Permission[]>> {
    const g = await this.grants.get(p.synced);
    const out: Record<string, Permission[]> = { [GLOBAL]: this.globalOf(p, g) };
    for (const [project, perms] of this.allProjectsOf(p, g)) out[project] = perms;
    return out;
  }

  private async contentsFor(p: Principal, perms: readonly Permission[]): Promise<ContentsIndex | undefined> {
    return perms.some((x) => x.folders) ? this.contents.get(p.synced) : undefined;
  }

  private refusal(p: Principal, action: Action, t: AuthzTarget) {
    return this.denied(p, action, t, this.refusalMessage(p, action, t));
  }

  private refusalMessage(p: Principal, action: Action, t: AuthzTarget): string {
    const who = this.isPerson(p) ? `user "${p.name}"` : `${p.subject!.kind} "${p.name}"`;
    return `${who} may not ${action} ${t.kind}${where(t.project)}; ask an owner or administrator for a role that grants it`;
  }

  /** The 403 to throw, once the refusal is recorded. */
  private async denied(p: Principal, action: Action, t: AuthzTarget, message: string) {
    await this.opts.onDenied?.(p, action, t, message);
    return forbidden(message);
  }

  private anonymousCreateAllowed(kind: string): boolean {
    const unless = this.anonymousCreate.get(kind);
    return unless !== undefined && getPath(this.opts.config, unless) !== true;
  }

  /** People (users), as opposed to service accounts: guest permissions and self-service apply to them. */
  private isPerson(p: Principal): boolean {
    return !p.subject || p.subject.kind === this.userKind;
  }

  /**
   * Whole-kind grants already decided with these grants (principal signature, action, kind,
   * project): most requests repeat one of a few, and deciding walks every binding of the
   * principal. A new Grants object (any role, binding or group changed) starts empty.
   */
  private granted(g: Grants): Set<string> {
    let set = this.decisions.get(g);
    if (!set) {
      set = new Set();
      this.decisions.set(g, set);
    }
    return set;
  }

  /** What the grants of a principal depend on besides the roles and bindings: subject, provider groups, mapped roles. */
  private signatureOf(p: Principal): string {
    const self = subjectKey(p.subject ?? { kind: this.userKind, name: p.name });
    if (!p.groups?.length && !p.roles?.length) return self;
    return JSON.stringify([self, p.groups ?? [], (p.roles ?? []).map((r) => [r.project ?? null, r.role])]);
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

/** Bounds the remembered decisions (cleared when full): a few per principal and kind in practice. */
const MAX_REMEMBERED_DECISIONS = 50_000;

function where(project: string | undefined): string {
  return project !== undefined ? ` in project "${project}"` : '';
}
