import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { putResource, type Resource } from '../api';
import { ApiErrorAlert } from './ApiErrorAlert';
import { titleOf, withTitle, type KindUi } from '../kinds';

/** Changes the display name (names are identifiers and never change); saves with If-Match. */
export function RenameDialog({
  kind,
  resource,
  open,
  onClose,
  onSaved,
}: {
  kind: KindUi;
  resource: Resource;
  open: boolean;
  onClose(): void;
  onSaved(r: Resource): void;
}) {
  const [title, setTitle] = useState(titleOf(kind, resource) ?? '');
  const rename = useMutation(
    () =>
      putResource(
        kind.plural,
        resource.metadata.project,
        resource.metadata.name,
        withTitle(kind, resource, title.trim()),
        `"${resource.metadata.version}"`,
      ),
    {
      onSuccess: (saved) => onSaved(saved.object),
    },
  );
  const { reset } = rename;
  useEffect(() => {
    if (open) {
      setTitle(titleOf(kind, resource) ?? '');
      reset();
    }
  }, [open, kind, resource, reset]);
  const save = () => rename.mutate();
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
            onKeyDown={(e) => e.key === 'Enter' && save()}
            helperText={`The name “${resource.metadata.name}” stays: links keep working.`}
          />
          <ApiErrorAlert error={rename.error} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="contained" onClick={save} disabled={rename.isLoading}>
          Rename
        </Button>
      </DialogActions>
    </Dialog>
  );
}
