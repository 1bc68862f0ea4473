import type { KindDescriptor } from '../kinds/descriptor.js';
import type { Envelope, Store } from '../storage/store.js';

/** `{actions, scopes}` as in Role/GlobalRole specs and the guest permissions. */
export interface Permission {
  actions: string[];
  scopes: string[];
}

/** What every user is granted by roles and bindings (guest permissions not included). */
export interface Grants {
  /** user -> permissions of the GlobalRoles bound to them. */
  global: ReadonlyMap<string, Permission[]>;
  /** user -> project -> permissions of that project's Roles bound to them, projects in binding order. */
  projects: ReadonlyMap<string, ReadonlyMap<string, Permission[]>>;
}

interface Binding {
  role: string;
  subjects?: { kind: string; name: string }[];
}

/**
 * Every user's grants, computed from all roles and bindings in four reads and kept until a role
 * or binding changes: the store's events (every replica's) drop the cached value, and `sync`
 * first delivers every event committed before the request, so a change holds on the very next
 * request on any replica.
 */
export class GrantsCache {
  private current?: Promise<Grants>;
  /** Bumped by every relevant event: a computation started before one is not kept. */
  private generation = 0;
  private readonly kinds: Set<string>;

  constructor(private readonly o: { store: Store; globalRole: KindDescriptor; globalBinding: KindDescriptor; projectRole: KindDescriptor; projectBinding: KindDescriptor }) {
    this.kinds = new Set([o.globalRole.kind, o.globalBinding.kind, o.projectRole.kind, o.projectBinding.kind]);
    o.store.onEvent((e) => {
      if (!this.kinds.has(e.object.kind)) return;
      this.generation++;
      this.current = undefined;
    });
  }

  async get(): Promise<Grants> {
    await this.o.store.sync();
    if (this.current) return this.current;
    const generation = this.generation;
    const computing = this.compute();
    this.current = computing;
    computing.then(
      () => {
        if (this.generation !== generation && this.current === computing) this.current = undefined;
      },
      () => {
        if (this.current === computing) this.current = undefined;
      },
    );
    return computing;
  }

  private async compute(): Promise<Grants> {
    const { store } = this.o;
    const [globalRoles, globalBindings, projectRoles, projectBindings] = await Promise.all([
      store.list({ kind: this.o.globalRole.kind, project: '' }),
      store.list({ kind: this.o.globalBinding.kind, project: '' }),
      store.list({ kind: this.o.projectRole.kind }),
      store.list({ kind: this.o.projectBinding.kind }),
    ]);
    const roleKey = (project: string, name: string) => `${project}/${name}`;
    const roles = new Map<string, Permission[]>();
    for (const r of [...globalRoles, ...projectRoles]) roles.set(roleKey(r.metadata.project ?? '', r.metadata.name), permissionsIn(r));
    const global = new Map<string, Permission[]>();
    for (const b of globalBindings) {
      const perms = roles.get(roleKey('', (b.spec as Binding).role));
      if (perms) for (const user of usersOf(b)) global.set(user, [...(global.get(user) ?? []), ...perms]);
    }
    const projects = new Map<string, Map<string, Permission[]>>();
    for (const b of projectBindings) {
      const project = b.metadata.project!;
      const perms = roles.get(roleKey(project, (b.spec as Binding).role));
      if (!perms) continue;
      for (const user of usersOf(b)) {
        const mine = projects.get(user) ?? new Map<string, Permission[]>();
        projects.set(user, mine);
        mine.set(project, [...(mine.get(project) ?? []), ...perms]);
      }
    }
    return { global, projects };
  }
}

/** The users a binding names (each once). */
function usersOf(binding: Envelope): Set<string> {
  return new Set(((binding.spec as Binding).subjects ?? []).filter((s) => s.kind === 'User').map((s) => s.name));
}

function permissionsIn(role: Envelope): Permission[] {
  return ((role.spec as { permissions?: Permission[] }).permissions ?? []).map((p) => ({ actions: p.actions, scopes: p.scopes }));
}
