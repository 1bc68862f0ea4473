import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** The chart libraries get a chunk of their own, named so that tests can tell when a page loads it. */
function manualChunks(id: string): string | undefined {
  if (/[\\/]node_modules[\\/](echarts|zrender)[\\/]/.test(id)) return 'echarts';
  return undefined;
}

/**
 * @perses-dev/dashboards 0.52's PanelActions declares its `OnHover` wrapper inside the render
 * function: a new component type on every render, so each render of a panel header unmounts and
 * mounts again everything in it (the header's three layouts of icon buttons, tooltips, and the
 * Explore action), and each new tooltip sets its state once more. A panel re-renders whenever a
 * variable, the time range or the URL changes, about 20 times while a dashboard loads: this was
 * most of the main thread's work before the first chart. The wrapper becomes one module-level
 * component (the same elements, the same DOM). The build fails if the code is not the expected
 * one (another Perses version): check whether the fix is still needed, then adapt or drop it.
 */
function persesPanelActionsOnHover(): Plugin {
  const FILE = /[\\/]@perses-dev[\\/]dashboards[\\/]dist[\\/]components[\\/]Panel[\\/]PanelActions\.js$/;
  const DECLARATION =
    / {4}const OnHover = \(\{ children \}\)=>showIcons === 'hover' \? \/\*#__PURE__\*\/ _jsx\(Box, \{\n\s*sx: \{\n\s*display: 'var\(--panel-hover, none\)'\n\s*\},\n\s*children: children\n\s*\}\) : \/\*#__PURE__\*\/ _jsx\(_Fragment, \{\n\s*children: children\n\s*\}\);\n/;
  const USE = '_jsxs(OnHover, {';
  return {
    name: 'dashplane:perses-panel-actions-on-hover',
    transform(code, id) {
      if (!FILE.test(id)) return undefined;
      const uses = code.split(USE).length - 1;
      if (!DECLARATION.test(code) || uses !== 5) this.error(`${id}: not the PanelActions of @perses-dev/dashboards 0.52 (OnHover declaration or its 5 uses not found)`);
      const fixed = code.replace(DECLARATION, '').replaceAll(USE, `${USE} showIcons: showIcons,`);
      return {
        code: `${fixed}\nconst ON_HOVER_SX = { display: 'var(--panel-hover, none)' };\nfunction OnHover({ children, showIcons }) {\n    return showIcons === 'hover' ? _jsx(Box, { sx: ON_HOVER_SX, children }) : _jsx(_Fragment, { children });\n}\n`,
        map: null,
      };
    },
  };
}

/**
 * @perses-dev/flame-chart-plugin 0.4's tooltip imports the whole of echarts (`import * as echarts
 * from 'echarts'`) for `echarts.format.addCommas`. Every echarts module goes to the `echarts`
 * chunk that all dashboards load, so that one import made it 86 KB larger (brotli) for every
 * dashboard, flame chart or not. `echarts/core` has the same `format` (and pulls in no chart).
 * The build fails if the import is not there (another version): check, then adapt or drop this.
 */
function flameChartEchartsCore(): Plugin {
  const FILE = /[\\/]@perses-dev[\\/]flame-chart-plugin[\\/]lib[\\/]utils[\\/]tooltip\.js$/;
  const IMPORT = "import * as echarts from 'echarts';";
  return {
    name: 'dashplane:flame-chart-echarts-core',
    transform(code, id) {
      if (!FILE.test(id)) return undefined;
      if (!code.includes(IMPORT)) this.error(`${id}: not the tooltip of @perses-dev/flame-chart-plugin 0.4 (${IMPORT} not found)`);
      return { code: code.replace(IMPORT, "import * as echarts from 'echarts/core';"), map: null };
    },
  };
}

/**
 * Rollup warnings about dependencies' code that say nothing about ours: mathjs (a Perses
 * dependency) places `#__PURE__` annotations where Rollup cannot use them, and Rollup says so for
 * each. Only these codes, and only inside node_modules, are dropped; every other warning is shown.
 */
const NOISE = new Set(['INVALID_ANNOTATION', 'MODULE_LEVEL_DIRECTIVE']);

// `global` is Node's name; @perses-dev/core calls global.fetch, which browsers only have as globalThis.fetch.
export default defineConfig({
  plugins: [react(), persesPanelActionsOnHover(), flameChartEchartsCore()],
  define: { global: 'globalThis' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 5000,
    reportCompressedSize: false,
    rollupOptions: {
      output: { manualChunks },
      onwarn(warning, warn) {
        const where = warning.id ?? warning.loc?.file ?? '';
        if (warning.code && NOISE.has(warning.code) && where.includes('node_modules')) return;
        warn(warning);
      },
    },
  },
  server: {
    // `npm run dev -w @dashplane/ui` against a server on 8080
    proxy: { '/api': 'http://127.0.0.1:8080', '/proxy': 'http://127.0.0.1:8080' },
  },
});
