import { ChartsProvider, generateChartsTheme } from '@perses-dev/components';
import { PluginRegistry, ValidationProvider } from '@perses-dev/plugin-system';
import { GlobalStyles, useTheme } from '@mui/material';
import { type ReactNode, useMemo } from 'react';
import { defaultPluginKinds, pluginLoader } from '../plugins';
import { PersesA11yStyles, usePersesA11y } from './a11y';

/**
 * Panels at most 80 px high (2 grid rows, the height of many stat panels migrated from Grafana)
 * get a compact header: under Perses' 47 px header a 2-row panel (70 px) had 21 px left, and the
 * stat chart drew its value at 16 px; under a 21 px header it is drawn at 35 px. Each grid item is a size container (its size is
 * set by the grid, never by its content), so the rule follows the height the panel is drawn at.
 */
const SHORT_PANELS = {
  '.react-grid-item': { containerType: 'size' },
  '@container (max-height: 80px)': {
    'section[data-testid="panel"] > header': { '--panel-header-height': '18px', paddingTop: '1px', paddingBottom: '1px' },
    'section[data-testid="panel"] > header .MuiTypography-subtitle1': { lineHeight: '18px', minHeight: '18px', fontSize: '0.8125rem' },
  },
} as const;

/**
 * What the Perses dashboard and explore components need around them: the charts theme (from the
 * current MUI theme, so it follows dark mode), the plugin registry, the edit-mode validation, the compact header of short panels,
 * and the accessibility fixes of the Perses components (./a11y).
 * Only the pages that render Perses components load this module (and the chart libraries).
 */
export function PersesProviders({ children }: { children: ReactNode }) {
  const muiTheme = useTheme();
  const chartsTheme = useMemo(() => generateChartsTheme(muiTheme, {}), [muiTheme]);
  usePersesA11y();
  return (
    <ChartsProvider chartsTheme={chartsTheme}>
      <GlobalStyles styles={SHORT_PANELS} />
      <PersesA11yStyles />
      <PluginRegistry pluginLoader={pluginLoader} defaultPluginKinds={defaultPluginKinds}>
        <ValidationProvider>{children}</ValidationProvider>
      </PluginRegistry>
    </ChartsProvider>
  );
}
