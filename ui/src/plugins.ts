import * as barChart from '@perses-dev/bar-chart-plugin/package.json';
import { BarChart } from '@perses-dev/bar-chart-plugin';
import * as datasourceVariable from '@perses-dev/datasource-variable-plugin/package.json';
import { DatasourceVariable } from '@perses-dev/datasource-variable-plugin';
import * as flameChart from '@perses-dev/flame-chart-plugin/package.json';
import * as gaugeChart from '@perses-dev/gauge-chart-plugin/package.json';
import { GaugeChart } from '@perses-dev/gauge-chart-plugin';
import * as heatmapChart from '@perses-dev/heatmap-chart-plugin/package.json';
import { HeatMapChart } from '@perses-dev/heatmap-chart-plugin';
import * as histogramChart from '@perses-dev/histogram-chart-plugin/package.json';
import { HistogramChart } from '@perses-dev/histogram-chart-plugin';
import * as lokiDatasource from '@perses-dev/loki-plugin/lib/datasources/loki-datasource/LokiDatasource';
import * as loki from '@perses-dev/loki-plugin/package.json';
import * as markdown from '@perses-dev/markdown-plugin/package.json';
import { Markdown } from '@perses-dev/markdown-plugin';
import * as pieChart from '@perses-dev/pie-chart-plugin/package.json';
import { PieChart } from '@perses-dev/pie-chart-plugin';
import { dynamicImportPluginLoader, type PluginModuleResource } from '@perses-dev/plugin-system';
import * as prometheus from '@perses-dev/prometheus-plugin/package.json';
import {
  PrometheusDatasource,
  PrometheusLabelNamesVariable,
  PrometheusLabelValuesVariable,
  PrometheusPromQLVariable,
  PrometheusTimeSeriesQuery,
} from '@perses-dev/prometheus-plugin';
import { withDatasourceVariable } from './perses/datasource-variables';
import lokiVariables from './perses/loki-variables.module.json';
import * as pyroscopeDatasource from '@perses-dev/pyroscope-plugin/lib/plugins/pyroscope-datasource';
import * as pyroscope from '@perses-dev/pyroscope-plugin/package.json';
import * as scatterChart from '@perses-dev/scatter-chart-plugin/package.json';
import { ScatterChart } from '@perses-dev/scatter-chart-plugin';
import * as statChart from '@perses-dev/stat-chart-plugin/package.json';
import { StatChart } from '@perses-dev/stat-chart-plugin';
import * as staticListVariable from '@perses-dev/static-list-variable-plugin/package.json';
import { StaticListVariable } from '@perses-dev/static-list-variable-plugin';
import * as statusHistoryChart from '@perses-dev/status-history-chart-plugin/package.json';
import { StatusHistoryChart } from '@perses-dev/status-history-chart-plugin';
import * as table from '@perses-dev/table-plugin/package.json';
import { Table } from '@perses-dev/table-plugin';
import * as tempoDatasource from '@perses-dev/tempo-plugin/lib/plugins/tempo-datasource';
import * as tempo from '@perses-dev/tempo-plugin/package.json';
import * as timeseriesChart from '@perses-dev/timeseries-chart-plugin/package.json';
import { TimeSeriesChart } from '@perses-dev/timeseries-chart-plugin';
import * as timeseriesTable from '@perses-dev/timeseries-table-plugin/package.json';
import { TimeSeriesTable } from '@perses-dev/timeseries-table-plugin';
import * as traceTable from '@perses-dev/trace-table-plugin/package.json';
import * as tracingGanttChart from '@perses-dev/tracing-gantt-chart-plugin/package.json';

type Loadable = { resource: PluginModuleResource; importPlugin: () => Promise<Record<string, never>> };

/**
 * Plugins in the UI's Perses chunk: Prometheus and the charts, which nearly every dashboard uses
 * (a dynamic import each would only add a round trip before the first panel: measured with
 * bench/p9-ui.ts, docs/performance.md). Named one by one, not as the package's namespace, so the
 * build keeps only these objects (and what they use) of each package, not its every export; their
 * option editors are chunks loaded when an editor first shows (ui/vite.config.ts, LAZY_IMPORTS).
 * The resource lists the package's plugins of these names.
 */
function bundled(pkg: PackageJson, plugins: Record<string, unknown>): Loadable {
  const names = Object.keys(plugins);
  const spec = { ...pkg.perses, plugins: pkg.perses.plugins.filter((p) => names.includes(p.spec.name)) };
  return {
    resource: { kind: 'PluginModule', metadata: { name: pkg.name, version: pkg.version }, spec } as PluginModuleResource,
    importPlugin: () => Promise.resolve(plugins as Record<string, never>),
  };
}

/** A package's package.json fields that make its plugin module resource (what its own getPluginModule() returns). */
interface PackageJson {
  name: string;
  version: string;
  perses: { plugins: { kind: string; spec: { name: string } }[] };
}

/**
 * Plugins of a package, named by a resource built from the package's package.json as its own
 * getPluginModule() does, with how to get their code: `import()`, a chunk of its own loaded the
 * first time a panel, query or variable of theirs is drawn, so a Prometheus-only dashboard never
 * loads Loki's, Tempo's or Pyroscope's queries, editors and panels. `types` keeps only the plugins
 * of these types, `except` drops them. A package's `Datasource` plugin is the exception: every
 * dashboard view loads every datasource plugin, one after the other, to ask each for its built-in
 * variables (Perses' ViewDashboard); as chunks they cost the Demo dashboard three round trips in
 * a row, so each small datasource module is in the Perses chunk, with a resource of its own.
 */
function lazy(pkg: PackageJson, which: { types?: string[]; except?: string[] }, importPlugin: () => Promise<unknown>): Loadable {
  const plugins = pkg.perses.plugins.filter((p) => (which.types ? which.types.includes(p.kind) : true) && !which.except?.includes(p.kind));
  const resource = {
    kind: 'PluginModule',
    metadata: { name: pkg.name, version: pkg.version },
    spec: { ...pkg.perses, plugins },
  } as PluginModuleResource;
  return { resource, importPlugin: importPlugin as Loadable['importPlugin'] };
}

/**
 * The Prometheus plugins that draw dashboards, its variables resolving a datasource variable
 * (`datasource: "$ds"`), which its 0.53 queries do and its variables do not yet (perses/plugins does now).
 */
const prometheusPlugins = {
  PrometheusDatasource,
  PrometheusTimeSeriesQuery,
  PrometheusLabelNamesVariable: withDatasourceVariable(PrometheusLabelNamesVariable, 'PrometheusDatasource'),
  PrometheusLabelValuesVariable: withDatasourceVariable(PrometheusLabelValuesVariable, 'PrometheusDatasource'),
  PrometheusPromQLVariable: withDatasourceVariable(PrometheusPromQLVariable, 'PrometheusDatasource'),
};

/**
 * Every plugin package of the UI (no module federation at run time), and dashplane's own module
 * of Loki variables. The server's plugin catalog (schemas/plugins/catalog.json) marks each kind
 * they hold with `"ui": true`; test/plugins-ui.test.ts reads this file and checks that the two agree.
 */
const PACKAGES: Loadable[] = [
  bundled(timeseriesChart, { TimeSeriesChart }),
  bundled(statChart, { StatChart }),
  bundled(gaugeChart, { GaugeChart }),
  bundled(barChart, { BarChart }),
  bundled(markdown, { Markdown }),
  bundled(table, { Table }),
  bundled(timeseriesTable, { TimeSeriesTable }),
  bundled(pieChart, { PieChart }),
  bundled(statusHistoryChart, { StatusHistoryChart }),
  bundled(heatmapChart, { HeatMapChart }),
  bundled(histogramChart, { HistogramChart }),
  bundled(scatterChart, { ScatterChart }),
  bundled(staticListVariable, { StaticListVariable }),
  bundled(datasourceVariable, { DatasourceVariable }),
  bundled(prometheus, prometheusPlugins),
  // the Prometheus explorer: the Explore page's, a chunk of its own
  lazy(prometheus, { types: ['Explore'] }, () => import('@perses-dev/prometheus-plugin')),
  lazy(loki, { types: ['Datasource'] }, () => Promise.resolve(lokiDatasource)),
  lazy(loki, { except: ['Datasource'] }, () => import('@perses-dev/loki-plugin')),
  // the Loki variables, which the Loki package 0.2 lacks: dashplane's own (ui/src/perses/loki-variables.ts)
  lazy(lokiVariables, {}, () => import('./perses/loki-variables')),
  lazy(tempo, { types: ['Datasource'] }, () => Promise.resolve(tempoDatasource)),
  lazy(tempo, { except: ['Datasource'] }, () => import('@perses-dev/tempo-plugin')),
  lazy(pyroscope, { types: ['Datasource'] }, () => Promise.resolve(pyroscopeDatasource)),
  lazy(pyroscope, { except: ['Datasource'] }, () => import('@perses-dev/pyroscope-plugin')),
  lazy(traceTable, {}, () => import('@perses-dev/trace-table-plugin')),
  lazy(tracingGanttChart, {}, () => import('@perses-dev/tracing-gantt-chart-plugin')),
  // the package's index exports the FlameChart React component under the plugin's name; the plugin is lib/FlameChart
  lazy(flameChart, {}, () => import('@perses-dev/flame-chart-plugin/lib/FlameChart')),
];

export const pluginLoader = dynamicImportPluginLoader(PACKAGES);

/** The Prometheus explorer's id in the Explore page's `explorer` URL parameter (`<module>-<plugin>`, as @perses-dev/explore names it). */
export const PROMETHEUS_EXPLORER = `${prometheus.name}-PrometheusExplorer`;

export const defaultPluginKinds = {
  Panel: 'TimeSeriesChart',
  TimeSeriesQuery: 'PrometheusTimeSeriesQuery',
};
