import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { useEffect, useState } from 'react';
import { putResource, type Resource } from '../api';
import { ApiErrorAlert } from './ApiErrorAlert';
import { titleOf, withTitle, type KindUi } from './kinds';

/** Changes the display name (names are identifiers and never change); saves with If-Match. */
export function RenameDialog({ kind, resource, open, onClose, onSaved }: { kind: KindUi; resource: Resource; open: boolean; onClose(): void; onSaved(r: Resource): void }) {
  const [title, setTitle] = useState(titleOf(kind, resource) ?? '');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (open) {
      setTitle(titleOf(kind, resource) ?? '');
      setError(undefined);
    }
  }, [open, kind, resource]);
  const save = async () => {
    setBusy(true);
    try {
      const saved = await putResource(kind.plural, resource.metadata.project, resource.metadata.name, withTitle(kind, resource, title.trim()), `"${resource.metadata.version}"`);
      onSaved(saved.object);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="rename-dialog-title" maxWidth="xs" fullWidth>
      <DialogTitle id="rename-dialog-title">Rename “{resource.metadata.name}”</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <TextField
            label="Display name"
            size="small"
            autoFocus
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            onKeyDown={(e) => e.key === 'Enter' && void save()}
            helperText={`The name “${resource.metadata.name}” stays: links keep working.`}
          />
          <ApiErrorAlert error={error} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="contained" onClick={save} disabled={busy}>
          Rename
        </Button>
      </DialogActions>
    </Dialog>
  );
}
