import { AppBar, Box, Button, Link, Toolbar, Typography } from '@mui/material';
import Magnify from 'mdi-material-ui/Magnify';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react';
import { Link as RouterLink, Navigate, Route, Routes, useLocation, useNavigate } from 'react-router-dom';
import { getConfig, logout, whoami, type PublicConfig } from './api';
import { useKioskEscape } from './kiosk';
import { onSessionEnded, onSignedOut } from './fetch-refresh';
import { SessionProvider, useCan } from './permissions';
import { ADMIN_KINDS } from './kinds';
import { maybeSignedIn, rememberSignIn } from './session';
import { ReauthDialog } from './ReauthDialog';
import { SignInPage } from './pages/SignInPage';
import { RoutePrefetch } from './route-prefetch';
import { SearchDialog, searchShortcutLabel } from './search/SearchDialog';
import { ThemeToggle } from './ThemeToggle';
import { ErrorMessage, Loading, useDocumentTitle } from './widgets';

// One chunk per page, loaded when its route is first shown: the sign-in, home and list pages
// never load the chart libraries that the dashboard page needs.
const DashboardPage = lazy(() => import('./pages/DashboardPage').then((m) => ({ default: m.DashboardPage })));
const EditorPage = lazy(() => import('./pages/EditorPage').then((m) => ({ default: m.EditorPage })));
const HistoryPage = lazy(() => import('./pages/HistoryPage').then((m) => ({ default: m.HistoryPage })));
const ProjectPage = lazy(() => import('./pages/ProjectPage').then((m) => ({ default: m.ProjectPage })));
const AdminPage = lazy(() => import('./pages/AdminPage').then((m) => ({ default: m.AdminPage })));
const AccessPage = lazy(() => import('./pages/AccessPage').then((m) => ({ default: m.AccessPage })));
const PlaylistPlayerPage = lazy(() => import('./pages/PlaylistPlayerPage').then((m) => ({ default: m.PlaylistPlayerPage })));
const ExplorePage = lazy(() => import('./pages/ExplorePage').then((m) => ({ default: m.ExplorePage })));
const HomePage = lazy(() => import('./pages/HomePage').then((m) => ({ default: m.HomePage })));
// the import page previews dashboards: it needs the Perses providers too
const ImportPage = lazy(() =>
  Promise.all([import('./pages/ImportPage'), import('./perses/PersesProviders')]).then(([page, perses]) => ({
    default: () => (
      <perses.PersesProviders>
        <page.ImportPage />
      </perses.PersesProviders>
    ),
  })),
);

export function App() {
  const config = useQuery(['config'], getConfig, { staleTime: Infinity });
  const authOn = config.data?.security?.enable_auth === true;
  // no session in sight: no call (its 401 would be a console error), straight to sign in
  const me = useQuery(['whoami'], whoami, {
    enabled: authOn && maybeSignedIn(),
    retry: false,
    staleTime: Infinity,
    onSuccess: () => rememberSignIn(true),
    onError: () => rememberSignIn(false),
  });
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();

  useEffect(
    () =>
      onSignedOut(() => {
        if (!authOn || window.location.pathname === '/signin') return;
        queryClient.removeQueries(['whoami']);
        navigate(`/signin?redirect=${encodeURIComponent(window.location.pathname + window.location.search)}`, { replace: true });
      }),
    [authOn, navigate, queryClient],
  );

  // a session that ends while signed in: sign in again over the page (the page and its edits stay)
  const [reauth, setReauth] = useState<{ done(signedIn: boolean): void }>();
  const user = me.data?.metadata.name;
  useEffect(() => {
    if (!authOn || !user) return undefined;
    return onSessionEnded(() => new Promise<boolean>((done) => setReauth({ done })));
  }, [authOn, user]);

  if (config.isLoading) return <Loading />;
  if (config.error || !config.data) return <ErrorMessage error={config.error} />;
  const signedIn = !authOn || me.data !== undefined;
  const here = location.pathname + location.search;

  return (
    <>
      <ReauthDialog
        open={reauth !== undefined}
        config={config.data}
        user={user}
        onDone={(signedIn) => {
          reauth?.done(signedIn);
          setReauth(undefined);
        }}
      />
      <Routes>
        <Route path="/signin" element={<SignInPage config={config.data} onSignedIn={() => me.refetch()} />} />
        <Route
          path="*"
          element={
            signedIn ? (
              <SessionProvider value={{ authOn, user: me.data?.metadata.name }}>
                <RoutePrefetch />
                <Layout config={config.data} user={me.data?.metadata.name}>
                  <Routes>
                    <Route path="/" element={<HomePage />} />
                    <Route path="/projects" element={<Navigate to="/" replace />} />
                    <Route path="/projects/:project" element={<ProjectPage />} />
                    <Route path="/import" element={<ImportPage />} />
                    <Route path="/projects/:project/import" element={<ImportPage />} />
                    <Route path="/projects/:project/:plural/:name" element={<DashboardPage />} />
                    <Route path="/projects/:project/playlists/:name/play" element={<PlaylistPlayerPage />} />
                    <Route path="/projects/:project/:plural/:name/history" element={<HistoryPage />} />
                    <Route path="/projects/:project/:plural/:name/edit" element={<EditorPage />} />
                    <Route path="/global/:plural/:name/edit" element={<EditorPage />} />
                    <Route path="/global/:plural/:name/history" element={<HistoryPage />} />
                    <Route path="/admin" element={<AdminPage />} />
                    <Route path="/admin/access" element={<AccessPage />} />
                    <Route path="/explore" element={<ExplorePage />} />
                    <Route path="/projects/:project/explore" element={<ExplorePage />} />
                    <Route path="*" element={<NotFound />} />
                  </Routes>
                </Layout>
              </SessionProvider>
            ) : me.isLoading && me.fetchStatus !== 'idle' ? (
              <Loading />
            ) : (
              <Navigate to={`/signin?redirect=${encodeURIComponent(here)}`} replace />
            )
          }
        />
      </Routes>
    </>
  );
}

function Layout({ config, user, children }: { config: PublicConfig; user?: string | undefined; children: ReactNode }) {
  const navigate = useNavigate();
  const [searching, setSearching] = useState(false);
  const queryClient = useQueryClient();
  // ?kiosk (wall screens): no app bar; Escape brings it back
  const kiosk = useKioskEscape();
  const signOut = async () => {
    try {
      rememberSignIn(false);
      await logout();
    } finally {
      queryClient.clear();
      navigate('/signin', { replace: true });
    }
  };
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', minHeight: '100vh' }}>
      <AppBar position="static" elevation={0} color="primary" {...(kiosk ? { sx: { display: 'none' } } : {})}>
        <Toolbar variant="dense" sx={{ gap: 2 }}>
          <Link component={RouterLink} to="/" color="inherit" underline="none" sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <img src="/favicon.svg" alt="" width={22} height={22} />
            <Typography variant="h6" component="span">
              dashplane
            </Typography>
          </Link>
          <Box sx={{ flexGrow: 1 }} />
          <Button color="inherit" size="small" component={RouterLink} to="/explore">
            Explore
          </Button>
          <AdminLink />
          <Button
            color="inherit"
            size="small"
            startIcon={<Magnify />}
            onClick={() => setSearching(true)}
            aria-keyshortcuts="Control+K Meta+K"
            sx={{ textTransform: 'none' }}
          >
            Search
            <Box component="kbd" sx={{ ml: 1, px: 0.5, border: 1, borderRadius: 0.5, fontSize: 11 }}>
              {searchShortcutLabel()}
            </Box>
          </Button>
          <SearchDialog open={searching} onOpenChange={setSearching} />
          <ThemeToggle />
          {config.security?.enable_auth && user && (
            <>
              <Typography variant="body2" data-testid="current-user">
                {user}
              </Typography>
              <Button color="inherit" size="small" onClick={signOut}>
                Sign out
              </Button>
            </>
          )}
        </Toolbar>
      </AppBar>
      <Box component="main" sx={{ flexGrow: 1, display: 'flex', flexDirection: 'column' }}>
        <Suspense fallback={<Loading />}>{children}</Suspense>
      </Box>
    </Box>
  );
}

function NotFound() {
  useDocumentTitle('Page not found');
  return (
    <Box sx={{ p: 3 }}>
      <Typography variant="h5" component="h1">
        Page not found
      </Typography>
      <Link component={RouterLink} to="/">
        Back to the projects
      </Link>
    </Box>
  );
}

/** "Admin" in the app bar, for users who may read some global kind. */
function AdminLink() {
  const { can } = useCan();
  if (!ADMIN_KINDS.some((k) => can('read', k))) return null;
  return (
    <Button color="inherit" size="small" component={RouterLink} to="/admin">
      Admin
    </Button>
  );
}
