import { IconButton, Tooltip } from '@mui/material';
import { isRelativeTimeRange, type QueryDefinition } from '@perses-dev/core';
import type { PanelExtraProps } from '@perses-dev/dashboards';
import { replaceVariables, useAllVariableValues, useTimeRange, type VariableStateMap } from '@perses-dev/plugin-system';
import Compass from 'mdi-material-ui/CompassOutline';
import { Link as RouterLink } from 'react-router-dom';
import { PROMETHEUS_EXPLORER } from '../plugins';

const enc = encodeURIComponent;

/** Every string inside `value` with the variables' current values put in. */
function resolved<T>(value: T, vars: VariableStateMap): T {
  if (typeof value === 'string') return replaceVariables(value, vars) as T;
  if (Array.isArray(value)) return value.map((v) => resolved(v, vars)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolved(v, vars)])) as T;
}

/** The Explore page for these queries, with the dashboard's time range (and its local datasources). */
export function exploreUrl(o: { project: string; dashboard?: string; queries: QueryDefinition[]; start?: string; end?: string }): string {
  const q = new URLSearchParams({ explorer: PROMETHEUS_EXPLORER, data: JSON.stringify({ tab: 'graph', queries: o.queries }) });
  if (o.start) q.set('start', o.start);
  if (o.end) q.set('end', o.end);
  if (o.dashboard) q.set('dashboard', o.dashboard);
  return `/projects/${enc(o.project)}/explore?${q}`;
}

/**
 * The Explore button of a panel's header (view mode): opens the panel's time-series queries in
 * Explore, with the variables' current values put in and the dashboard's time range.
 */
export function ExploreAction({ panelDefinition, project, dashboard }: PanelExtraProps & { project: string; dashboard: string }) {
  const vars = useAllVariableValues();
  const { timeRange } = useTimeRange();
  const queries = (panelDefinition?.spec.queries ?? []).filter((q) => q.kind === 'TimeSeriesQuery');
  if (queries.length === 0) return null;
  const title = panelDefinition?.spec.display?.name ?? 'this panel';
  const range = isRelativeTimeRange(timeRange) ? { start: timeRange.pastDuration } : { start: String(timeRange.start.getTime()), end: String(timeRange.end.getTime()) };
  return (
    <Tooltip title="Explore these queries">
      <IconButton size="small" component={RouterLink} to={exploreUrl({ project, dashboard, queries: resolved(queries, vars), ...range })} aria-label={`Explore ${title}`} sx={{ padding: '4px' }}>
        <Compass fontSize="inherit" />
      </IconButton>
    </Tooltip>
  );
}
