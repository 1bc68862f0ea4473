import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, Stack, TextField } from '@mui/material';
import { type FormEvent, useEffect, useState } from 'react';
import { login, type PublicConfig, signInOptions } from './api';

export interface ReauthDialogProps {
  open: boolean;
  config: PublicConfig;
  /** The user whose session ended: they sign in again as themselves (another user goes through the sign-in page). */
  user?: string | undefined;
  /** true once signed in again; false to leave for the sign-in page. */
  onDone(signedIn: boolean): void;
}

/**
 * Sign in again over the page when the session ended (a sign-out in another tab, an expired or
 * reused refresh token): the page stays as it is, unsaved edits included, and the calls that
 * found the session ended (a save) go on once signed in. An external provider's sign-in leaves
 * the page; what is being edited is kept in the tab (drafts.ts) and offered back on return.
 */
export function ReauthDialog({ open, config, user, onDone }: ReauthDialogProps) {
  const [password, setPassword] = useState('');
  const signIn = useMutation((name: string) => login(name, password), { onSuccess: () => onDone(true) });
  const { reset } = signIn;
  const error = (signIn.error as Error | null)?.message;
  const busy = signIn.isLoading;
  useEffect(() => {
    if (open) {
      setPassword('');
      reset();
    }
  }, [open, reset]);
  const { native, external } = signInOptions(config);
  const here = window.location.pathname + window.location.search;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (user) signIn.mutate(user);
  };

  return (
    <Dialog open={open} aria-labelledby="reauth-title" maxWidth="xs" fullWidth data-testid="reauth-dialog">
      <DialogTitle id="reauth-title">Your session ended</DialogTitle>
      <Stack component="form" onSubmit={submit}>
        <DialogContent>
          <DialogContentText sx={{ mb: 2 }}>
            Sign in again to carry on: this page stays as it is, with your unsaved changes, and what it was sending (a save) goes on once
            you are signed in.
          </DialogContentText>
          {error && (
            <Alert severity="error" sx={{ mb: 2 }} data-testid="reauth-error">
              {error}
            </Alert>
          )}
          <Stack spacing={2}>
            {native && user && (
              <>
                <TextField label="User name" size="small" value={user} InputProps={{ readOnly: true }} autoComplete="username" />
                <TextField
                  label="Password"
                  type="password"
                  size="small"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  autoComplete="current-password"
                  required
                  autoFocus
                />
              </>
            )}
            {external.map((p) => (
              <Button key={`${p.kind}/${p.slug_id}`} variant="outlined" href={p.login(here)}>
                Sign in with {p.name || p.slug_id}
              </Button>
            ))}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => onDone(false)} disabled={busy}>
            Go to the sign-in page
          </Button>
          {native && user && (
            <Button type="submit" variant="contained" disabled={busy || !password}>
              Sign in
            </Button>
          )}
        </DialogActions>
      </Stack>
    </Dialog>
  );
}
