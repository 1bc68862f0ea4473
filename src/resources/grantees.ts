import { ApiError, invalid, type ErrorDetail } from '../errors.js';
import type { HookCall, KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { getPath } from '../lib/object-path.js';
import type { Envelope, ObjectStore } from '../storage/store.js';

/** Where a binding kind (`authz: 'binding'`) lists its subjects, `{kind, name}` each. */
export const SUBJECTS_PATH = 'spec.subjects';

/** A principal a grant names: a binding's subject or a group's member, at `path` of the grant. */
export interface Grantee {
  path: string;
  kind: string;
  name: string;
  /** The project of a principal of a project-scoped kind: the binding's own. */
  project?: string | undefined;
}

/** Above this many new names of one kind, their kind is listed once instead of read name by name. */
const READ_ONE_BY_ONE = 32;

/**
 * The principals (kinds with `subject: 'principal'`) a binding or a group names, each with its
 * path. Other subjects are left out: a Group subject names a Group object or a group an identity
 * provider reports, neither of which a stranger can create.
 */
export function granteesOf(registry: KindRegistry, d: KindDescriptor, obj: Envelope): Grantee[] {
  if (d.members) {
    const members = getPath(obj, d.members.path);
    if (!Array.isArray(members)) return [];
    return members.flatMap((name, i) =>
      typeof name === 'string' ? [{ path: `${d.members!.path}[${i}]`, kind: d.members!.kind, name }] : [],
    );
  }
  if (d.authz !== 'binding') return [];
  const subjects = getPath(obj, SUBJECTS_PATH);
  if (!Array.isArray(subjects)) return [];
  return subjects.flatMap((s: { kind?: unknown; name?: unknown } | null, i) => {
    const k = typeof s?.kind === 'string' ? registry.byName(s.kind) : undefined;
    if (k?.subject !== 'principal' || typeof s?.name !== 'string') return [];
    // a project's principal in a global binding is refused by the binding's own validation
    if (k.scope === 'project' && d.scope !== 'project') return [];
    return [
      {
        path: `${SUBJECTS_PATH}[${i}].name`,
        kind: k.kind,
        name: s.name,
        ...(k.scope === 'project' ? { project: obj.metadata.project } : {}),
      },
    ];
  });
}

/** Whether a kind's objects grant roles to principals by name (bindings and groups). */
export function namesGrantees(d: KindDescriptor): boolean {
  return d.members !== undefined || d.authz === 'binding';
}

/**
 * A grant designates an identity that exists (GRANT-01): every principal `obj` names that
 * `current` (the stored version; none on create) did not, and that does not exist, is a problem
 * at its path. Names kept from `current` are not read again, so a binding written before this
 * rule can still be edited.
 */
async function missingGrantees(
  o: { store: Pick<ObjectStore, 'get' | 'list'>; registry: KindRegistry },
  d: KindDescriptor,
  obj: Envelope,
  current?: Envelope,
): Promise<ErrorDetail[]> {
  const before = new Set((current ? granteesOf(o.registry, d, current) : []).map(keyOf));
  const added = granteesOf(o.registry, d, obj).filter((g) => !before.has(keyOf(g)));
  const exists = await existing(o, added);
  return added.filter((g) => !exists.has(keyOf(g))).map((g) => ({ path: g.path, message: missingMessage(o.registry, g) }));
}

/** What `grantProblems` reads: the store, the kinds, and the RBAC grants' named subjects (with auth on). */
export interface GrantChecks {
  store: Pick<ObjectStore, 'get' | 'list'>;
  registry: KindRegistry;
  /** Whether a binding or a group names this principal (as stored now). */
  namedByGrants?(s: { kind: string; name: string; project?: string }): Promise<boolean>;
}

/**
 * A grant designates an identity that exists, and a self-service sign-up is never given a grant
 * written before it existed (GRANT-01): a binding or group naming a principal that does not
 * exist is a 400 at that subject's path; a sign-up under a name some binding or group names
 * (one written before this rule, or restored from a backup) is a 409.
 */
export async function grantProblems(o: GrantChecks, d: KindDescriptor, obj: Envelope, call: HookCall): Promise<void> {
  if (namesGrantees(d)) {
    const problems = await missingGrantees(o, d, obj, call.current);
    if (problems.length) throw invalid(problems, d.kind);
  }
  if (!call.signUp || d.subject !== 'principal') return;
  const subject = { kind: d.kind, name: obj.metadata.name, ...(d.scope === 'project' ? { project: obj.metadata.project } : {}) };
  if (await o.namedByGrants?.(subject)) {
    throw new ApiError(
      'Conflict',
      `the name "${obj.metadata.name}" is reserved: roles were granted to a ${d.kind} of this name before one existed, and only an administrator or an identity provider may create it; choose another name, or ask an administrator`,
      [{ path: 'metadata.name', message: 'is reserved for a user an administrator or an identity provider creates' }],
    );
  }
}

/** The keys of those of `grantees` that exist: read one by one, or (many of a kind) in one list. */
async function existing(
  o: { store: Pick<ObjectStore, 'get' | 'list'>; registry: KindRegistry },
  grantees: readonly Grantee[],
): Promise<Set<string>> {
  const out = new Set<string>();
  const byScope = new Map<string, Grantee[]>();
  for (const g of grantees) {
    const scope = `${g.kind}\u0000${g.project ?? ''}`;
    byScope.set(scope, [...(byScope.get(scope) ?? []), g]);
  }
  for (const group of byScope.values()) {
    const { kind, project = '' } = group[0];
    if (group.length > READ_ONE_BY_ONE) {
      for (const obj of await o.store.list({ kind, project })) out.add(keyOf({ kind, name: obj.metadata.name, project: group[0].project }));
      continue;
    }
    const found = await Promise.all(group.map((g) => o.store.get({ kind, project, name: g.name })));
    group.forEach((g, i) => found[i] && out.add(keyOf(g)));
  }
  return out;
}

function missingMessage(registry: KindRegistry, g: Grantee): string {
  const where = g.project !== undefined ? ` in project "${g.project}"` : '';
  const how = registry.byName(g.kind)?.isPrincipal
    ? `create the user first: an administrator can create it (for a user of an identity provider, bound to the provider with spec.oauthProviders: [{"issuer": "<the provider's issuer>"}]), or it is created at its first sign-in through an identity provider`
    : `create the ${g.kind} first`;
  return `${g.kind} "${g.name}" does not exist${where}; ${how}`;
}

function keyOf(g: Pick<Grantee, 'kind' | 'name' | 'project'>): string {
  return `${g.kind}\u0000${g.project ?? ''}\u0000${g.name}`;
}
