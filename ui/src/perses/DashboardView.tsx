import { Alert, Box, Stack, useMediaQuery, useTheme } from '@mui/material';
import { ChartsProvider, ErrorAlert, ErrorBoundary, useChartsTheme } from '@perses-dev/components';
import {
  DEFAULT_DASHBOARD_DURATION,
  DEFAULT_REFRESH_INTERVAL,
  type BuiltinVariableDefinition,
  type DashboardResource,
} from '@perses-dev/core';
import {
  Dashboard,
  DashboardStickyToolbar,
  DashboardToolbar,
  DatasourceStoreProvider,
  DownloadButton,
  EditJsonButton,
  useDashboard,
  useDiscardChangesConfirmationDialog,
  useEditMode,
  useSaveChangesConfirmationDialog,
  VariableProviderWithQueryParams,
  type ExternalVariableDefinition,
  type OnSaveDashboard,
  type PanelOptions,
} from '@perses-dev/dashboards';
// not exported from the package index in 0.52; the same module the package uses
import { DashboardProviderWithQueryParams } from '@perses-dev/dashboards/dist/context/DashboardProvider/DashboardProviderWithQueryParams.js';
import {
  TimeRangeControls,
  TimeRangeProviderWithQueryParams,
  useDatasourceStore,
  useInitialRefreshInterval,
  useInitialTimeRange,
  usePluginBuiltinVariableDefinitions,
} from '@perses-dev/plugin-system';
import { memo, type ReactNode, useMemo, useState } from 'react';
import type { CachingDatasourceApi } from '../datasource-api';
import { useDashboardDraft } from './dashboard-draft';
import { MissingDatasourceMessages } from './missing-datasources';
import { packGrid } from './grid-pack';
import { minimalEdit } from '../minimal-save';
// the edit-mode and JSON dialogs: their code is loaded when they are first shown
import {
  DashboardDiscardChangesConfirmationDialog,
  DeletePanelDialog,
  DeletePanelGroupDialog,
  EditJsonDialog,
  PanelDrawer,
  PanelGroupDialog,
} from './edit-on-demand';
import { SaveDefaultsDialog } from './SaveDefaultsDialog';

export interface DashboardViewProps {
  dashboardResource: DashboardResource;
  datasourceApi: CachingDatasourceApi;
  /** Open in edit mode (ignored when `mayEdit` is false). */
  isEditing: boolean;
  /**
   * Whether the user may save this dashboard (their permissions): without it there is no Edit
   * button and no edit mode, so nothing offers a save that would answer 403.
   */
  mayEdit: boolean;
  onSave: OnSaveDashboard;
  /** Actions on each panel's header in view mode (e.g. Explore). */
  panelOptions?: PanelOptions;
  /** Asked before edit mode starts; false keeps the view mode (e.g. a dashboard managed from Git). */
  confirmEdit?: () => Promise<boolean>;
  dashboardTitleComponent?: ReactNode;
  /**
   * Variables from outside the dashboard, one list per source, the first winning over the next
   * (the project's, then the global ones); a dashboard variable of the same name wins over all.
   * Read once, when the dashboard mounts.
   */
  externalVariableDefinitions?: ExternalVariableDefinition[];
}

/**
 * A Perses dashboard: what `ViewDashboard` and `DashboardApp` of @perses-dev/dashboards 0.52 do
 * (the same providers, toolbar, dialogs and edit mode), composed here because 0.52's
 * `ViewDashboard` passes no `panelOptions` to its panels, and dashplane adds an Explore action
 * to each of them.
 *
 * A memo component: the page around it re-renders on every URL change (Perses writes the time
 * range and the variables' values there while the dashboard loads) and on each of its own queries;
 * re-rendering every panel each time took most of the main thread's time of a first load.
 * Callers pass stable props (callbacks that keep their identity).
 */
export const DashboardView = memo(function DashboardView(props: DashboardViewProps) {
  const { dashboardResource } = props;
  const { spec } = dashboardResource;
  const initialTimeRange = useInitialTimeRange(spec.duration ?? DEFAULT_DASHBOARD_DURATION);
  const initialRefreshInterval = useInitialRefreshInterval(spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
  const { data: pluginBuiltins } = usePluginBuiltinVariableDefinitions();
  const builtins = useMemo<BuiltinVariableDefinition[]>(
    () => [
      builtin('__dashboard', 'The name of the current dashboard', () => dashboardResource.metadata.name),
      builtin('__project', 'The name of the current dashboard project', () => dashboardResource.metadata.project),
      ...(pluginBuiltins ?? []),
    ],
    [dashboardResource.metadata.name, dashboardResource.metadata.project, pluginBuiltins],
  );
  return (
    <DatasourceStoreProvider dashboardResource={dashboardResource} datasourceApi={props.datasourceApi}>
      <MissingDatasourceMessages api={props.datasourceApi} project={dashboardResource.metadata.project}>
        <DashboardProviderWithQueryParams initialState={{ isEditMode: props.isEditing && props.mayEdit, dashboardResource }}>
          <TimeRangeProviderWithQueryParams initialTimeRange={initialTimeRange} initialRefreshInterval={initialRefreshInterval}>
            <VariableProviderWithQueryParams
              initialVariableDefinitions={spec.variables}
              {...(props.externalVariableDefinitions ? { externalVariableDefinitions: props.externalVariableDefinitions } : {})}
              builtinVariableDefinitions={builtins}
            >
              <Box sx={{ display: 'flex', width: '100%', height: '100%', position: 'relative', overflow: 'hidden' }}>
                <ErrorBoundary FallbackComponent={ErrorAlert}>
                  <DashboardBody {...props} />
                </ErrorBoundary>
              </Box>
            </VariableProviderWithQueryParams>
          </TimeRangeProviderWithQueryParams>
        </DashboardProviderWithQueryParams>
      </MissingDatasourceMessages>
    </DatasourceStoreProvider>
  );
});

function builtin(name: string, description: string, value: () => string | undefined): BuiltinVariableDefinition {
  return {
    kind: 'BuiltinVariable',
    spec: { name, value: () => value() ?? '', source: 'Dashboard', display: { name, description, hidden: true } },
  };
}

/** `DashboardApp`: toolbar, the dashboard with its panels, and the edit-mode dialogs. */
function DashboardBody({
  dashboardResource,
  onSave,
  panelOptions,
  dashboardTitleComponent,
  confirmEdit,
  mayEdit,
}: Omit<DashboardViewProps, 'externalVariableDefinitions'>) {
  const chartsTheme = useChartsTheme();
  // panel actions always in the page, so that Tab reaches them; ./a11y hides them from the eye
  // until the panel is hovered or holds the focus, as Perses' 'hover' did for the mouse only
  const options = useMemo<PanelOptions>(() => ({ showIcons: 'always', ...panelOptions }), [panelOptions]);
  const { closeSaveChangesConfirmationDialog } = useSaveChangesConfirmationDialog();
  // Perses' Save button shows nothing when a save fails (e.g. permissions changed meanwhile): the
  // reason is shown here, the edit mode and its changes stay
  const [saveError, setSaveError] = useState<string>();
  const { dashboard, setDashboard } = useDashboard();
  // Perses' own form of the version shown, before any edit: a save stores only what differs from it
  const [loaded] = useState(() => JSON.parse(JSON.stringify(dashboard)) as typeof dashboard);
  const [original, setOriginal] = useState<typeof dashboard>();
  // the edit is kept in the tab until saved or discarded, and offered back when the page opens again
  const draft = useDashboardDraft(dashboardResource, loaded as DashboardResource, confirmEdit, () => setOriginal(loaded));
  const save: OnSaveDashboard = async (entity) => {
    setSaveError(undefined);
    draft.forget();
    try {
      return await onSave(minimalEdit(dashboardResource, loaded, entity, packGrid));
    } catch (e) {
      draft.keep();
      setSaveError((e as Error).message);
      closeSaveChangesConfirmationDialog();
      throw e;
    }
  };
  const { isEditMode, setEditMode } = useEditMode();
  const { setSavedDatasources } = useDatasourceStore();
  const { openDiscardChangesConfirmationDialog, closeDiscardChangesConfirmationDialog } = useDiscardChangesConfirmationDialog();
  const onEditButtonClick = async () => {
    if (confirmEdit && !(await confirmEdit())) return;
    setEditMode(true);
    setOriginal(dashboard);
    setSavedDatasources(dashboard.spec.datasources ?? {});
  };
  const onCancelButtonClick = () => {
    setSaveError(undefined);
    if (JSON.stringify(dashboard) === JSON.stringify(original)) {
      setEditMode(false);
      return;
    }
    openDiscardChangesConfirmationDialog({
      onDiscardChanges: () => {
        draft.forget();
        if (original) setDashboard(original);
        setEditMode(false);
        closeDiscardChangesConfirmationDialog();
      },
      onCancel: () => closeDiscardChangesConfirmationDialog(),
    });
  };
  return (
    <Box sx={{ flexGrow: 1, overflowX: 'hidden', overflowY: 'auto', display: 'flex', flexDirection: 'column' }}>
      {mayEdit ? (
        <DashboardToolbar
          dashboardName={dashboardResource.metadata.name}
          dashboardTitleComponent={dashboardTitleComponent}
          onSave={save}
          isReadonly={false}
          isVariableEnabled
          isDatasourceEnabled
          onEditButtonClick={onEditButtonClick}
          onCancelButtonClick={onCancelButtonClick}
        />
      ) : (
        <ViewOnlyToolbar dashboardTitleComponent={dashboardTitleComponent} />
      )}
      {draft.banner}
      {saveError !== undefined && (
        <Alert severity="error" sx={{ mx: 2, mt: 1 }} onClose={() => setSaveError(undefined)} data-testid="save-error">
          Not saved: {saveError}
        </Alert>
      )}
      <Box sx={{ paddingTop: 2, paddingX: 2, height: '100%' }}>
        <ErrorBoundary FallbackComponent={ErrorAlert}>
          <Dashboard emptyDashboardProps={mayEdit ? { onEditButtonClick } : {}} panelOptions={options} />
        </ErrorBoundary>
        <ChartsProvider chartsTheme={chartsTheme} enablePinning={false} enableSyncGrouping={false}>
          <PanelDrawer />
        </ChartsProvider>
        <PanelGroupDialog />
        <DeletePanelGroupDialog />
        <DeletePanelDialog />
        <DashboardDiscardChangesConfirmationDialog />
        <EditJsonDialog isReadonly={!isEditMode} disableMetadataEdition />
        <SaveDefaultsDialog />
      </Box>
    </Box>
  );
}

/**
 * `DashboardToolbar` in view mode for a user who may not save the dashboard: the same variables,
 * time range, download and JSON view, without the Edit button (Perses' `isReadonly` keeps it).
 */
function ViewOnlyToolbar({ dashboardTitleComponent }: { dashboardTitleComponent?: ReactNode }) {
  const isBiggerThanMd = useMediaQuery(useTheme().breakpoints.up('md'));
  return (
    <Stack data-testid="dashboard-toolbar">
      {dashboardTitleComponent && <Box sx={{ px: 2, py: 1.5, display: 'flex' }}>{dashboardTitleComponent}</Box>}
      <Box
        sx={{
          display: 'flex',
          width: '100%',
          alignItems: 'start',
          padding: (theme) => theme.spacing(1, 2, 0, 2),
          flexDirection: isBiggerThanMd ? 'row' : 'column',
          flexWrap: 'nowrap',
          gap: 1,
        }}
      >
        <Box width="100%">
          <ErrorBoundary FallbackComponent={ErrorAlert}>
            <DashboardStickyToolbar sx={{ backgroundColor: ({ palette }) => palette.background.default }} />
          </ErrorBoundary>
        </Box>
        <Stack direction="row" ml="auto" flexWrap="wrap" justifyContent="end">
          <Stack direction="row" spacing={1} mt={1} ml={1}>
            <TimeRangeControls />
            <DownloadButton />
            <EditJsonButton isReadonly />
          </Stack>
        </Stack>
      </Box>
    </Stack>
  );
}
