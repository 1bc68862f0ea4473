import type { OAuthProviderConfig, OIDCProviderConfig, UserSpec } from '../kinds/generated/types.js';

/** Most groups kept from one provider answer (a claim listing more is cut). */
const MAX_GROUPS = 1000;
/** Longest group name kept (a binding subject holds at most 256 characters, prefix included). */
const MAX_GROUP_LENGTH = 192;

/** What a provider's configuration says about groups. */
export interface GroupPolicy {
  /** Claim listing the groups (groups_claim). */
  claim: string;
  prefix: string;
  /** allowed_groups, when set. */
  allowed?: ReadonlySet<string>;
  /** Provider group -> the roles it gives (role_mappings). */
  mappings: ReadonlyMap<string, { role: string; project?: string }[]>;
}

/** The group policy of a provider configuration, or undefined without groups_claim. Throws on an invalid role mapping. */
export function groupPolicy(c: OIDCProviderConfig | OAuthProviderConfig, where: string): GroupPolicy | undefined {
  const mappings = new Map<string, { role: string; project?: string }[]>();
  (c.role_mappings ?? []).forEach((m, i) => {
    const global = m.global_role !== undefined;
    const project = m.project !== undefined || m.role !== undefined;
    if (global === project || (project && (m.project === undefined || m.role === undefined))) {
      throw new Error(`${where}.role_mappings[${i}]: give either global_role, or both project and role (group "${m.group}")`);
    }
    const role = global ? { role: m.global_role! } : { role: m.role!, project: m.project! };
    mappings.set(m.group, [...(mappings.get(m.group) ?? []), role]);
  });
  if (!c.groups_claim) {
    if (mappings.size) throw new Error(`${where}.role_mappings needs groups_claim: the claim that lists each user's groups`);
    return undefined;
  }
  return {
    claim: c.groups_claim,
    prefix: c.groups_prefix ?? '',
    ...(c.allowed_groups ? { allowed: new Set(c.allowed_groups) } : {}),
    mappings,
  };
}

/**
 * The groups a provider's claims report, as it names them: an array of strings or one string;
 * anything else (numbers, objects, empty or over-long names) is left out rather than turned into
 * a name, duplicates are dropped, and only allowed groups are kept. A missing claim is no group.
 */
export function groupsFromClaims(claims: Record<string, unknown>, policy: GroupPolicy): string[] {
  const value = claims[policy.claim];
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  const out = new Set<string>();
  for (const g of list) {
    if (typeof g !== 'string' || g === '' || g.length > MAX_GROUP_LENGTH || /[\u0000-\u001f]/.test(g)) continue;
    if (policy.allowed && !policy.allowed.has(g)) continue;
    out.add(g);
    if (out.size >= MAX_GROUPS) break;
  }
  return [...out];
}

/** What a principal's provider groups mean for RBAC: the Group names bindings use, and the mapped roles. */
export function groupGrants(
  groups: readonly string[],
  policy: GroupPolicy,
): { groups: string[]; roles: { role: string; project?: string }[] } {
  const kept = policy.allowed ? groups.filter((g) => policy.allowed!.has(g)) : groups;
  return { groups: kept.map((g) => policy.prefix + g), roles: kept.flatMap((g) => policy.mappings.get(g) ?? []) };
}

/**
 * The groups and mapped roles of a user from the groups its providers reported at its last
 * login or refresh (recorded in `spec.oauthProviders[].groups`), under today's configuration of
 * those providers (`policies` by issuer). A provider no longer configured, or no longer reading
 * groups, gives none.
 */
export function principalGroups(
  policies: ReadonlyMap<string, GroupPolicy>,
  spec: UserSpec | undefined,
): { groups?: string[]; roles?: { role: string; project?: string }[] } {
  const bindings = spec?.oauthProviders;
  if (!Array.isArray(bindings) || policies.size === 0) return {};
  const groups: string[] = [];
  const roles: { role: string; project?: string }[] = [];
  for (const b of bindings) {
    const policy = typeof b?.issuer === 'string' ? policies.get(b.issuer) : undefined;
    if (!policy || !Array.isArray(b.groups)) continue;
    const g = groupGrants(
      b.groups.filter((x): x is string => typeof x === 'string'),
      policy,
    );
    groups.push(...g.groups);
    roles.push(...g.roles);
  }
  return { ...(groups.length ? { groups } : {}), ...(roles.length ? { roles } : {}) };
}
