import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField } from '@mui/material';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { copyOf, createResource, displayName, list, type Resource } from '../api';
import { useCan } from '../permissions';
import { ApiErrorAlert, nameProblem } from './ApiErrorAlert';
import { titleOf, withTitle, type KindUi } from '../kinds';

/** Copies an object under a new name, in the same project or another one the user may create it in. */
export function DuplicateDialog({
  kind,
  resource,
  open,
  onClose,
  onCreated,
}: {
  kind: KindUi;
  resource: Resource;
  open: boolean;
  onClose(): void;
  onCreated(r: Resource): void;
}) {
  const { can } = useCan();
  const projects = useQuery(['list', 'projects'], () => list('projects'), { enabled: open && kind.scope === 'project' });
  const targets = (projects.data ?? []).filter((p) => can('create', kind.kind, p.metadata.name));
  const [project, setProject] = useState(resource.metadata.project ?? '');
  const [name, setName] = useState('');
  const [title, setTitle] = useState('');
  const create = useMutation(
    () => {
      let copy = copyOf(resource, name, kind.scope === 'project' ? project : undefined);
      if (kind.displayPath && title) copy = withTitle(kind, copy, title);
      return createResource(kind.plural, kind.scope === 'project' ? project : undefined, copy);
    },
    { onSuccess: onCreated },
  );
  const { reset } = create;
  useEffect(() => {
    if (!open) return;
    setProject(resource.metadata.project ?? '');
    setName(`${resource.metadata.name}-copy`);
    const t = titleOf(kind, resource);
    setTitle(t ? `${t} (copy)` : '');
    reset();
  }, [open, kind, resource, reset]);
  const problem = nameProblem(name);
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="duplicate-dialog-title" maxWidth="xs" fullWidth>
      <DialogTitle id="duplicate-dialog-title">Duplicate “{resource.metadata.name}”</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {kind.scope === 'project' && (
            <TextField select size="small" label="Into project" value={project} onChange={(e) => setProject(e.target.value)}>
              {(targets.length ? targets : [{ metadata: { name: project }, spec: {}, kind: 'Project' } as Resource]).map((p) => (
                <MenuItem key={p.metadata.name} value={p.metadata.name}>
                  {displayName(p)}
                </MenuItem>
              ))}
            </TextField>
          )}
          <TextField
            size="small"
            label="New name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={problem !== undefined}
            helperText={problem}
          />
          {kind.displayPath && <TextField size="small" label="Display name" value={title} onChange={(e) => setTitle(e.target.value)} />}
          <ApiErrorAlert error={create.error} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button
          variant="contained"
          onClick={() => create.mutate()}
          disabled={create.isLoading || problem !== undefined || (!project && kind.scope === 'project')}
        >
          Duplicate
        </Button>
      </DialogActions>
    </Dialog>
  );
}
