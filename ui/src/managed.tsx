import { Alert, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { listManagers, type VersionEntry } from './api';
import { timeAgo } from './widgets';

/** Field managers that write from a Git repository: their next apply replaces what is saved here. */
export const GIT_MANAGERS: ReadonlySet<string> = new Set(['dashctl']);

/**
 * Who wrote the current version and through what (GET .../managers: the first entry wrote it),
 * when that was a tool that applies from Git; else undefined.
 */
export function useManagedFromGit(plural: string, project: string | undefined, name: string, version: number | undefined): VersionEntry | undefined {
  const managers = useQuery(['managers', plural, project ?? '', name, version], () => listManagers(plural, project, name), { enabled: version !== undefined, staleTime: 10_000 });
  const last = managers.data?.find((m) => m.version === version);
  return last?.manager && GIT_MANAGERS.has(last.manager) ? last : undefined;
}

/** The banner over an object whose current version came from Git. */
export function ManagedBanner({ writer, what }: { writer: VersionEntry; what: string }) {
  return (
    <Alert severity="warning" sx={{ mx: 3, mb: 1 }} data-testid="managed-banner">
      Managed from Git by {writer.updatedBy ?? 'someone'} through {writer.manager} (version {writer.version}, {timeAgo(writer.updatedAt)}): a save here will be overwritten by the next forced apply (a
      plain apply stops on the conflict). Change {what} in its repository instead.
    </Alert>
  );
}

/**
 * A confirmation before changing a version that came from Git (`action`: saving it, or entering
 * Perses' edit mode, whose save cannot be cancelled once it starts): `confirm()` resolves true
 * when the user goes ahead. Render `dialog` once in the page.
 */
export function useConfirmOverwrite(writer: VersionEntry | undefined, what: string, action: 'save' | 'edit' = 'save') {
  const [open, setOpen] = useState(false);
  const resolver = useRef<(ok: boolean) => void>();
  const confirm = useCallback((): Promise<boolean> => {
    if (!writer) return Promise.resolve(true);
    setOpen(true);
    return new Promise<boolean>((resolve) => (resolver.current = resolve));
  }, [writer]);
  const answer = (ok: boolean) => {
    setOpen(false);
    resolver.current?.(ok);
    resolver.current = undefined;
  };
  const dialog = writer ? (
    <Dialog open={open} onClose={() => answer(false)} aria-labelledby="overwrite-title">
      <DialogTitle id="overwrite-title">{action === 'save' ? 'Save over the version from Git?' : 'Edit the version from Git?'}</DialogTitle>
      <DialogContent>
        <DialogContentText>
          {writer.updatedBy ?? 'Someone'} applied version {writer.version} of {what} through {writer.manager}. {action === 'edit' ? 'What you save' : 'Your save'} becomes the current version, but the
          repository does not have it: the next apply stops on the conflict, and a forced one replaces your change. Make the change in the repository to keep it.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={() => answer(false)} autoFocus>
          Cancel
        </Button>
        <Button color="warning" variant="contained" onClick={() => answer(true)}>
          {action === 'save' ? 'Save anyway' : 'Edit anyway'}
        </Button>
      </DialogActions>
    </Dialog>
  ) : null;
  return { confirm, dialog };
}
