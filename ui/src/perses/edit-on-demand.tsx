import { useEditJsonDialog, useEditMode } from '@perses-dev/dashboards';
import { type ComponentType, lazy, type ReactNode, Suspense } from 'react';

/**
 * The dashboard's edit-mode dialogs (panel editor, group and delete dialogs, discard question) and
 * its JSON dialog, under the names and props of @perses-dev/dashboards' own, loaded on demand: a
 * dashboard shown to be looked at never loads their code (the panel and variable editors, the
 * plugins' option editors, CodeMirror). Each renders nothing and loads nothing until it can show
 * something: the edit dialogs once the dashboard is in edit mode, the JSON dialog once opened.
 * The chunk is one (./dashboard-editing), so entering edit mode is one request.
 */
const editing = () => import('./dashboard-editing');

function onDemand<P extends object>(pick: (m: Awaited<ReturnType<typeof editing>>) => (props: P) => ReactNode, useShown: () => boolean) {
  const Lazy = lazy(() => editing().then((m) => ({ default: pick(m) }))) as unknown as ComponentType<P>;
  return function OnDemand(props: P) {
    if (!useShown()) return null;
    return (
      <Suspense fallback={null}>
        <Lazy {...props} />
      </Suspense>
    );
  };
}

const useInEditMode = () => useEditMode().isEditMode;
const useJsonDialogOpen = () => !!useEditJsonDialog().editJsonDialog?.isOpen;

export const PanelDrawer = onDemand((m) => m.PanelDrawer, useInEditMode);
export const PanelGroupDialog = onDemand((m) => m.PanelGroupDialog, useInEditMode);
export const DeletePanelGroupDialog = onDemand((m) => m.DeletePanelGroupDialog, useInEditMode);
export const DeletePanelDialog = onDemand((m) => m.DeletePanelDialog, useInEditMode);
export const DashboardDiscardChangesConfirmationDialog = onDemand((m) => m.DashboardDiscardChangesConfirmationDialog, useInEditMode);
export const EditJsonDialog = onDemand((m) => m.EditJsonDialog, useJsonDialogOpen);
