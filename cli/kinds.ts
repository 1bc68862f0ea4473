import type { KindDescriptor } from '../src/kinds/descriptor.js';
import { buildKindRegistry } from '../src/kinds/index.js';
import type { KindRegistry } from '../src/kinds/registry.js';
import { CliError } from './errors.js';

/** The server's own list of kinds (plurals, scopes, validators): dashctl never keeps a second one. */
export const KINDS: KindRegistry = buildKindRegistry();

/** Short names, as kubectl has them. */
const SHORT: Record<string, string> = {
  dash: 'Dashboard',
  db: 'Dashboard',
  edash: 'EphemeralDashboard',
  ds: 'Datasource',
  gds: 'GlobalDatasource',
  var: 'Variable',
  gvar: 'GlobalVariable',
  proj: 'Project',
  prj: 'Project',
  gsecret: 'GlobalSecret',
  grole: 'GlobalRole',
  rb: 'RoleBinding',
  grb: 'GlobalRoleBinding',
};

/** A kind from any spelling: `dash`, `dashboard`, `Dashboards`, `globalRoles`, `gds`... */
export function resolveKind(text: string): KindDescriptor {
  const t = text.toLowerCase();
  const d = KINDS.byName(SHORT[t] ?? t) ?? KINDS.byPluralName(t) ?? (t.endsWith('s') ? KINDS.byName(t.slice(0, -1)) : undefined);
  if (d) return d;
  const known = KINDS.all()
    .map((k) => k.plural)
    .join(', ');
  throw new CliError(`unknown kind "${text}"; use one of ${known} (or dash, ds, gds, var, gvar)`);
}

/** Collection path of a kind: `/api/v1/globaldatasources` or `/api/v1/projects/p/dashboards`. */
export function collectionPath(d: KindDescriptor, project?: string): string {
  if (d.scope === 'project' && project !== undefined) return `/api/v1/projects/${encodeURIComponent(project)}/${d.plural}`;
  return `/api/v1/${d.plural}`;
}

/** Path of one object. */
export function objectPath(d: KindDescriptor, name: string, project?: string): string {
  return `${collectionPath(d, project)}/${encodeURIComponent(name)}`;
}

/** `Dashboard demo/cpu`, `GlobalDatasource prom`. */
export function label(d: KindDescriptor, name: string, project?: string): string {
  return d.scope === 'project' && project ? `${d.kind} ${project}/${name}` : `${d.kind} ${name}`;
}

/** Apply order: Projects, then other global kinds, then project kinds (0, 1, 2). */
export function phaseOf(d: KindDescriptor): number {
  if (d.isProjectScope) return 0;
  return d.scope === 'global' ? 1 : 2;
}
