import { Alert, Button } from '@mui/material';
import type { DashboardResource } from '@perses-dev/core';
import { useDashboard, useEditMode } from '@perses-dev/dashboards';
import { useDatasourceStore } from '@perses-dev/plugin-system';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { draftKey, draftWords, dropDraft, keepDraft, readDraft } from '../drafts';
import { useSession } from '../permissions';
import { timeAgo } from '../widgets';
import { packGrid } from './grid-pack';
import { changedPaths, minimalEdit, sameJson } from '../minimal-save';

/** An edit of a dashboard in Perses' editor: Perses' form of the version it started from, and the edit. */
interface DashboardEdit {
  loaded: DashboardResource;
  edited: DashboardResource;
}

export interface DashboardDraft {
  /** Above the dashboard: unsaved changes kept from an earlier visit, with Restore and Discard. */
  banner: ReactNode;
  /** The edit is being saved or was discarded: forget it. */
  forget(): void;
  /** The save failed: keep the edit again. */
  keep(): void;
}

/**
 * The unsaved edit of a dashboard, kept in the tab while Perses' edit mode has one (drafts.ts),
 * and offered back when the dashboard opens again: after a sign-in the session's end led to, a
 * reload, or a newer version that replaced the page. Restoring an edit made to an older version
 * applies it on top of the current one (the same three-way merge as a save) and names what both
 * changed: the edit wins there.
 */
export function useDashboardDraft(
  resource: DashboardResource,
  loaded: DashboardResource,
  confirmEdit: (() => Promise<boolean>) | undefined,
  onRestored: () => void,
): DashboardDraft {
  const { user } = useSession();
  const key = draftKey('dashboard', resource.kind, resource.metadata.project, resource.metadata.name);
  const version = resource.metadata.version ?? 0;
  const { isEditMode, setEditMode } = useEditMode();
  const { dashboard, setDashboard } = useDashboard();
  const { setSavedDatasources } = useDatasourceStore();
  const [offer, setOffer] = useState(() => readDraft<DashboardEdit>(key, user));
  const paused = useRef(false);

  const text = isEditMode ? JSON.stringify(dashboard) : undefined;
  useEffect(() => {
    if (text === undefined) {
      paused.current = false;
      return;
    }
    if (paused.current) return;
    const edited = JSON.parse(text) as DashboardResource;
    // an edit in place of what the grid packed away is no edit
    if (sameJson(minimalEdit(resource, loaded, edited, packGrid), resource)) return;
    keepDraft<DashboardEdit>(key, { loaded, edited }, version, user);
  }, [text, key, version, user, resource, loaded]);

  const conflicts =
    offer && offer.version !== version
      ? overlap(changedPaths(offer.value.loaded, loaded), changedPaths(offer.value.loaded, offer.value.edited))
      : [];
  const restore = async () => {
    if (!offer || (confirmEdit && !(await confirmEdit()))) return;
    const edited = offer.version === version ? offer.value.edited : minimalEdit(loaded, offer.value.loaded, offer.value.edited, packGrid);
    setEditMode(true);
    setSavedDatasources(dashboard.spec.datasources ?? {});
    setDashboard({ ...edited, metadata: loaded.metadata });
    onRestored();
    setOffer(undefined);
  };
  const discard = () => {
    dropDraft(key);
    setOffer(undefined);
  };
  const banner = offer && !isEditMode && (
    <Alert
      severity="warning"
      sx={{ mx: 2, mt: 1 }}
      data-testid="draft-offer"
      action={
        <>
          <Button color="inherit" size="small" onClick={() => void restore()}>
            Restore
          </Button>
          <Button color="inherit" size="small" onClick={discard}>
            Discard
          </Button>
        </>
      }
    >
      {draftWords(offer, version, timeAgo)}
      {offer.version !== version &&
        (conflicts.length
          ? ` Restoring applies them to version ${version}; both changed ${conflicts.slice(0, 3).join(', ')}${conflicts.length > 3 ? '…' : ''}: your changes win there.`
          : ` Restoring applies them to version ${version}; none of them changes what was saved since.`)}
    </Alert>
  );
  return {
    banner,
    forget: () => {
      paused.current = true;
      dropDraft(key);
    },
    keep: () => {
      paused.current = false;
      keepDraft<DashboardEdit>(key, { loaded, edited: JSON.parse(JSON.stringify(dashboard)) }, version, user);
    },
  };
}

/** Paths in both lists, or under one another. */
function overlap(a: string[], b: string[]): string[] {
  const under = (x: string, y: string) => x === y || x.startsWith(`${y}.`) || x.startsWith(`${y}[`);
  return a.filter((x) => b.some((y) => under(x, y) || under(y, x)));
}
