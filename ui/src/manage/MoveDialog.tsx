import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField } from '@mui/material';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { putResource, type Resource } from '../api';
import { ApiErrorAlert } from './ApiErrorAlert';
import { locations, whereIs, withDashboard, withoutDashboard, type FolderSpec } from './folders';

const NONE = '';
const keyOf = (folder: string, path: string[]) => JSON.stringify([folder, ...path]);

/** Moves a dashboard to a folder (or out of every folder): the folders it leaves and the one it joins are saved with If-Match. */
export function MoveDialog({
  dashboard,
  folders,
  open,
  onClose,
  onMoved,
}: {
  dashboard: Resource;
  folders: Resource[];
  open: boolean;
  onClose(): void;
  onMoved(): void;
}) {
  const name = dashboard.metadata.name;
  const project = dashboard.metadata.project!;
  const current = whereIs(folders, name)[0];
  const [target, setTarget] = useState(NONE);
  const move = useMutation(
    async () => {
      const [folder, ...path]: (string | undefined)[] = target === NONE ? [undefined] : (JSON.parse(target) as string[]);
      for (const f of folders) {
        let spec = f.spec as FolderSpec;
        const had = whereIs([f], name).length > 0;
        if (had) spec = withoutDashboard(spec, name);
        if (f.metadata.name === folder) spec = withDashboard(spec, path as string[], name);
        if (had || f.metadata.name === folder)
          await putResource('folders', project, f.metadata.name, { ...f, spec }, `"${f.metadata.version}"`);
      }
    },
    { onSuccess: onMoved },
  );
  useEffect(() => {
    if (open) {
      setTarget(current ? keyOf(current.folder, current.path) : NONE);
      move.reset();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  // "Move" to where it already is (no folder chosen for a dashboard in none) would close and do nothing
  const unchanged = target === (current ? keyOf(current.folder, current.path) : NONE);
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="move-dialog-title" maxWidth="xs" fullWidth>
      <DialogTitle id="move-dialog-title">Move “{name}” to a folder</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <TextField
            select
            size="small"
            label="Folder"
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            helperText={
              unchanged
                ? current
                  ? `It is in ${current.label}: choose another folder, or “No folder” to take it out.`
                  : 'It is in no folder: choose the folder to move it to.'
                : undefined
            }
          >
            <MenuItem value={NONE}>
              <em>No folder</em>
            </MenuItem>
            {locations(folders).map((l) => (
              <MenuItem key={keyOf(l.folder, l.path)} value={keyOf(l.folder, l.path)}>
                {l.label}
              </MenuItem>
            ))}
          </TextField>
          <ApiErrorAlert error={move.error} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="contained" onClick={() => move.mutate()} disabled={move.isLoading || unchanged}>
          Move
        </Button>
      </DialogActions>
    </Dialog>
  );
}
