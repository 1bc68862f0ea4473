import type { ErrorDetail } from '../errors.js';
import { parseDuration } from '../resources/duration.js';
import { dashboardProblems, normalizeDashboard } from './dashboard-rules.js';
import type { KindDescriptor } from './descriptor.js';
import { Dashboard, EphemeralDashboard } from './generated/validators.js';

/** The longest accepted EphemeralDashboard ttl. */
const MAX_TTL_MS = 365 * 86_400_000;

export const dashboard: KindDescriptor = {
  kind: 'Dashboard',
  plural: 'dashboards',
  scope: 'project',
  validate: Dashboard,
  history: true,
  hooks: {
    normalize: normalizeDashboard,
    validate: (obj, ctx) => dashboardProblems(obj.spec, ctx.plugins),
  },
};

/** A dashboard with a `ttl`: it expires at updatedAt + ttl. */
export const ephemeralDashboard: KindDescriptor = {
  kind: 'EphemeralDashboard',
  plural: 'ephemeraldashboards',
  scope: 'project',
  validate: EphemeralDashboard,
  ttlPath: 'spec.ttl',
  enabledBy: 'ephemeral_dashboard.enable',
  hooks: {
    normalize: normalizeDashboard,
    validate: (obj, ctx) => [...ttlProblems((obj.spec as { ttl?: unknown }).ttl), ...dashboardProblems(obj.spec, ctx.plugins)],
  },
};

function ttlProblems(ttl: unknown): ErrorDetail[] {
  if (typeof ttl !== 'string') return [];
  const ms = parseDuration(ttl);
  if (ms === undefined || ms <= 0) return [{ path: 'spec.ttl', message: `"${ttl}" must be a positive duration such as "30m", "2h" or "7d"` }];
  if (ms > MAX_TTL_MS) return [{ path: 'spec.ttl', message: `"${ttl}" is longer than the maximum of 1y; use a Dashboard for objects that should stay` }];
  return [];
}
