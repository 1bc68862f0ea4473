import { ErrorAlert } from '@perses-dev/components/dist/ErrorAlert.js';
import { ErrorBoundary } from '@perses-dev/components/dist/ErrorBoundary.js';
import { SnackbarProvider } from '@perses-dev/components/dist/context/SnackbarProvider.js';
import { CssBaseline, ThemeProvider } from '@mui/material';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { QueryParamProvider } from 'use-query-params';
import { ReactRouter6Adapter } from 'use-query-params/adapters/react-router-6';
import { App } from './App';
import { installFetchRefresh } from './fetch-refresh';
import { getTheme } from './theme';

installFetchRefresh();

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { refetchOnWindowFocus: false, retry: (count, error) => count < 2 && !((error as { status?: number }).status! < 500) },
  },
});

function Root() {
  const muiTheme = useMemo(() => getTheme('light'), []);
  return (
    <BrowserRouter>
      <QueryParamProvider adapter={ReactRouter6Adapter}>
        <ThemeProvider theme={muiTheme}>
          <CssBaseline />
          <SnackbarProvider anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }} variant="default">
            <QueryClientProvider client={queryClient}>
              <ErrorBoundary FallbackComponent={ErrorAlert}>
                <App />
              </ErrorBoundary>
            </QueryClientProvider>
          </SnackbarProvider>
        </ThemeProvider>
      </QueryParamProvider>
    </BrowserRouter>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
