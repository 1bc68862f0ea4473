import { ChartsProvider, generateChartsTheme } from '@perses-dev/components';
import { PluginRegistry, ValidationProvider } from '@perses-dev/plugin-system';
import { useTheme } from '@mui/material';
import { type ReactNode, useMemo } from 'react';
import { defaultPluginKinds, pluginLoader } from '../plugins';

/**
 * What the Perses dashboard and explore components need around them: the charts theme (from the
 * current MUI theme, so it follows dark mode), the plugin registry and the edit-mode validation.
 * Only the pages that render Perses components load this module (and the chart libraries).
 */
export function PersesProviders({ children }: { children: ReactNode }) {
  const muiTheme = useTheme();
  const chartsTheme = useMemo(() => generateChartsTheme(muiTheme, {}), [muiTheme]);
  return (
    <ChartsProvider chartsTheme={chartsTheme}>
      <PluginRegistry pluginLoader={pluginLoader} defaultPluginKinds={defaultPluginKinds}>
        <ValidationProvider>{children}</ValidationProvider>
      </PluginRegistry>
    </ChartsProvider>
  );
}
