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
      if (!DECLARATION.test(code) || uses !== 5)
        this.error(`${id}: not the PanelActions of @perses-dev/dashboards 0.52 (OnHover declaration or its 5 uses not found)`);
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
 * @perses-dev/dashboards 0.52's download button serializes the dashboard with the `yaml` package
 * (for its YAML choices), imported with the button: every dashboard loaded the YAML library to
 * draw a toolbar icon. The serializer becomes a chunk loaded when a format is picked (the file
 * is made once it arrives). The build fails if the code is not the expected one (another Perses
 * version): check whether this is still needed, then adapt or drop it.
 */
function persesDownloadOnDemand(): Plugin {
  const FILE = /[\\/]@perses-dev[\\/]dashboards[\\/]dist[\\/]components[\\/]DownloadButton[\\/]DownloadButton\.js$/;
  const IMPORT = "import { serializeDashboard } from './serializeDashboard';\n";
  const HANDLER = 'const handleItemClick = (format, shape)=>()=>{';
  const CALL = 'const { contentType, content } = serializeDashboard(dashboard, format, shape);';
  return {
    name: 'dashplane:perses-download-on-demand',
    apply: 'build',
    transform(code, id) {
      if (!FILE.test(id)) return undefined;
      if (!code.includes(IMPORT) || !code.includes(HANDLER) || !code.includes(CALL))
        this.error(
          `${id}: not the DownloadButton of @perses-dev/dashboards 0.52 (serializeDashboard import, click handler or call not found)`,
        );
      const fixed = code
        .replace(IMPORT, '')
        .replace(HANDLER, 'const handleItemClick = (format, shape)=>async ()=>{')
        .replace(
          CALL,
          "const { contentType, content } = (await import('./serializeDashboard')).serializeDashboard(dashboard, format, shape);",
        );
      return { code: fixed, map: null };
    },
  };
}

/**
 * `import { toUpper } from 'lodash'` (@perses-dev/core's currency units, two plugins) brings the
 * whole of lodash (CommonJS, which Rollup cannot tree-shake) into the dashboard page: about 70 KB
 * minified for one function. Each named import becomes the import of that function's own module
 * (`lodash/toUpper`), as the other Perses modules already write it.
 */
function lodashPerMethod(): Plugin {
  const IMPORT = /^import \{([^}]*)\} from 'lodash';$/gm;
  return {
    name: 'dashplane:lodash-per-method',
    transform(code, id) {
      if (!code.includes("from 'lodash';")) return undefined;
      const out = code.replace(IMPORT, (_all, names: string) =>
        names
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean)
          .map((n) => {
            const [name, local = name] = n.split(/\s+as\s+/);
            if (!/^\w+$/.test(name) || !/^\w+$/.test(local)) this.error(`${id}: cannot rewrite the lodash import of ${n}`);
            return `import ${local} from 'lodash/${name}.js';`;
          })
          .join('\n'),
      );
      return out === code ? undefined : { code: out, map: null };
    },
  };
}

/**
 * @perses-dev/core 0.52 builds a mathjs instance for one function, `gcd` (the common step of a
 * panel's series): mathjs' typed functions with decimal.js, complex.js and fraction.js, about
 * 100 KB minified, evaluated (the instance built) on every dashboard load. The module becomes
 * mathjs' own algorithm for numbers (Euclid's, integers only, the same error otherwise). The build
 * fails if the module is not the expected one (another Perses version): check, then adapt or drop.
 */
function persesGcdWithoutMathjs(): Plugin {
  const FILE = /[\\/]@perses-dev[\\/]core[\\/]dist[\\/]utils[\\/]mathjs\.js$/;
  const EXPECTED =
    /^import \{ gcdDependencies, create \} from 'mathjs';$[\s\S]*const \{ gcd \} = create\(\{\s*gcdDependencies\s*\}\);\s*export \{ gcd \};/m;
  return {
    name: 'dashplane:perses-gcd-without-mathjs',
    transform(code, id) {
      if (!FILE.test(id)) return undefined;
      if (!EXPECTED.test(code)) this.error(`${id}: not the mathjs module of @perses-dev/core 0.52 (create({ gcdDependencies }) not found)`);
      return {
        code: `function gcd2(a, b) {
  if (!Number.isInteger(a) || !Number.isInteger(b)) throw new Error('Parameters in function gcd must be integer numbers');
  while (b !== 0) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a < 0 ? -a : a;
}
export function gcd(...values) {
  return values.reduce(gcd2);
}
`,
        map: null,
      };
    },
  };
}

/**
 * An import of React components that only editing shows, made lazy: `import { A, B } from './x'`
 * becomes components of the same names that load './x' (a chunk of its own) when first rendered,
 * inside a Suspense boundary of their own that shows nothing meanwhile. Perses' plugins name
 * their option editors in the plugin object (`OptionsEditorComponent`), so viewing a dashboard
 * imported the PromQL editor (CodeMirror), the panels' settings forms and the date pickers with
 * the panels. The other names of the same import stay static. The build fails when the import
 * is not found as written (another Perses version): check it, then adapt or drop the rule.
 */
interface LazyImport {
  /** the importing module (node_modules path, / as separator) */
  file: string;
  from: string;
  names: string[];
  /**
   * The module import() loads, when `from` is an index that also re-exports what viewing uses
   * (a module imported both ways stays in the static chunk, whole): the module defining the names.
   */
  load?: string;
}

const LAZY_IMPORTS: LazyImport[] = [
  // the time range picker's custom range calendar (@mui/x-date-pickers, date-fns): shown when "custom" is picked
  {
    file: '@perses-dev/components/dist/TimeRangeSelector/TimeRangeSelector.js',
    from: './DateTimeRangePicker',
    names: ['DateTimeRangePicker'],
  },
  // the edit-mode toolbar's variable and datasource editors
  {
    file: '@perses-dev/dashboards/dist/components/DashboardToolbar/DashboardToolbar.js',
    from: '../Variables',
    names: ['EditVariablesButton'],
    load: '../Variables/EditVariablesButton',
  },
  {
    file: '@perses-dev/dashboards/dist/components/DashboardToolbar/DashboardToolbar.js',
    from: '../Datasources',
    names: ['EditDatasourcesButton'],
    load: '../Datasources/EditDatasourcesButton',
  },
  {
    file: '@perses-dev/dashboards/dist/components/EmptyDashboard/EmptyDashboard.js',
    from: '../Variables',
    names: ['EditVariablesButton'],
    load: '../Variables/EditVariablesButton',
  },
  // the plugins' option editors (the PromQL editor is CodeMirror); the Prometheus variables' editors
  // share a module with what the variables need to run, so it is the PromQL editor in them that waits
  {
    file: '@perses-dev/prometheus-plugin/lib/plugins/prometheus-time-series-query/PrometheusTimeSeriesQuery.js',
    from: './PrometheusTimeSeriesQueryEditor',
    names: ['PrometheusTimeSeriesQueryEditor'],
  },
  {
    file: '@perses-dev/prometheus-plugin/lib/plugins/prometheus-datasource.js',
    from: './PrometheusDatasourceEditor',
    names: ['PrometheusDatasourceEditor'],
  },
  {
    file: '@perses-dev/prometheus-plugin/lib/plugins/prometheus-variables.js',
    from: '../components',
    names: ['PromQLEditor'],
    load: '../components/PromQLEditor',
  },
  {
    file: '@perses-dev/loki-plugin/lib/datasources/loki-datasource/LokiDatasource.js',
    from: './LokiDatasourceEditor',
    names: ['LokiDatasourceEditor'],
  },
  { file: '@perses-dev/tempo-plugin/lib/plugins/tempo-datasource.js', from: './TempoDatasourceEditor', names: ['TempoDatasourceEditor'] },
  {
    file: '@perses-dev/pyroscope-plugin/lib/plugins/pyroscope-datasource.js',
    from: './PyroscopeDatasourceEditor',
    names: ['PyroscopeDatasourceEditor'],
  },
  {
    file: '@perses-dev/timeseries-chart-plugin/lib/TimeSeriesChart.js',
    from: './GeneralSettingsEditor',
    names: ['TimeSeriesChartGeneralSettings'],
  },
  { file: '@perses-dev/timeseries-chart-plugin/lib/TimeSeriesChart.js', from: './QuerySettingsEditor', names: ['QuerySettingsEditor'] },
  { file: '@perses-dev/stat-chart-plugin/lib/StatChart.js', from: './StatChartValueMappingEditor', names: ['StatChartValueMappingEditor'] },
  {
    file: '@perses-dev/stat-chart-plugin/lib/StatChart.js',
    from: './StatChartOptionsEditorSettings',
    names: ['StatChartOptionsEditorSettings'],
  },
  {
    file: '@perses-dev/gauge-chart-plugin/lib/GaugeChart.js',
    from: './GaugeChartOptionsEditorSettings',
    names: ['GaugeChartOptionsEditorSettings'],
  },
  {
    file: '@perses-dev/bar-chart-plugin/lib/BarChart.js',
    from: './BarChartOptionsEditorSettings',
    names: ['BarChartOptionsEditorSettings'],
  },
  {
    file: '@perses-dev/pie-chart-plugin/lib/PieChart.js',
    from: './PieChartOptionsEditorSettings',
    names: ['PieChartOptionsEditorSettings'],
  },
  {
    file: '@perses-dev/status-history-chart-plugin/lib/StatusHistoryChart.js',
    from: './StatusHistoryChartOptionsEditorSettings',
    names: ['StatusHistoryChartOptionsEditorSettings'],
  },
  {
    file: '@perses-dev/status-history-chart-plugin/lib/StatusHistoryChart.js',
    from: './StatusHistoryValueMappingEditor',
    names: ['StatusHistoryValueMappingEditor'],
  },
  {
    file: '@perses-dev/heatmap-chart-plugin/lib/HeatMapChart.js',
    from: './components',
    names: ['HeatMapChartOptionsEditorSettings'],
    load: './components/HeatMapChartOptionsEditorSettings',
  },
  {
    file: '@perses-dev/histogram-chart-plugin/lib/HistogramChart.js',
    from: './components',
    names: ['HistogramChartOptionsEditorSettings'],
    load: './components/HistogramChartOptionsEditorSettings',
  },
  { file: '@perses-dev/markdown-plugin/lib/Markdown.js', from: './MarkdownPanelOptionsEditor', names: ['MarkdownPanelOptionsEditor'] },
  // the Markdown panel itself (marked, DOMPurify): only dashboards with a Markdown panel load it
  { file: '@perses-dev/markdown-plugin/lib/Markdown.js', from: './MarkdownPanel', names: ['MarkdownPanel'] },
  { file: '@perses-dev/table-plugin/lib/Table.js', from: './TableColumnsEditor', names: ['TableColumnsEditor'] },
  { file: '@perses-dev/table-plugin/lib/Table.js', from: './TableSettingsEditor', names: ['TableSettingsEditor'] },
  { file: '@perses-dev/table-plugin/lib/Table.js', from: './TableCellsEditor', names: ['TableCellsEditor'] },
  { file: '@perses-dev/table-plugin/lib/Table.js', from: './TableTransformsEditor', names: ['TableTransformsEditor'] },
];

function lazyImports(rules: LazyImport[]): Plugin {
  const byFile = new Map<string, LazyImport[]>();
  for (const r of rules) byFile.set(`/node_modules/${r.file}`, [...(byFile.get(`/node_modules/${r.file}`) ?? []), r]);
  const seen = new Set<string>();
  return {
    name: 'dashplane:lazy-imports',
    apply: 'build',
    transform(code, id) {
      const path = id.split('?')[0].replaceAll('\\', '/');
      const file = [...byFile.keys()].find((f) => path.endsWith(f));
      if (!file) return undefined;
      seen.add(file);
      let out = code;
      let defs = "import { lazy as __lazy, Suspense as __Suspense, createElement as __h } from 'react';\n";
      byFile.get(file)!.forEach((rule, i) => {
        const statement = new RegExp(`^import \\{([^}]*)\\} from '${rule.from.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}';$`, 'm');
        const m = statement.exec(out);
        const imported = m
          ? m[1]
              .split(',')
              .map((n) => n.trim())
              .filter(Boolean)
          : [];
        const missing = rule.names.filter((n) => !imported.includes(n));
        if (!m || missing.length)
          this.error(
            `${id}: no \`import { ${rule.names.join(', ')} } from '${rule.from}'\` (another version?): check whether the lazy import is still right, then adapt or drop the rule`,
          );
        const kept = imported.filter((n) => !rule.names.includes(n));
        out = out.replace(statement, kept.length ? `import { ${kept.join(', ')} } from '${rule.from}';` : '');
        defs += `const __module${i} = () => import('${rule.load ?? rule.from}');\n`;
        for (const name of rule.names) {
          defs += `const __Lazy${name} = __lazy(() => __module${i}().then((m) => ({ default: m.${name} })));\n`;
          defs += `function ${name}(props) { return __h(__Suspense, { fallback: null }, __h(__Lazy${name}, props)); }\n`;
        }
      });
      return { code: `${defs}${out}`, map: null };
    },
    buildEnd(error) {
      if (error) return;
      // a rule whose module the build never saw is a rule for code that is gone
      const unused = [...byFile.keys()].filter((f) => !seen.has(f));
      if (unused.length) this.error(`lazy import rules for modules the build did not load: ${unused.join(', ')}`);
    },
  };
}

/**
 * Perses' packages that do not say `"sideEffects": false` in their package.json (@perses-dev/components
 * and the plugin packages) have none: their modules only declare components, functions and
 * constants (the chart modules' `use([...])` calls register what the module itself draws with).
 * Saying so lets Rollup drop the modules nobody imports from their index files: the dashboard
 * page imported `@perses-dev/components`' index and got every module behind it, CodeMirror and
 * the YAML, date picker and form libraries included. The fonts' CSS they import keeps its side
 * effects (only .js modules are matched).
 */
function persesSideEffects(id: string): boolean | undefined {
  if (/[\\/]node_modules[\\/]@perses-dev[\\/][^\\/]+[\\/](dist|lib)[\\/].*\.js$/.test(id)) return false;
  return undefined;
}

/**
 * Rollup warnings about dependencies' code that say nothing about ours: mathjs (a Perses
 * dependency) places `#__PURE__` annotations where Rollup cannot use them, and Rollup says so for
 * each. Only these codes, and only inside node_modules, are dropped; every other warning is shown.
 */
const NOISE = new Set(['INVALID_ANNOTATION', 'MODULE_LEVEL_DIRECTIVE']);

// `global` is Node's name; @perses-dev/core calls global.fetch, which browsers only have as globalThis.fetch.
export default defineConfig({
  plugins: [
    react(),
    persesPanelActionsOnHover(),
    flameChartEchartsCore(),
    lazyImports(LAZY_IMPORTS),
    persesDownloadOnDemand(),
    lodashPerMethod(),
    persesGcdWithoutMathjs(),
  ],
  define: { global: 'globalThis' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 5000,
    reportCompressedSize: false,
    rollupOptions: {
      output: { manualChunks },
      treeshake: { moduleSideEffects: (id) => persesSideEffects(id) ?? true },
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
