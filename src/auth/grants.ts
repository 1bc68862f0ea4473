import { specOf, type KindDescriptor, type Scope } from '../kinds/descriptor.js';
import type { Role } from '../kinds/generated/types.js';
import { getPath } from '../lib/object-path.js';
import type { Envelope, ObjectStore } from '../storage/store.js';
import { DerivedCache } from './derived-cache.js';

/**
 * `{actions, scopes}` as in Role/GlobalRole specs and the guest permissions; `resources` and
 * `folders` narrow it to named objects (see `permits` in rbac.ts).
 */
export interface Permission {
  actions: string[];
  scopes: string[];
  resources?: string[];
  folders?: string[];
}

/** What a binding names: `{kind, name}`, with the binding's project for a project-scoped kind. */
export interface Subject {
  kind: string;
  name: string;
  project?: string;
}

/** What every subject is granted by roles and bindings (guest permissions not included). */
export interface Grants {
  /** subject key -> permissions of the GlobalRoles bound to it. */
  global: ReadonlyMap<string, Permission[]>;
  /** subject key -> project -> permissions of that project's Roles bound to it, projects in binding order. */
  projects: ReadonlyMap<string, ReadonlyMap<string, Permission[]>>;
  /** principal subject key -> keys of the groups that list it as a member. */
  memberOf: ReadonlyMap<string, string[]>;
  /** roleKey -> permissions of every Role and GlobalRole (for configured role mappings). */
  roles: ReadonlyMap<string, Permission[]>;
  /** Keys of every subject a binding names (whether its role exists or not) and of every group member. */
  named: ReadonlySet<string>;
}

/** The identity of a subject in `Grants`. */
export function subjectKey(s: Subject): string {
  return s.project !== undefined ? `${s.kind}\u0000${s.project}\u0000${s.name}` : `${s.kind}\u0000${s.name}`;
}

/** The key of a Role (`project` = its project) or GlobalRole (`project` = ""). */
export function roleKey(project: string, name: string): string {
  return `${project}\u0000${name}`;
}

/** The kinds grants are computed from. */
export interface GrantKinds {
  globalRole: KindDescriptor;
  globalBinding: KindDescriptor;
  projectRole: KindDescriptor;
  projectBinding: KindDescriptor;
  /** Kinds whose objects list members (Group). */
  groups: readonly KindDescriptor[];
  /** Every kind's scope: a subject of a project-scoped kind lives in its binding's project. */
  scopes: ReadonlyMap<string, Scope>;
}

interface Binding {
  role: string;
  subjects?: { kind: string; name: string }[];
}

/**
 * Every subject's grants, computed from all roles, bindings and groups in a few reads and kept
 * until one of them changes, on any replica (DerivedCache).
 */
export class GrantsCache {
  private readonly cache: DerivedCache<Grants>;

  constructor(private readonly o: GrantKinds & { store: ObjectStore }) {
    const kinds = [o.globalRole, o.globalBinding, o.projectRole, o.projectBinding, ...o.groups].map((d) => d.kind);
    this.cache = new DerivedCache(o.store, kinds, () => this.compute());
  }

  /** `synced`: see DerivedCache.get. */
  get(synced?: boolean): Promise<Grants> {
    return this.cache.get(synced);
  }

  private async compute(): Promise<Grants> {
    const { store } = this.o;
    const [globalRoles, globalBindings, projectRoles, projectBindings, ...groupLists] = await Promise.all([
      store.list({ kind: this.o.globalRole.kind, project: '' }),
      store.list({ kind: this.o.globalBinding.kind, project: '' }),
      store.list({ kind: this.o.projectRole.kind }),
      store.list({ kind: this.o.projectBinding.kind }),
      ...this.o.groups.map((g) => store.list({ kind: g.kind, project: '' })),
    ]);
    const roles = new Map<string, Permission[]>();
    for (const r of [...globalRoles, ...projectRoles]) roles.set(roleKey(r.metadata.project ?? '', r.metadata.name), permissionsIn(r));
    const named = new Set<string>();
    const global = new Map<string, Permission[]>();
    for (const b of globalBindings) {
      const perms = roles.get(roleKey('', (b.spec as Binding).role));
      for (const key of this.subjectsOf(b)) {
        named.add(key);
        if (perms) global.set(key, [...(global.get(key) ?? []), ...perms]);
      }
    }
    const projects = new Map<string, Map<string, Permission[]>>();
    for (const b of projectBindings) {
      const project = b.metadata.project!;
      const perms = roles.get(roleKey(project, (b.spec as Binding).role));
      for (const key of this.subjectsOf(b)) named.add(key);
      if (!perms) continue;
      for (const key of this.subjectsOf(b)) {
        const mine = projects.get(key) ?? new Map<string, Permission[]>();
        projects.set(key, mine);
        mine.set(project, [...(mine.get(project) ?? []), ...perms]);
      }
    }
    const memberOf = new Map<string, string[]>();
    this.o.groups.forEach((g, i) => {
      for (const obj of groupLists[i]) {
        const group = subjectKey({ kind: g.kind, name: obj.metadata.name });
        for (const name of new Set(namesAt(obj, g.members!.path))) {
          const member = subjectKey({ kind: g.members!.kind, name });
          named.add(member);
          memberOf.set(member, [...(memberOf.get(member) ?? []), group]);
        }
      }
    });
    return { global, projects, memberOf, roles, named };
  }

  /** The subject keys a binding names (each once); a project-scoped subject kind is the binding's project's. */
  private subjectsOf(binding: Envelope): Set<string> {
    const project = binding.metadata.project;
    const out = new Set<string>();
    for (const s of (binding.spec as Binding).subjects ?? []) {
      const scope = this.o.scopes.get(s.kind);
      if (scope === 'project' && project === undefined) continue; // not valid in a global binding
      out.add(subjectKey({ kind: s.kind, name: s.name, ...(scope === 'project' ? { project } : {}) }));
    }
    return out;
  }
}

function namesAt(obj: Envelope, path: string): string[] {
  const v = getPath(obj, path);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function permissionsIn(role: Envelope): Permission[] {
  return (specOf<Role>(role).permissions ?? []).map((p) => ({
    actions: p.actions,
    scopes: p.scopes,
    ...(p.resources ? { resources: p.resources } : {}),
    ...(p.folders ? { folders: p.folders } : {}),
  }));
}
