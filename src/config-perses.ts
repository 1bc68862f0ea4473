import { isObj } from './lib/is-obj.js';

/**
 * What a Perses configuration's keys become here (docs/configuration.md, "Perses configuration").
 * Keys whose schema says `deprecated` are accepted and have no effect: each present one is named
 * in a warning at start, with its schema description. A few are written the way dashplane reads
 * them (`translatePerses`), and a few are refused (`persesRefusals`): accepting them would store
 * data, sign users in or grant permissions otherwise than the configuration says.
 */

/** A schema node, as far as these rules read it. */
export interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  description?: string;
  deprecated?: boolean;
}

type Raw = Record<string, unknown>;

const IGNORED_LEAD = 'Accepted for Perses compatibility and ignored: ';

/** The configuration as written, with Perses' forms turned into dashplane's (in place, before defaults and checks). */
export function translatePerses(raw: Raw, problems: string[]): void {
  if (typeof raw.api_prefix === 'string') raw.api_prefix = raw.api_prefix.replace(/\/+$/, '');
  const ephemeral = isObj(raw.ephemeral_dashboard) ? raw.ephemeral_dashboard : undefined;
  if (raw.ephemeral_dashboards_cleanup_interval !== undefined && ephemeral?.cleanup_interval === undefined) {
    raw.ephemeral_dashboard = { ...(ephemeral ?? {}), cleanup_interval: raw.ephemeral_dashboards_cleanup_interval };
  }
  const security = isObj(raw.security) ? raw.security : undefined;
  const authorization = isObj(security?.authorization) ? security.authorization : undefined;
  const native = isObj(authorization?.provider) && isObj(authorization.provider.native) ? authorization.provider.native : undefined;
  if (authorization && native?.guest_permissions !== undefined) {
    if (authorization.guest_permissions !== undefined) {
      problems.push(
        '  - security.authorization.provider.native.guest_permissions: security.authorization.guest_permissions is set too; keep one of them (they are the same setting)',
      );
    } else authorization.guest_permissions = native.guest_permissions;
  }
  const providers =
    isObj(security?.authentication) && isObj(security.authentication.providers) ? security.authentication.providers : undefined;
  for (const kind of ['oidc', 'oauth']) {
    const list = providers?.[kind];
    if (Array.isArray(list)) list.forEach((p, i) => translateClaims(p, `security.authentication.providers.${kind}[${i}]`, problems));
  }
}

/**
 * Perses' `claims: [{claim_name, mappings: [{claim_value, role_name, project?}]}]` read as
 * groups_claim and role_mappings: each claim value is a provider group given the role.
 */
function translateClaims(provider: unknown, where: string, problems: string[]): void {
  if (!isObj(provider) || !Array.isArray(provider.claims) || provider.claims.length === 0) return;
  const claim = provider.claims[0];
  if (!isObj(claim) || typeof claim.claim_name !== 'string' || !Array.isArray(claim.mappings)) return; // the schema names the problem
  if (provider.groups_claim !== undefined && provider.groups_claim !== claim.claim_name) {
    problems.push(
      `  - ${where}.claims[0].claim_name: "${claim.claim_name}" while groups_claim is "${provider.groups_claim}"; a provider reads one claim for groups and role mappings: write the mappings as role_mappings of "${provider.groups_claim}", or drop groups_claim`,
    );
    return;
  }
  const mapped = claim.mappings.filter(isObj).map((m) => ({
    group: m.claim_value,
    ...(m.project === undefined ? { global_role: m.role_name } : { project: m.project, role: m.role_name }),
  }));
  provider.groups_claim = claim.claim_name;
  provider.role_mappings = [...(Array.isArray(provider.role_mappings) ? provider.role_mappings : []), ...mapped];
}

/** Perses keys refused at start, each with what to do instead (checked after the schema). */
export function persesRefusals(config: Raw): string[] {
  const problems: string[] = [];
  const at = (path: string): unknown => path.split('.').reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), config);
  if (at('database.file') !== undefined) {
    problems.push(
      '  - database.file: dashplane does not store resources in a folder of files; remove it and use database.level (path: the directory of the embedded database) or database.postgres. To bring a Perses file database in, apply its files (dashctl apply -f FOLDER, or list the folder in provisioning.folders)',
    );
  }
  if (at('database.sql') !== undefined) {
    problems.push(
      '  - database.sql: dashplane does not store resources in MySQL or MariaDB; remove it and use database.postgres (PostgreSQL, for several replicas) or database.level, then copy the resources over with dashctl',
    );
  }
  if (at('security.authentication.providers.kubernetes.enable') === true) {
    problems.push(
      "  - security.authentication.providers.kubernetes.enable: dashplane has no Kubernetes authentication; sign users in with an OIDC provider (such as the cluster's issuer) instead",
    );
  }
  if (at('security.authorization.provider.kubernetes.enable') === true) {
    problems.push(
      '  - security.authorization.provider.kubernetes.enable: dashplane has no Kubernetes authorization; grant permissions with Roles and bindings (or role_mappings) instead',
    );
  }
  const rules = at('dashboard.custom_lint_rules');
  if (Array.isArray(rules)) {
    rules.forEach((r, i) => {
      if (isObj(r) && r.disable !== true) {
        problems.push(
          `  - dashboard.custom_lint_rules[${i}]${typeof r.name === 'string' ? ` ("${r.name}")` : ''}: dashplane does not evaluate CEL lint rules, so dashboards this rule refuses would be saved; check dashboards before they are applied (e.g. in CI), and remove the rule or set disable: true`,
        );
      }
    });
  }
  return problems;
}

/** One warning per Perses key present that has no effect here (its schema says `deprecated`). */
export function ignoredKeyWarnings(config: unknown, schema: SchemaNode, path = ''): string[] {
  const out: string[] = [];
  if (Array.isArray(config) && schema.items) {
    config.forEach((item, i) => out.push(...ignoredKeyWarnings(item, schema.items!, `${path}[${i}]`)));
    return out;
  }
  if (!isObj(config)) return out;
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    if (config[key] === undefined) continue;
    const at = path ? `${path}.${key}` : key;
    if (sub.deprecated) out.push(`${at} is ignored: ${(sub.description ?? '').replace(IGNORED_LEAD, '')}`);
    else out.push(...ignoredKeyWarnings(config[key], sub, at));
  }
  return out;
}
