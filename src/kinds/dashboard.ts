import type { ErrorDetail } from '../errors.js';
import { proxySecretNames } from '../proxy/proxy-block.js';
import { parseDuration } from '../lib/duration.js';
import { isObj } from '../lib/is-obj.js';
import { dashboardProblems, normalizeDashboard } from './dashboard-rules.js';
import type { KindDescriptor } from './descriptor.js';
import type { Dashboard as DashboardObject, DatasourceSpec, EphemeralDashboard as EphemeralDashboardObject } from './generated/types.js';
import { Dashboard, EphemeralDashboard } from './generated/validators.js';

type AnyDashboard = DashboardObject | EphemeralDashboardObject;

/** The longest accepted EphemeralDashboard ttl. */
const MAX_TTL_MS = 365 * 86_400_000;

/** Dashboard-local datasources: the proxy serves them, and their secrets are the project's. Its queries ask for datasources of these kinds. */
const localDatasources = {
  usesDatasources: { project: 'Datasource', global: 'GlobalDatasource' },
  secretKind: 'Secret',
  secretRefs: (obj: AnyDashboard) =>
    Object.values(localSpecs(obj))
      .map((ds) => ds?.plugin?.spec)
      .flatMap((s) => proxySecretNames(s)),
  datasourceSpec: (obj: AnyDashboard, name?: string) =>
    name !== undefined && Object.hasOwn(localSpecs(obj), name) ? localSpecs(obj)[name] : undefined,
};

/** datasource.disable_local and variable.disable_local (Perses' keys) forbid a dashboard's own datasources and variables. */
const forbiddenBy = [
  {
    key: 'datasource.disable_local',
    field: 'spec.datasources',
    message:
      'this server does not allow datasources defined in a dashboard (datasource.disable_local): use a project Datasource or a GlobalDatasource',
  },
  {
    key: 'variable.disable_local',
    field: 'spec.variables',
    message:
      'this server does not allow variables defined in a dashboard (variable.disable_local): use a project Variable or a GlobalVariable',
  },
];

function localSpecs(obj: AnyDashboard): Record<string, DatasourceSpec | undefined> {
  const ds = obj.spec.datasources;
  return isObj(ds) ? ds : {};
}

export const dashboard: KindDescriptor<DashboardObject> = {
  kind: 'Dashboard',
  plural: 'dashboards',
  shortNames: ['dash', 'db'],
  scope: 'project',
  validate: Dashboard,
  history: true,
  searchable: true,
  ...localDatasources,
  forbiddenBy,
  hooks: {
    normalize: normalizeDashboard,
    validate: (obj, ctx) => dashboardProblems(obj.spec, ctx.plugins),
  },
};

/** A dashboard with a `ttl`: it expires at updatedAt + ttl. */
export const ephemeralDashboard: KindDescriptor<EphemeralDashboardObject> = {
  kind: 'EphemeralDashboard',
  plural: 'ephemeraldashboards',
  shortNames: ['edash'],
  scope: 'project',
  validate: EphemeralDashboard,
  ttlPath: 'spec.ttl',
  searchable: true,
  ...localDatasources,
  forbiddenBy,
  enabledBy: 'ephemeral_dashboard.enable',
  hooks: {
    normalize: normalizeDashboard,
    validate: (obj, ctx) => [...ttlProblems(obj.spec.ttl), ...dashboardProblems(obj.spec, ctx.plugins)],
  },
};

function ttlProblems(ttl: unknown): ErrorDetail[] {
  if (typeof ttl !== 'string') return [];
  const ms = parseDuration(ttl);
  if (ms === undefined || ms <= 0)
    return [{ path: 'spec.ttl', message: `"${ttl}" must be a positive duration such as "30m", "2h" or "7d"` }];
  if (ms > MAX_TTL_MS)
    return [{ path: 'spec.ttl', message: `"${ttl}" is longer than the maximum of 1y; use a Dashboard for objects that should stay` }];
  return [];
}
