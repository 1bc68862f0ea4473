import { ErrorAlert } from '@perses-dev/components/dist/ErrorAlert.js';
import { ErrorBoundary } from '@perses-dev/components/dist/ErrorBoundary.js';
import { SnackbarProvider } from '@perses-dev/components/dist/context/SnackbarProvider.js';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { QueryParamProvider } from 'use-query-params';
import { ReactRouter6Adapter } from 'use-query-params/adapters/react-router-6';
import { App } from './App';
import { installFetchRefresh } from './fetch-refresh';
import { startRouteLoad } from './route-prefetch';
import { ThemeModeProvider } from './theme-mode';

installFetchRefresh();
startRouteLoad();

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { refetchOnWindowFocus: false, retry: (count, error) => count < 2 && !((error as { status?: number }).status! < 500) },
  },
});

function Root() {
  return (
    <BrowserRouter>
      <QueryParamProvider adapter={ReactRouter6Adapter}>
        <ThemeModeProvider>
          <SnackbarProvider anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }} variant="default">
            <QueryClientProvider client={queryClient}>
              <ErrorBoundary FallbackComponent={ErrorAlert}>
                <App />
              </ErrorBoundary>
            </QueryClientProvider>
          </SnackbarProvider>
        </ThemeModeProvider>
      </QueryParamProvider>
    </BrowserRouter>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
