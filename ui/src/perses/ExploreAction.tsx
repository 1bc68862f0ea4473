import { IconButton, Tooltip } from '@mui/material';
import { isRelativeTimeRange, type QueryDefinition } from '@perses-dev/core';
import type { PanelExtraProps } from '@perses-dev/dashboards';
import {
  type DatasourceSelectItemGroup,
  type DatasourceSelectValue,
  datasourceSelectValueToSelector,
  isVariableDatasource,
  replaceVariables,
  useAllVariableValues,
  useListDatasourceSelectItems,
  useTimeRange,
  type VariableStateMap,
} from '@perses-dev/plugin-system';
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

/**
 * A query whose datasource is a datasource variable (`"$ds"`, a DatasourceVariable's pick) with
 * the datasource it picked: Explore has no such variable, and the variable's value is the name
 * shown in the picker, not a selector. Resolved before the other variables are put in.
 */
function pickedDatasource(q: QueryDefinition, vars: VariableStateMap, items: DatasourceSelectItemGroup[] | undefined): QueryDefinition {
  const spec = q.spec.plugin.spec as { datasource?: DatasourceSelectValue };
  if (!isVariableDatasource(spec.datasource)) return q;
  const { datasource, ...rest } = spec;
  const selector = datasourceSelectValueToSelector(datasource, vars, items);
  return { ...q, spec: { ...q.spec, plugin: { ...q.spec.plugin, spec: selector ? { ...rest, datasource: selector } : rest } } };
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
  const { data: items } = useListDatasourceSelectItems('PrometheusDatasource');
  const queries = (panelDefinition?.spec.queries ?? [])
    .filter((q) => q.kind === 'TimeSeriesQuery')
    .map((q) => pickedDatasource(q, vars, items));
  if (queries.length === 0) return null;
  const title = panelDefinition?.spec.display?.name ?? 'this panel';
  const range = isRelativeTimeRange(timeRange)
    ? { start: timeRange.pastDuration }
    : { start: String(timeRange.start.getTime()), end: String(timeRange.end.getTime()) };
  return (
    <Tooltip title="Explore these queries">
      <IconButton
        size="small"
        component={RouterLink}
        to={exploreUrl({ project, dashboard, queries: resolved(queries, vars), ...range })}
        aria-label={`Explore ${title}`}
        sx={{ padding: '4px' }}
      >
        <Compass fontSize="inherit" />
      </IconButton>
    </Tooltip>
  );
}
