import { Alert, Box, Button, Snackbar, Stack, Typography } from '@mui/material';
import { DEFAULT_DASHBOARD_DURATION, DEFAULT_REFRESH_INTERVAL, type DashboardResource } from '@perses-dev/core';
import type { PanelExtraProps } from '@perses-dev/dashboards';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Link as RouterLink, useLocation, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { type ApiError, displayName, getResource, putResource, type Resource } from '../api';
import { kindByPlural } from '../kinds';
import { RowActions } from '../manage/RowActions';
import { StarButton } from '../StarButton';
import { ManagedBanner, useConfirmOverwrite, useManagedFromGit } from '../managed';
import { recordView } from '../profile-api';
import { useDatasourceApi } from '../datasource-api';
import { useCan } from '../permissions';
import { DashboardView } from '../perses/DashboardView';
import { useExternalVariables } from '../perses/external-variables';
import { ExploreAction } from '../perses/ExploreAction';
import { PersesProviders } from '../perses/PersesProviders';
import { useKiosk } from '../kiosk';
import { KIOSK_SX, ShareActions } from '../share/ShareActions';
import { watchObject } from '../watch';
import { ErrorMessage, Loading, PageHeader } from '../widgets';

/** Perses' dashboard title is not shown: the page header has the dashboard's name. */
const NO_TITLE = <span />;

/**
 * A callback that keeps its identity across renders and calls the latest `fn`: the Perses
 * dashboard (a memo component) then re-renders only when the dashboard itself changes, not on
 * every render of this page (its queries, its notices, every URL change).
 */
function useStableCallback<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const latest = useRef(fn);
  latest.current = fn;
  return useCallback((...args: A) => latest.current(...args), []);
}

/**
 * A dashboard rendered by the Perses dashboard components (time range, refresh, variables, rows, panel
 * view), with the time range and variables in the URL. It follows the dashboard's watch stream:
 * when someone saves a new version, the page shows it and says so.
 */
export function DashboardPage() {
  return (
    <PersesProviders>
      <Dashboard />
    </PersesProviders>
  );
}

function Dashboard() {
  const { project = '', plural = 'dashboards', name = '' } = useParams();
  const key = useMemo(() => ['resource', plural, project, name], [plural, project, name]);
  const queryClient = useQueryClient();
  const dashboard = useQuery(key, () => getResource(plural, project, name));
  const datasourceApi = useDatasourceApi(`${project}/${name}`);
  // each panel's header gets an Explore button (its queries, the variables' values, the time range)
  const panelOptions = useMemo(
    () => ({ extra: (p: PanelExtraProps) => <ExploreAction {...p} project={project} dashboard={plural === 'dashboards' ? name : ''} /> }),
    [project, name, plural],
  );
  // the project's and the global variables, as Perses shows them (wait for them: Perses reads them once)
  const externalVariables = useExternalVariables(project);
  const location = useLocation();
  const navigate = useNavigate();
  const kiosk = useKiosk();
  // ?edit=true: the version first shown opens in Perses' edit mode (a new dashboard, to add its
  // first panel). Every later version (the one a save made, which can arrive by the watch stream
  // before the save's answer, or someone else's) opens in view mode.
  const [params, setParams] = useSearchParams();
  const editOnOpen = useRef<boolean | number>(params.get('edit') === 'true');
  if (editOnOpen.current === true && dashboard.data) editOnOpen.current = dashboard.data.object.metadata.version ?? 0;
  // what the user may do (GET /api/v1/users/{me}/permissions): a viewer gets no Edit, no edit mode
  const { can, ready: permissionsKnown } = useCan();
  const mayEdit = (plural === 'dashboards' || plural === 'ephemeraldashboards') && can('update', kindByPlural(plural).kind, project, name);
  const restored = (location.state as { restored?: number } | null)?.restored;
  const [notice, setNotice] = useState<string | undefined>(
    restored !== undefined ? `Restored: this is now version ${restored}.` : undefined,
  );
  // versions this page saved itself: their watch events are not news
  const ownSaves = useRef(new Set<number>());

  useEffect(
    () =>
      watchObject(plural, project, name, (event) => {
        const current = queryClient.getQueryData<{ object: Resource }>(key);
        if (event.type === 'DELETED') {
          setNotice('This dashboard was deleted.');
          return;
        }
        const next = event.object!;
        if (current && (next.metadata.version ?? 0) <= (current.object.metadata.version ?? 0)) return;
        queryClient.setQueryData(key, { object: next, etag: `"${next.metadata.version}"` });
        if (current && !ownSaves.current.has(next.metadata.version ?? -1))
          setNotice(`Someone saved a new version: now showing version ${next.metadata.version}.`);
      }),
    [plural, project, name, key, queryClient],
  );

  // the user's recently viewed list (server-side, so it follows them to other browsers)
  const kind = dashboard.data?.object.kind;
  useEffect(() => {
    if (!kind) return;
    recordView({ kind, project, name })
      .then(() => queryClient.invalidateQueries(['profile']))
      .catch(() => undefined); // a view that cannot be recorded does not stop the page
  }, [kind, project, name, queryClient]);

  // a version applied from Git: say so, and ask before saving over it
  const fromGit = useManagedFromGit(plural, project, name, dashboard.data?.object.metadata.version);
  // Perses' save cannot be called off once it runs (a rejected save is an uncaught error): ask on entering edit mode
  const overwrite = useConfirmOverwrite(fromGit, 'this dashboard', 'edit');
  const confirmEdit = useStableCallback(overwrite.confirm);

  // Perses writes the dashboard's time range and refresh interval into the URL (start, refresh)
  // once the dashboard has rendered, when the URL has none: a change that makes it compute the
  // time range anew, so every panel and variable rendered again and asked for its data twice.
  // The same values, put there before the dashboard first renders, leave it nothing to write.
  // (Once shown, the dashboard stays: a later URL without them is Perses' business, as before.)
  const spec = (dashboard.data?.object as unknown as DashboardResource | undefined)?.spec;
  const timeInUrl = !!params.get('start') && !!params.get('refresh');
  const [timeSetFor, setTimeSetFor] = useState<string>();
  const timeReady = timeInUrl || timeSetFor === key.join('/');
  const locationState: unknown = location.state;
  useLayoutEffect(() => {
    if (!spec || timeSetFor === key.join('/')) return;
    if (!timeInUrl) {
      const next = new URLSearchParams(window.location.search);
      if (!next.get('start')) next.set('start', spec.duration ?? DEFAULT_DASHBOARD_DURATION);
      if (!next.get('refresh')) next.set('refresh', spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
      setParams(next, { replace: true, state: locationState });
    }
    setTimeSetFor(key.join('/'));
  }, [spec, key, timeSetFor, timeInUrl, setParams, locationState]);
  // Perses' own edit mode (panels, variables, datasources) saves here, with If-Match
  const onSave = useStableCallback(async (entity: unknown) => {
    const etag = dashboard.data?.etag;
    try {
      const saved = await putResource(plural, project, name, entity, etag);
      ownSaves.current.add(saved.object.metadata.version ?? -1);
      if (params.get('edit') !== null) {
        // the saved version re-mounts the dashboard in view mode: the URL says so too
        const next = new URLSearchParams(window.location.search);
        next.delete('edit');
        setParams(next, { replace: true });
      }
      const unchanged = saved.object.metadata.version === dashboard.data?.object.metadata.version;
      queryClient.setQueryData(key, saved);
      setNotice(
        unchanged
          ? `Nothing changed: version ${saved.object.metadata.version} stays as it was.`
          : `Saved: version ${saved.object.metadata.version}.`,
      );
      return saved.object;
    } catch (e) {
      if ((e as ApiError).status === 412)
        throw new Error('Someone else saved this dashboard first: reload the page to see their version, then apply your change again.');
      throw e;
    }
  });

  if (plural !== 'dashboards' && plural !== 'ephemeraldashboards')
    return <ErrorMessage error={new Error(`${plural} cannot be viewed as a dashboard`)} />;
  if (dashboard.isLoading) return <Loading />;
  if (dashboard.error || !dashboard.data) return <ErrorMessage error={dashboard.error} />;
  const resource = dashboard.data.object as unknown as DashboardResource;
  const base = `/projects/${encodeURIComponent(project)}/${plural}/${encodeURIComponent(name)}`;

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', flexGrow: 1, ...(kiosk ? KIOSK_SX : {}) }}>
      <PageHeader
        crumbs={[
          { label: project, to: `/projects/${encodeURIComponent(project)}${plural === 'dashboards' ? '' : `?tab=${plural}`}` },
          { label: displayName(dashboard.data.object) },
        ]}
        actions={
          <Stack direction="row" spacing={1} alignItems="center">
            <StarButton target={{ kind: resource.kind, project, name }} />
            <ShareActions dashboard={resource} />
            <Typography variant="caption" color="text.secondary" data-testid="dashboard-version">
              version {resource.metadata.version}
            </Typography>
            {plural === 'dashboards' && (
              <Button size="small" component={RouterLink} to={`${base}/history`}>
                History
              </Button>
            )}
            <Button size="small" component={RouterLink} to={`${base}/edit`} data-testid="edit-json-link">
              {mayEdit ? 'Edit JSON/YAML' : 'View JSON/YAML'}
            </Button>
            <RowActions
              kind={kindByPlural(plural)}
              resource={dashboard.data.object}
              onDeleted={() => navigate(`/projects/${encodeURIComponent(project)}`, { replace: true })}
            />
          </Stack>
        }
      />
      {fromGit && <ManagedBanner writer={fromGit} what="this dashboard" />}
      {overwrite.dialog}
      <Box sx={{ flexGrow: 1, display: 'flex', flexDirection: 'column' }} data-testid="dashboard">
        {externalVariables.failures.length > 0 && (
          <Alert severity="warning" sx={{ mx: 2, mt: 1 }} data-testid="external-variables-error">
            Shown without the {externalVariables.failures.join('; ')}
          </Alert>
        )}
        {!timeReady || !permissionsKnown || !datasourceApi || !externalVariables.definitions ? (
          <Loading />
        ) : (
          <DashboardView
            // a new version is a new dashboard for the Perses providers; time range and variables stay in the URL
            key={`${resource.metadata.version}`}
            dashboardResource={resource}
            datasourceApi={datasourceApi}
            onSave={onSave}
            isEditing={editOnOpen.current === resource.metadata.version}
            mayEdit={mayEdit}
            panelOptions={panelOptions}
            confirmEdit={confirmEdit}
            dashboardTitleComponent={NO_TITLE}
            externalVariableDefinitions={externalVariables.definitions}
          />
        )}
      </Box>
      <Snackbar
        open={notice !== undefined}
        autoHideDuration={8000}
        onClose={() => setNotice(undefined)}
        anchorOrigin={{ vertical: 'top', horizontal: 'center' }}
      >
        <Alert severity="info" onClose={() => setNotice(undefined)} data-testid="update-notice">
          {notice}
        </Alert>
      </Snackbar>
    </Box>
  );
}
