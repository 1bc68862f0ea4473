// The chunk ./edit-on-demand.tsx loads when a dashboard enters edit mode or opens its JSON dialog.
export {
  DashboardDiscardChangesConfirmationDialog,
  DeletePanelDialog,
  DeletePanelGroupDialog,
  EditJsonDialog,
  PanelDrawer,
  PanelGroupDialog,
} from '@perses-dev/dashboards';
