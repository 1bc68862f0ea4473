import { useMutation } from '@tanstack/react-query';
import { Alert, Box, Button, Divider, Link, Paper, Stack, TextField, Typography } from '@mui/material';
import { type FormEvent, useState } from 'react';
import { Navigate, useSearchParams } from 'react-router-dom';
import { login, type PublicConfig, signInOptions, signUp } from '../api';
import { useDocumentTitle } from '../widgets';

/** Only same-site paths: never send the user to another origin after sign-in. */
function safeRedirect(value: string | null): string {
  return value && /^\/(?![/\\])/.test(value) && !value.startsWith('/signin') ? value : '/';
}

export function SignInPage({ config, onSignedIn }: { config: PublicConfig; onSignedIn: () => Promise<unknown> }) {
  const [params] = useSearchParams();
  const redirect = safeRedirect(params.get('redirect'));
  const [mode, setMode] = useState<'signin' | 'signup'>('signin');
  useDocumentTitle(mode === 'signin' ? 'Sign in' : 'Create an account');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const signIn = useMutation(
    async () => {
      if (mode === 'signup') await signUp(name, password);
      await login(name, password);
      await onSignedIn();
    },
    { onSuccess: () => setDone(true) },
  );
  const error = (signIn.error as Error | null)?.message;

  const auth = config.security?.authentication;
  const { native, external } = signInOptions(config);
  const signUpAllowed = native && auth?.disable_sign_up !== true;

  if (!config.security?.enable_auth || done) return <Navigate to={redirect} replace />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate();
  };

  return (
    <Box
      component="main"
      sx={{
        display: 'flex',
        justifyContent: 'center',
        alignItems: 'flex-start',
        minHeight: '100vh',
        pt: 10,
        bgcolor: 'background.default',
      }}
    >
      <Paper sx={{ p: 4, width: 380 }} elevation={2}>
        <Stack spacing={2}>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <img src="/favicon.svg" alt="" width={28} height={28} />
            <Typography variant="h5" component="h1">
              {mode === 'signin' ? 'Sign in to dashplane' : 'Create an account'}
            </Typography>
          </Box>
          {error && (
            <Alert severity="error" data-testid="signin-error">
              {error}
            </Alert>
          )}
          {native && (
            <Box component="form" onSubmit={submit}>
              <Stack spacing={2}>
                <TextField
                  label="User name"
                  name="username"
                  autoComplete="username"
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                  required
                  autoFocus
                />
                <TextField
                  label="Password"
                  name="password"
                  type="password"
                  autoComplete={mode === 'signin' ? 'current-password' : 'new-password'}
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  required
                />
                <Button type="submit" variant="contained" disabled={signIn.isLoading}>
                  {mode === 'signin' ? 'Sign in' : 'Sign up'}
                </Button>
              </Stack>
            </Box>
          )}
          {external.length > 0 && native && <Divider>or</Divider>}
          {external.map((p) => (
            <Button key={`${p.kind}/${p.slug_id}`} variant="outlined" href={p.login(redirect)}>
              Sign in with {p.name || p.slug_id}
            </Button>
          ))}
          {signUpAllowed && (
            <Typography variant="body2">
              {mode === 'signin' ? 'No account yet? ' : 'Already have an account? '}
              <Link
                component="button"
                type="button"
                onClick={() => {
                  signIn.reset(); // the other form's message does not belong here
                  setMode(mode === 'signin' ? 'signup' : 'signin');
                }}
              >
                {mode === 'signin' ? 'Sign up' : 'Sign in'}
              </Link>
            </Typography>
          )}
        </Stack>
      </Paper>
    </Box>
  );
}
