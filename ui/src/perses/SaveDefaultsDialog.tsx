import { Checkbox, FormControlLabel, FormGroup, Typography } from '@mui/material';
import { Dialog } from '@perses-dev/components';
import { isRelativeTimeRange } from '@perses-dev/core';
import { useSaveChangesConfirmationDialog, useVariableDefinitions, useVariableDefinitionStates } from '@perses-dev/dashboards';
import { useTimeRange } from '@perses-dev/plugin-system';
import { useEffect, useRef, useState } from 'react';
import { changedVariables } from './variable-defaults';

/**
 * Perses' "Save Dashboard" question (Perses' Save button opens it when it finds the time range
 * or a variable changed), asked right: a box is offered only for what really differs from what
 * the dashboard opens with, and none is ticked until the user ticks it (Perses' dialog ticked
 * both from its first render, and counted every multi-value or default-less variable as changed).
 * When nothing differs after all, the dashboard is saved without asking.
 */
export function SaveDefaultsDialog() {
  const { saveChangesConfirmationDialog: dialog } = useSaveChangesConfirmationDialog();
  const { timeRange } = useTimeRange();
  const definitions = useVariableDefinitions();
  const states = useVariableDefinitionStates();
  const [saveTimeRange, setSaveTimeRange] = useState(false);
  const [saveVariables, setSaveVariables] = useState(false);
  const open = dialog !== undefined;
  const relative = isRelativeTimeRange(timeRange);
  const durationChanged = (dialog?.isSavedDurationModified ?? false) && relative;
  const changed = open ? changedVariables(definitions, (name) => states[name]) : [];
  const asked = useRef(false);
  useEffect(() => {
    if (!open) {
      asked.current = false;
      setSaveTimeRange(false);
      setSaveVariables(false);
      return;
    }
    // Perses thought something changed, and nothing did: save as the Save button meant
    if (!asked.current && !durationChanged && changed.length === 0) dialog.onSaveChanges(false, false);
    asked.current = true;
  }, [open, dialog, durationChanged, changed.length]);
  if (!open || (!durationChanged && changed.length === 0)) return null;
  return (
    <Dialog open>
      <Dialog.Header onClose={() => dialog.onCancel()}>Save Dashboard</Dialog.Header>
      <Dialog.Content>
        <Typography marginBottom={2}>
          {dialog.description || 'The time range or variable values differ from the saved defaults. Save them as the new defaults too?'}
        </Typography>
        <FormGroup>
          <FormControlLabel
            control={<Checkbox checked={saveTimeRange} disabled={!durationChanged} onChange={(e) => setSaveTimeRange(e.target.checked)} />}
            label={
              durationChanged && isRelativeTimeRange(timeRange)
                ? `Save the current time range as the new default (last ${timeRange.pastDuration})`
                : 'Save the current time range as the new default (unchanged)'
            }
          />
          <FormControlLabel
            control={
              <Checkbox checked={saveVariables} disabled={changed.length === 0} onChange={(e) => setSaveVariables(e.target.checked)} />
            }
            label={`Save the current variable values as the new defaults (${changed.length > 0 ? changed.join(', ') : 'none changed'})`}
          />
        </FormGroup>
      </Dialog.Content>
      <Dialog.Actions>
        <Dialog.PrimaryButton onClick={() => dialog.onSaveChanges(saveTimeRange && durationChanged, saveVariables && changed.length > 0)}>
          Save Changes
        </Dialog.PrimaryButton>
        <Dialog.SecondaryButton onClick={() => dialog.onCancel()}>Cancel</Dialog.SecondaryButton>
      </Dialog.Actions>
    </Dialog>
  );
}
