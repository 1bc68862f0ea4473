import { Box } from '@mui/material';
import { DEFAULT_DASHBOARD_DURATION, DEFAULT_REFRESH_INTERVAL, type DashboardResource } from '@perses-dev/core';
import { useQuery } from '@tanstack/react-query';
import { useLayoutEffect } from 'react';
import { useSearchParams } from 'react-router-dom';
import { getResource } from '../api';
import { useDatasourceApi } from '../datasource-api';
import { useCan } from '../permissions';
import { DashboardView } from '../perses/DashboardView';
import { useExternalVariables } from '../perses/external-variables';
import { ErrorMessage, Loading } from '../widgets';

const NO_TITLE = <span />;
const neverSaved = () => Promise.reject(new Error('a played dashboard is not edited'));

/**
 * One dashboard of a playlist, as its page draws it (the project's and the global variables, the
 * Perses components) without the page's chrome or its toolbar: read-only, at its own time range
 * and refresh interval. The player gives each dashboard a URL without parameters; the time range
 * is put there before the dashboard first renders, as the dashboard page does (Perses would
 * write it after, and every panel would ask for its data twice).
 */
export function PlayedDashboard({ project, name }: { project: string; name: string }) {
  const dashboard = useQuery(['resource', 'dashboards', project, name], () => getResource<DashboardResource>('dashboards', project, name));
  const datasourceApi = useDatasourceApi(`${project}/${name}`);
  const externalVariables = useExternalVariables(project);
  const { ready } = useCan();
  const [params, setParams] = useSearchParams();
  const spec = dashboard.data?.object.spec;
  const timeInUrl = params.has('start');
  useLayoutEffect(() => {
    if (!spec || timeInUrl) return;
    const next = new URLSearchParams(window.location.search);
    next.set('start', spec.duration ?? DEFAULT_DASHBOARD_DURATION);
    next.set('refresh', spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
    setParams(next, { replace: true });
  }, [spec, timeInUrl, setParams]);

  if (dashboard.error) return <ErrorMessage error={dashboard.error} />;
  if (!dashboard.data || !timeInUrl || !ready || !datasourceApi || !externalVariables.definitions) return <Loading />;
  return (
    // the player is the chrome: Perses' toolbar (time range, variables) is not shown
    <Box
      sx={{ flexGrow: 1, display: 'flex', flexDirection: 'column', '& [data-testid="dashboard-toolbar"]': { display: 'none' } }}
      data-testid="played-dashboard"
      data-name={name}
    >
      <DashboardView
        dashboardResource={dashboard.data.object}
        datasourceApi={datasourceApi}
        onSave={neverSaved}
        isEditing={false}
        mayEdit={false}
        dashboardTitleComponent={NO_TITLE}
        externalVariableDefinitions={externalVariables.definitions}
      />
    </Box>
  );
}
