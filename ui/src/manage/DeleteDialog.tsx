import {
  Alert,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { deleteResource, type Resource } from '../api';
import { ApiErrorAlert } from './ApiErrorAlert';
import { consequencesOf } from './consequences';
import { type KindUi, titleOf } from '../kinds';

/**
 * Asks before deleting, saying what goes with the object and what it breaks. A project (which
 * takes everything in it) needs its name typed. Deletes with If-Match on the version shown.
 */
export function DeleteDialog({
  kind,
  resource,
  open,
  onClose,
  onDeleted,
  before,
}: {
  kind: KindUi;
  resource: Resource;
  open: boolean;
  onClose(): void;
  onDeleted(): void;
  before?: (() => Promise<void>) | undefined;
}) {
  const c = useQuery(
    ['consequences', kind.kind, resource.metadata.project ?? '', resource.metadata.name, resource.metadata.version],
    () => consequencesOf(kind, resource),
    { enabled: open },
  );
  const [typed, setTyped] = useState('');
  const name = resource.metadata.name;
  // what users call it (a dashboard imported from Grafana is named by its uid, T512JVH7z)
  const title = titleOf(kind, resource);
  const needsTyping = kind.kind === 'Project';
  const remove = useMutation(
    async () => {
      await before?.();
      await deleteResource(kind.plural, resource.metadata.project, name, resource.metadata.version);
    },
    { onSuccess: onDeleted },
  );
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="delete-dialog-title" maxWidth="sm" fullWidth>
      <DialogTitle id="delete-dialog-title">
        Delete {kind.label} “{title ?? name}”{title && title !== name ? ` (${name})` : ''}?
      </DialogTitle>
      <DialogContent>
        <Stack spacing={1.5} data-testid="delete-consequences">
          {c.isLoading ? (
            <CircularProgress size={20} aria-label="working out what goes with it" />
          ) : (
            <>
              {c.data && c.data.removes.length > 0 && (
                <>
                  <DialogContentText>This also deletes:</DialogContentText>
                  <ul style={{ margin: 0 }}>
                    {c.data.removes.map((r) => (
                      <li key={r}>
                        <Typography variant="body2">{r}</Typography>
                      </li>
                    ))}
                  </ul>
                </>
              )}
              {c.data?.affects.map((a) => (
                <Alert key={a} severity="warning">
                  {a}
                </Alert>
              ))}
              <DialogContentText>
                {c.data?.restorable
                  ? `Its history is kept: you can bring it back from ${kind.scope === 'global' ? 'Administration → “Recently deleted”' : '“Recently deleted” in the project'}.`
                  : 'This cannot be undone.'}
              </DialogContentText>
            </>
          )}
          {needsTyping && (
            <TextField
              size="small"
              label={`Type “${name}” to confirm`}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              autoFocus
            />
          )}
          <ApiErrorAlert error={remove.error} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button
          color="error"
          variant="contained"
          onClick={() => remove.mutate()}
          disabled={remove.isLoading || c.isLoading || (needsTyping && typed !== name)}
        >
          Delete
        </Button>
      </DialogActions>
    </Dialog>
  );
}
