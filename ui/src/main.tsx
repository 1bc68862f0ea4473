import { ChartsProvider, ErrorAlert, ErrorBoundary, generateChartsTheme, getTheme, SnackbarProvider } from '@perses-dev/components';
import { PluginRegistry, ValidationProvider } from '@perses-dev/plugin-system';
import { CssBaseline, ThemeProvider } from '@mui/material';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { QueryParamProvider } from 'use-query-params';
import { ReactRouter6Adapter } from 'use-query-params/adapters/react-router-6';
import { App } from './App';
import { installFetchRefresh } from './fetch-refresh';
import { defaultPluginKinds, pluginLoader } from './plugins';

installFetchRefresh();

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { refetchOnWindowFocus: false, retry: (count, error) => count < 2 && !((error as { status?: number }).status! < 500) },
  },
});

function Root() {
  const muiTheme = useMemo(() => getTheme('light'), []);
  const chartsTheme = useMemo(() => generateChartsTheme(muiTheme, {}), [muiTheme]);
  return (
    <BrowserRouter>
      <QueryParamProvider adapter={ReactRouter6Adapter}>
        <ThemeProvider theme={muiTheme}>
          <CssBaseline />
          <ChartsProvider chartsTheme={chartsTheme}>
            <SnackbarProvider anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }} variant="default">
              <QueryClientProvider client={queryClient}>
                <ErrorBoundary FallbackComponent={ErrorAlert}>
                  <PluginRegistry pluginLoader={pluginLoader} defaultPluginKinds={defaultPluginKinds}>
                    <ValidationProvider>
                      <App />
                    </ValidationProvider>
                  </PluginRegistry>
                </ErrorBoundary>
              </QueryClientProvider>
            </SnackbarProvider>
          </ChartsProvider>
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
