import { upgradeFieldOptions } from './legacy-field-options.js';
import { barChartPanel, barGaugePanel, graphSeriesPanel, heatmapPanel, histogramPanel, pieChartPanel } from './panel-bars.js';
import type { MappedPanel, PanelMapper } from './panel-mapper.js';
import { logsPanel, placeholderPanel, statusHistoryPanel, textPanel } from './panel-misc.js';
import { gaugePanel, singlestatPanel, statPanel } from './panel-stat.js';
import { legacyTablePanel, tablePanel } from './panel-table.js';
import { graphPanel, timeSeriesPanel } from './panel-timeseries.js';
import { flameGraphPanel, isTraceSearch, tracesPanel, traceTablePanel } from './panel-traces.js';
import { isPlaceholderQuery, type QueryContext } from './queries.js';
import { arr, defined, isObj, obj, str, type Obj } from './read.js';
import { panelVerdict, unrunnableQueries } from './render.js';
import { ReportBuilder, type ReportEntry } from './report.js';

/** Grafana panel type -> the mapper that builds the nearest Perses panel plugin. */
const MAPPERS: Record<string, PanelMapper> = {
  timeseries: timeSeriesPanel,
  graph: (p, ctx) => (obj(p.xaxis).mode === 'series' ? graphSeriesPanel(p, ctx) : graphPanel(p, ctx)),
  stat: statPanel,
  singlestat: singlestatPanel,
  gauge: gaugePanel,
  bargauge: barGaugePanel,
  barchart: barChartPanel,
  // a table of Tempo search results lists traces; a `table` of Grafana < 7 has `styles` (jsonnet libraries emit both forms, then the newer one wins)
  table: (p, ctx) =>
    isTraceSearch(p, ctx)
      ? traceTablePanel(p, ctx)
      : arr(p.styles).length > 0 && arr(p.transformations).length === 0 && arr(obj(p.fieldConfig).overrides).length === 0
        ? legacyTablePanel(p, ctx)
        : tablePanel(p, ctx),
  'table-old': legacyTablePanel,
  text: textPanel,
  // the React text panel of Grafana 7.1-7.2, renamed back to `text` by schema 26: the same options
  text2: textPanel,
  piechart: pieChartPanel,
  heatmap: heatmapPanel,
  histogram: histogramPanel,
  'status-history': statusHistoryPanel,
  'state-timeline': statusHistoryPanel,
  logs: logsPanel,
  traces: tracesPanel,
  flamegraph: flameGraphPanel,
};

/** Why some well-known Grafana panels have no Perses counterpart. */
const NO_EQUIVALENT: Record<string, string> = {
  alertlist: 'Alert lists show Grafana alerts, which do not move to dashplane.',
  dashlist: 'Dashboard lists point at Grafana dashboards; use the project page instead.',
  annolist: 'Annotation lists show Grafana annotations, which do not move to dashplane.',
  news: 'News feeds have no equivalent.',
};

/** Panel types whose Grafana 6 settings (`options-gauge`, `options.valueOptions`, `options.fieldOptions`) are upgraded first. */
const FIELD_OPTIONS_TYPES = new Set(['gauge', 'bargauge', 'stat']);

/**
 * Whether a panel is a reference to a Grafana library panel whose definition is not in the file:
 * no type, or no queries and no options (Grafana saves only the reference, its grid place and
 * title; it loads the rest from the library). Library panels of the export's `__elements` were
 * put in place already (layout.ts).
 */
function isLibraryReference(panel: Obj): boolean {
  if (!isObj(panel.libraryPanel)) return false;
  return (
    !str(panel.type) || (arr(panel.targets).length === 0 && Object.keys(obj(panel.options)).length === 0 && panel.content === undefined)
  );
}

function describe(panel: Obj): string {
  const library = obj(panel.libraryPanel);
  if (isLibraryReference(panel)) return `library panel "${str(panel.title) ?? str(library.name) ?? str(library.uid) ?? ''}"`;
  return `${str(panel.type) ?? 'panel'} "${str(panel.title) ?? ''}"`;
}

/** Grafana panel links -> Perses links (a link needs a URL; old dashboard-name links have none). */
function linksOf(panel: Obj, notes: string[]): Obj[] | undefined {
  const out: Obj[] = [];
  for (const l of arr(panel.links)) {
    if (!isObj(l)) continue;
    if (!str(l.url)) {
      notes.push(`panel link "${str(l.title) ?? ''}" has no URL (it pointed at a Grafana dashboard): not carried`);
      continue;
    }
    out.push(
      defined({
        name: str(l.title),
        url: l.url,
        targetBlank: l.targetBlank === true ? true : undefined,
        renderVariables: l.url.includes('$') ? true : undefined,
      }),
    );
  }
  return out.length > 0 ? out : undefined;
}

/** The data links on values, named for a note: Grafana 7+ `fieldConfig.defaults.links`, the graph's `options.dataLinks` (6.x), `options.fieldOptions.defaults.links` (6.x). */
function dataLinksOf(panel: Obj): string[] {
  const options = obj(panel.options);
  const links = [
    ...arr(obj(obj(panel.fieldConfig).defaults).links),
    ...arr(options.dataLinks),
    ...arr(obj(obj(options.fieldOptions).defaults).links),
  ];
  return links.filter(isObj).map((l) => `"${str(l.title) ?? ''}" (${str(l.url) ?? 'no URL'})`);
}

function mapped(panel: Obj, ctx: QueryContext): MappedPanel {
  const type = str(panel.type);
  if (isLibraryReference(panel)) {
    return placeholderPanel(
      panel,
      'It is a Grafana library panel whose definition is not in this file: export the dashboard "for sharing externally" (which embeds library panels) and migrate that file.',
    );
  }
  const mapper = type ? MAPPERS[type] : undefined;
  if (!mapper) return placeholderPanel(panel, NO_EQUIVALENT[type ?? ''] ?? 'dashplane has no plugin for it.');
  // queries are counted only once the panel is kept (a panel whose plugin is missing becomes a placeholder)
  const scratch = new ReportBuilder();
  const result = mapper(panel, { ...ctx, report: scratch });
  if (!ctx.hasPlugin(result.plugin.kind))
    return placeholderPanel(panel, `Its Perses equivalent, ${result.plugin.kind}, is not installed on this server.`);
  // a query the web UI cannot run is not counted as mapped
  ctx.report.addQueryCounts(scratch, ctx.inUi ? unrunnableQueries(result, ctx.inUi) : 0);
  return result;
}

/**
 * One Grafana panel -> a Perses panel and its report entry. Every panel becomes a panel: mapped
 * to the nearest plugin, or a Markdown placeholder that names the Grafana type and title.
 */
export function migratePanel(grafanaPanel: Obj, path: string, ctx: QueryContext): { panel: Obj; entry: ReportEntry } {
  const upgradeNotes: string[] = [];
  const panel = FIELD_OPTIONS_TYPES.has(grafanaPanel.type) ? upgradeFieldOptions(grafanaPanel, upgradeNotes) : grafanaPanel;
  const result = mapped(panel, ctx);
  if (result.placeholder) for (const t of arr(panel.targets)) if (isObj(t)) ctx.report.countQuery('placeholder');
  const notes = [...upgradeNotes, ...result.notes];
  const links = linksOf(panel, notes);
  for (const key of ['timeFrom', 'timeShift'])
    if (str(panel[key]))
      notes.push(
        `the panel's own time ${key === 'timeFrom' ? 'range' : 'shift'} "${panel[key]}" is not supported: it follows the dashboard time range`,
      );
  const transformations = arr(panel.transformations).filter((t) => isObj(t) && t.disabled !== true);
  // the Table mapper carries or names its transformations; the other Perses panels take none
  if (transformations.length > 0 && !result.placeholder && result.plugin.kind !== 'Table')
    notes.push(
      `transformations are not applied (only Perses tables have transforms): ${transformations.map((t) => String(t.id)).join(', ')}`,
    );
  const dataLinks = dataLinksOf(panel);
  if (dataLinks.length > 0)
    notes.push(`data links on values are not carried (Perses links belong to the whole panel): ${dataLinks.join(', ')}`);
  const placeholders = result.queries.filter(isPlaceholderQuery).length;
  const warning =
    placeholders > 0
      ? `Migrated from Grafana: ${placeholders} of ${result.queries.length} queries could not be migrated and return no data (their text is kept in the query).`
      : undefined;
  const description = [str(panel.description), warning].filter(Boolean).join('\n\n') || undefined;
  const spec = defined({
    display: defined({ name: str(panel.title) ?? str(obj(panel.libraryPanel).name) ?? '', description }),
    plugin: result.plugin,
    queries: result.queries.length > 0 ? result.queries : undefined,
    links,
  });
  const verdict = ctx.inUi ? panelVerdict(spec, result.placeholder === true, ctx.inUi) : undefined;
  const entry: ReportEntry = defined({
    subject: 'panel' as const,
    source: describe(panel),
    path,
    result: result.placeholder ? 'Markdown (placeholder)' : result.plugin.kind,
    outcome: result.placeholder ? 'placeholder' : verdict?.uiLacks ? 'unrendered' : notes.length > 0 ? 'approximated' : 'mapped',
    notes,
    render: verdict && { renders: verdict.renders, reasons: verdict.reasons },
  });
  return { panel: { kind: 'Panel', spec }, entry };
}
