import { Alert, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { listManagers, type VersionEntry } from './api';
import { timeAgo } from './widgets';

/**
 * Field managers that write from files kept elsewhere, and what a save here meets: dashctl
 * applying from Git (its next apply stops on the conflict), and the server's provisioning from
 * folders and Git repositories (it stops updating the object and reports the conflict).
 */
const WORDING: Record<
  string,
  {
    banner(w: VersionEntry, what: string): string;
    title: (action: 'save' | 'edit') => string;
    dialog(w: VersionEntry, what: string, yours: string): string;
  }
> = {
  dashctl: {
    banner: (w, what) =>
      `Managed from Git by ${w.updatedBy ?? 'someone'} through ${w.manager} (version ${w.version}, ${timeAgo(w.updatedAt)}): a save here will be overwritten by the next forced apply (a plain apply stops on the conflict). Change ${what} in its repository instead.`,
    title: (action) => (action === 'save' ? 'Save over the version from Git?' : 'Edit the version from Git?'),
    dialog: (w, what, yours) =>
      `${w.updatedBy ?? 'Someone'} applied version ${w.version} of ${what} through ${w.manager}. ${yours} becomes the current version, but the repository does not have it: the next apply stops on the conflict, and a forced one replaces your change. Make the change in the repository to keep it.`,
  },
  provisioning: {
    banner: (w, what) =>
      `Provisioned by the server from its provisioning files (version ${w.version}, ${timeAgo(w.updatedAt)}): a save here is kept, but provisioning then stops updating ${what} and reports the conflict until its file holds the same change. Change ${what} in its provisioning file instead.`,
    title: (action) => (action === 'save' ? 'Save over the provisioned version?' : 'Edit the provisioned version?'),
    dialog: (w, what, yours) =>
      `The server provisioned version ${w.version} of ${what} from a file. ${yours} becomes the current version, but the file does not have it: provisioning stops updating ${what} and reports the conflict until the file holds your change (deleting ${what} brings back the file's version). Make the change in the file to keep it.`,
  },
};

/** Field managers that write from files kept elsewhere (a save here conflicts with their next write). */
export const GIT_MANAGERS: ReadonlySet<string> = new Set(Object.keys(WORDING));

/**
 * Who wrote the current version and through what (GET .../managers: the first entry wrote it),
 * when that was a tool that applies from Git; else undefined.
 */
export function useManagedFromGit(
  plural: string,
  project: string | undefined,
  name: string,
  version: number | undefined,
): VersionEntry | undefined {
  const managers = useQuery(['managers', plural, project ?? '', name, version], () => listManagers(plural, project, name), {
    enabled: version !== undefined,
    staleTime: 10_000,
  });
  const last = managers.data?.find((m) => m.version === version);
  return last?.manager && GIT_MANAGERS.has(last.manager) ? last : undefined;
}

/** The banner over an object whose current version came from Git or provisioning. */
export function ManagedBanner({ writer, what }: { writer: VersionEntry; what: string }) {
  return (
    <Alert severity="warning" sx={{ mx: 3, mb: 1 }} data-testid="managed-banner">
      {WORDING[writer.manager ?? '']?.banner(writer, what)}
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
  const words = writer ? WORDING[writer.manager ?? ''] : undefined;
  const dialog = writer ? (
    <Dialog open={open} onClose={() => answer(false)} aria-labelledby="overwrite-title">
      <DialogTitle id="overwrite-title">{words?.title(action)}</DialogTitle>
      <DialogContent>
        <DialogContentText>{words?.dialog(writer, what, action === 'edit' ? 'What you save' : 'Your save')}</DialogContentText>
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
