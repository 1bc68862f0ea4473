import * as barChart from '@perses-dev/bar-chart-plugin';
import * as gaugeChart from '@perses-dev/gauge-chart-plugin';
import * as heatmapChart from '@perses-dev/heatmap-chart-plugin';
import * as histogramChart from '@perses-dev/histogram-chart-plugin';
import * as markdown from '@perses-dev/markdown-plugin';
import * as pieChart from '@perses-dev/pie-chart-plugin';
import { dynamicImportPluginLoader, type PluginModuleResource } from '@perses-dev/plugin-system';
import * as prometheus from '@perses-dev/prometheus-plugin';
import * as scatterChart from '@perses-dev/scatter-chart-plugin';
import * as statChart from '@perses-dev/stat-chart-plugin';
import * as staticListVariable from '@perses-dev/static-list-variable-plugin';
import * as statusHistoryChart from '@perses-dev/status-history-chart-plugin';
import * as table from '@perses-dev/table-plugin';
import * as timeseriesChart from '@perses-dev/timeseries-chart-plugin';
import * as timeseriesTable from '@perses-dev/timeseries-table-plugin';

interface PluginPackage {
  getPluginModule(): unknown;
}

/** Every plugin package bundled into the UI (statically: no module federation at run time). */
const PACKAGES: PluginPackage[] = [
  timeseriesChart,
  statChart,
  gaugeChart,
  barChart,
  markdown,
  table,
  timeseriesTable,
  pieChart,
  statusHistoryChart,
  heatmapChart,
  histogramChart,
  scatterChart,
  staticListVariable,
  prometheus,
];

export const pluginLoader = dynamicImportPluginLoader(PACKAGES.map((p) => ({ resource: p.getPluginModule() as PluginModuleResource, importPlugin: () => Promise.resolve(p) })));

/** The Prometheus explorer's id in the Explore page's `explorer` URL parameter (`<module>-<plugin>`, as @perses-dev/explore names it). */
export const PROMETHEUS_EXPLORER = `${(prometheus.getPluginModule() as { metadata: { name: string } }).metadata.name}-PrometheusExplorer`;

export const defaultPluginKinds = {
  Panel: 'TimeSeriesChart',
  TimeSeriesQuery: 'PrometheusTimeSeriesQuery',
};
