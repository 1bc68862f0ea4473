import { Alert, Box, Button, MenuItem, Stack, TextField, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import type { DashboardResource } from '@perses-dev/core';
import { DatasourceStoreProvider, VariableProvider } from '@perses-dev/dashboards';
import { ExplorerManagerProviderWithQueryParams, ExploreToolbar, useExplorerManagerContext } from '@perses-dev/explore';
import { PrometheusExplorer } from '@perses-dev/prometheus-plugin';
import { TimeRangeProviderWithQueryParams, useInitialRefreshInterval, useInitialTimeRange } from '@perses-dev/plugin-system';
import { useQuery } from '@tanstack/react-query';
import { type ComponentType, lazy, Suspense } from 'react';
import { Link as RouterLink, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { displayName, getResource, list } from '../api';
import { useDatasourceApi } from '../datasource-api';
import { useCan } from '../permissions';
import { loadQueryable, rememberProject } from './explore-start';
import { useExploreStart } from './use-explore-start';
import { PersesProviders } from '../perses/PersesProviders';
import { PROMETHEUS_EXPLORER } from '../plugins';
import { ErrorMessage, Loading, PageHeader } from '../widgets';

const enc = encodeURIComponent;

/**
 * The explorers of the bundled plugin packages, by their id in the `explorer` URL parameter (as
 * @perses-dev/explore names them, and as the Tempo plugin's trace links write it). Tempo's and
 * Pyroscope's load with their packages, when chosen.
 */
const EXPLORERS: { id: string; label: string; title: string; datasourceKind: string; component: ComponentType }[] = [
  { id: PROMETHEUS_EXPLORER, label: 'Metrics', title: 'Prometheus', datasourceKind: 'PrometheusDatasource', component: PrometheusExplorer },
  {
    id: 'Tempo-TempoExplorer',
    label: 'Traces',
    title: 'Tempo',
    datasourceKind: 'TempoDatasource',
    component: lazy(() => import('@perses-dev/tempo-plugin').then((m) => ({ default: m.TempoExplorer }))),
  },
  {
    id: 'Pyroscope-PyroscopeExplorer',
    label: 'Profiles',
    title: 'Pyroscope',
    datasourceKind: 'PyroscopeDatasource',
    component: lazy(() => import('@perses-dev/pyroscope-plugin').then((m) => ({ default: m.PyroscopeExplorer }))),
  },
];

/**
 * Ad-hoc queries, as Perses' Explore: the Prometheus explorer (PromQL with completion, a table of
 * the latest values, a graph, a metrics finder), Tempo's (TraceQL, traces found, a trace's spans)
 * and Pyroscope's (flame graphs) against any datasource of the project the user picks, or the
 * global ones. The query, the tab and the time range live in the URL. Coming from a
 * dashboard panel (`?dashboard=`), that dashboard's own datasources resolve too.
 */
export function ExplorePage() {
  return (
    <PersesProviders>
      <Explore />
    </PersesProviders>
  );
}

function Explore() {
  const { project } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const dashboardName = params.get('dashboard') ?? undefined;
  const projects = useQuery(['list', 'projects'], () => list('projects'));
  const dashboard = useQuery(
    ['resource', 'dashboards', project ?? '', dashboardName ?? ''],
    () => getResource('dashboards', project, dashboardName!),
    { enabled: !!project && !!dashboardName },
  );
  const datasourceApi = useDatasourceApi();
  const initialTimeRange = useInitialTimeRange('1h');
  const initialRefreshInterval = useInitialRefreshInterval('0s');
  const { can, ready } = useCan();
  const queryable = useQuery(['explore-queryable', can('read', 'GlobalDatasource')], () => loadQueryable(can('read', 'GlobalDatasource')), {
    enabled: ready,
  });
  const chosen = EXPLORERS.find((e) => e.id === params.get('explorer')) ?? EXPLORERS[0];
  const start = useExploreStart(
    project,
    dashboardName,
    queryable.data,
    EXPLORERS.map((e) => e.datasourceKind),
    chosen.id === PROMETHEUS_EXPLORER ? chosen.datasourceKind : undefined,
  );

  const switchProject = (p: string) => {
    // the query and time range stay; a dashboard of another project does not
    const next = new URLSearchParams(params);
    next.delete('dashboard');
    if (!p) rememberProject('');
    navigate(`${p ? `/projects/${enc(p)}` : ''}/explore?${next}`);
  };
  if (!datasourceApi || (dashboardName && dashboard.isLoading) || (start.waiting && !queryable.isError)) return <Loading />;
  if (dashboard.error) return <ErrorMessage error={dashboard.error} />;
  const dashboardResource = dashboard.data?.object as unknown as DashboardResource | undefined;

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', flexGrow: 1 }}>
      <PageHeader
        crumbs={[...(project ? [{ label: project, to: `/projects/${enc(project)}` }] : []), { label: 'Explore' }]}
        actions={
          <Stack direction="row" spacing={1} alignItems="center">
            {dashboardResource && (
              <Button size="small" component={RouterLink} to={`/projects/${enc(project!)}/dashboards/${enc(dashboardName!)}`}>
                Back to {displayName(dashboard.data!.object)}
              </Button>
            )}
            <TextField
              select
              size="small"
              label="Datasources of"
              value={project ?? ''}
              onChange={(e) => switchProject(e.target.value)}
              sx={{ minWidth: 220 }}
            >
              <MenuItem value="">
                <em>global datasources only</em>
              </MenuItem>
              {(projects.data ?? []).map((p) => (
                <MenuItem key={p.metadata.name} value={p.metadata.name}>
                  {displayName(p)}
                </MenuItem>
              ))}
            </TextField>
          </Stack>
        }
      />
      {start.hint && (
        <Alert severity="info" sx={{ mx: 3, mb: 1 }} data-testid="explore-hint">
          {start.hint}
        </Alert>
      )}
      <Box sx={{ flexGrow: 1, display: 'flex' }} data-testid="explore">
        <DatasourceStoreProvider
          datasourceApi={datasourceApi}
          {...(project !== undefined ? { projectName: project } : {})}
          {...(dashboardResource ? { dashboardResource } : {})}
          key={`${project}/${dashboardName}`}
        >
          <TimeRangeProviderWithQueryParams initialTimeRange={initialTimeRange} initialRefreshInterval={initialRefreshInterval}>
            <VariableProvider>
              <ExplorerManagerProviderWithQueryParams>
                <Explorer />
              </ExplorerManagerProviderWithQueryParams>
            </VariableProvider>
          </TimeRangeProviderWithQueryParams>
        </DatasourceStoreProvider>
      </Box>
    </Box>
  );
}

/**
 * The chosen explorer under a switch between them; bundled rather than what @perses-dev/explore
 * 0.52's ExploreManager renders (it loads explorers through module federation).
 */
function Explorer() {
  const { explorer, setExplorer } = useExplorerManagerContext();
  const current = EXPLORERS.find((e) => e.id === explorer) ?? EXPLORERS[0];
  const Chosen = current.component;
  return (
    <Stack sx={{ width: '100%' }} px={2} pb={2} pt={1.5} gap={1}>
      <ExploreToolbar
        exploreTitleComponent={
          <Stack direction="row" spacing={2} alignItems="center">
            <Typography variant="h2">{current.title}</Typography>
            <ToggleButtonGroup
              size="small"
              exclusive
              value={current.id}
              onChange={(_e, id: string | null) => id && setExplorer(id)}
              aria-label="explorer"
            >
              {EXPLORERS.map((e) => (
                <ToggleButton key={e.id} value={e.id}>
                  {e.label}
                </ToggleButton>
              ))}
            </ToggleButtonGroup>
          </Stack>
        }
      />
      <Suspense fallback={<Loading />}>
        <Chosen />
      </Suspense>
    </Stack>
  );
}
