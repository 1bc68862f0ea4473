import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KINDS } from '../cli/kinds.js';
import { OfflineValidator } from '../cli/offline-validator.js';
import { migrateGrafanaDashboard, type MigrateOptions, type MigrationResult } from '../src/migrate/dashboard.js';
import { formatReport, type ReportEntry } from '../src/migrate/report.js';
import { SCHEMAS_DIR } from '../src/paths.js';
import { PluginRegistry } from '../src/plugins/registry.js';
import { corpusDashboards, hasGrafanaCorpus, NO_CORPUS } from './helpers/grafana-corpus.js';

/**
 * Logs, traces and profiles: Loki, Tempo and Pyroscope targets and panels migrate to Perses'
 * Loki, Tempo and Pyroscope plugins, and the report says, per panel and variable, whether the web
 * UI draws the result (from the catalog's `ui` flags), never counting as "mapped" what it would
 * show as an error.
 */
const plugins = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'));
/** The server's own options: the kinds it knows, those the web UI draws. */
const SERVER: MigrateOptions = { hasPlugin: (k) => plugins.get(k) !== undefined, inUi: (k) => plugins.get(k)?.ui === true };
/** The web UI as it was before it bundled the Loki, Tempo and Pyroscope plugins. */
const PROMETHEUS_ONLY_UI: MigrateOptions = {
  ...SERVER,
  inUi: (k) => SERVER.inUi!(k) && !/^(Loki|Tempo|Pyroscope)|^(LogsTable|TraceTable|TracingGanttChart|FlameChart)$/.test(k),
};

const load = (file: string): any => JSON.parse(readFileSync(join(process.cwd(), 'test', 'data', 'grafana', file), 'utf8'));
const entryOf = (r: MigrationResult, title: string): ReportEntry =>
  r.report.entries.find((e) => e.subject === 'panel' && e.source.endsWith(`"${title}"`))!;
const panelOf = (r: MigrationResult, title: string): any => r.dashboard.spec.panels[entryOf(r, title).path!.split('.').pop()!];
const plugin = (r: MigrationResult, title: string, query = 0): any => panelOf(r, title).spec.queries[query].spec.plugin;

describe('Grafana migration of Loki, Tempo and Pyroscope dashboards', () => {
  const r = migrateGrafanaDashboard(load('traces-profiles-logs.json'), SERVER);

  it('makes a traces panel a TracingGanttChart and a table of trace search results a TraceTable, on TempoTraceQuery (traces-profiles-logs)', () => {
    expect(panelOf(r, 'Selected trace').spec.plugin).to.deep.equal({ kind: 'TracingGanttChart', spec: {} });
    expect(panelOf(r, 'Selected trace').spec.queries).to.deep.equal([
      {
        kind: 'TraceQuery',
        spec: { plugin: { kind: 'TempoTraceQuery', spec: { datasource: '$tempo', query: '${trace_id}', limit: 20 } } },
      },
    ]);
    expect(entryOf(r, 'Selected trace').notes).to.deep.equal(['query B is empty and is not migrated']);
    expect(panelOf(r, 'Slow payments').spec.plugin).to.deep.equal({ kind: 'TraceTable', spec: {} });
    expect(plugin(r, 'Slow payments').spec).to.deep.equal({
      datasource: '$tempo',
      query: '{resource.service.name="checkout" && name=~"POST /pay|POST /refund" && traceDuration>500ms && span.http.status_code>=500}',
      limit: 20,
    });
    expect(entryOf(r, 'Slow payments').notes).to.include('query A: grouping by k8s.pod.name is not carried');
    expect(plugin(r, 'Failed cart requests').spec).to.deep.equal({
      datasource: '$tempo',
      query: '{ span.http.route = "/api/cart" && status = error }',
      limit: 50,
    });
    expect(entryOf(r, 'Failed cart requests').notes).to.deep.equal([
      'query A: the spans per span set (3) are not carried: Perses shows whole traces',
    ]);
  });

  it('makes a flame graph a FlameChart on PyroscopeProfileQuery: profile type, service, label filters, max nodes', () => {
    expect(panelOf(r, 'Checkout CPU profile').spec.plugin).to.deep.equal({
      kind: 'FlameChart',
      spec: { palette: 'package-name', showSettings: true, showSeries: false, showTable: true, showFlameGraph: true },
    });
    expect(plugin(r, 'Checkout CPU profile')).to.deep.equal({
      kind: 'PyroscopeProfileQuery',
      spec: {
        profileType: 'process_cpu:cpu:nanoseconds:cpu:nanoseconds',
        service: 'checkout',
        filters: [{ labelName: 'region', operator: '=~', labelValue: 'eu-.*' }],
        maxNodes: 4096,
      },
    });
    expect(entryOf(r, 'Checkout CPU profile').outcome).to.equal('mapped');
  });

  it('keeps Tempo and Pyroscope targets of time series panels as placeholders that say where such queries are migrated', () => {
    expect(entryOf(r, 'Checkout span rate').notes[0]).to.match(
      /^query A \(tempo\) is kept as a placeholder query that returns no data: dashplane migrates tempo queries in traces panels and tables of trace search results only/,
    );
    expect(entryOf(r, 'Memory in use by pod').notes[0]).to.match(
      /^query A \(pyroscope\) is kept as a placeholder query .*: dashplane migrates pyroscope queries in flame graph panels only/,
    );
    expect(r.report.summary.queries).to.include({ total: 10, mapped: 6, placeholder: 3, dropped: 1, unrendered: 0 });
  });

  it('makes Loki log panels LogsTable on LokiLogQuery and other Loki panels LokiTimeSeriesQuery, noting the legend format it cannot carry', () => {
    expect(panelOf(r, 'Checkout errors').spec.plugin).to.deep.equal({
      kind: 'LogsTable',
      spec: { allowWrap: true, enableDetails: true, showTime: true },
    });
    expect(plugin(r, 'Checkout errors')).to.deep.equal({
      kind: 'LokiLogQuery',
      spec: { datasource: '$logs', query: '{app="checkout"} |= "error"' },
    });
    expect(plugin(r, 'Log lines by level').kind).to.equal('LokiTimeSeriesQuery');
    expect(entryOf(r, 'Log lines by level').notes).to.deep.equal([
      'query A: the legend format "{{level}}" is not carried (LokiTimeSeriesQuery names series by their labels)',
    ]);
  });

  it("keeps Tempo and Loki datasource variables as pickers; resolves Pyroscope's (its queries take no datasource variable) to the project's default, and any to the datasource given as input", () => {
    const notes = (res: MigrationResult) =>
      res.report.entries.filter((e) => e.source.startsWith('datasource variable')).map((e) => `${e.result}: ${e.notes.join()}`);
    expect(notes(r)).to.deep.equal([
      "DatasourceVariable: queries that used $tempo use the datasource it picks among the project's and the global TempoDatasources, by default the project's default",
      "PyroscopeDatasource of the project: queries that used $profiles now use the project's default PyroscopeDatasource: the choice among datasources is not kept",
      "DatasourceVariable: queries that used $logs use the datasource it picks among the project's and the global LokiDatasources, by default the project's default",
    ]);
    const named = migrateGrafanaDashboard(load('traces-profiles-logs.json'), {
      ...SERVER,
      input: { tempo: 'tempo-eu', profiles: 'pyro-eu' },
    });
    expect(plugin(named, 'Selected trace').spec.datasource).to.deep.equal({ kind: 'TempoDatasource', name: 'tempo-eu' });
    expect(plugin(named, 'Checkout CPU profile').spec.datasource).to.deep.equal({ kind: 'PyroscopeDatasource', name: 'pyro-eu' });
  });

  it("gives a dashboard the server's validation accepts", async () => {
    const error = await new OfflineValidator().check(KINDS.byName('Dashboard')!, r.dashboard);
    expect(error, JSON.stringify(error)).to.equal(undefined);
  });

  describe('what the web UI draws', () => {
    it('says per panel whether the web UI draws it, and why not: a placeholder, queries that return no data', () => {
      const verdicts = r.report.entries.filter((e) => e.subject === 'panel').map((e) => [e.source, e.render]);
      expect(verdicts).to.deep.equal([
        ['traces "Selected trace"', { renders: true, reasons: [] }],
        ['table "Slow payments"', { renders: true, reasons: [] }],
        ['table "Failed cart requests"', { renders: true, reasons: [] }],
        ['timeseries "Checkout span rate"', { renders: false, reasons: ['none of its queries could be migrated: it shows no data'] }],
        ['flamegraph "Checkout CPU profile"', { renders: true, reasons: [] }],
        ['timeseries "Memory in use by pod"', { renders: false, reasons: ['none of its queries could be migrated: it shows no data'] }],
        ['logs "Checkout errors"', { renders: true, reasons: [] }],
        ['timeseries "Log lines by level"', { renders: true, reasons: [] }],
        ['nodeGraph "Service graph"', { renders: false, reasons: ['only a text placeholder stands for it'] }],
      ]);
      expect(formatReport(r.report).trim().split('\n').pop()).to.match(/; the web UI draws 6 of 9 panels$/);
    });

    it('counts what a web UI without the plugins would show as an error as "unrendered", never "mapped", and says which plugins it lacks', () => {
      const old = migrateGrafanaDashboard(load('traces-profiles-logs.json'), PROMETHEUS_ONLY_UI);
      expect(entryOf(old, 'Checkout CPU profile')).to.deep.include({
        outcome: 'unrendered',
        render: {
          renders: false,
          reasons: [
            'the web UI does not bundle the plugins FlameChart (panel), PyroscopeProfileQuery (query), PyroscopeDatasource (datasource): the panel shows an error instead',
          ],
        },
      });
      expect(entryOf(old, 'Log lines by level').render!.reasons).to.deep.equal([
        'the web UI does not bundle the plugins LokiTimeSeriesQuery (query), LokiDatasource (datasource): the panel shows an error instead',
      ]);
      expect(old.report.summary.panels).to.include({ total: 9, mapped: 0, unrendered: 6, placeholder: 1 });
      expect(old.report.summary.queries).to.include({ total: 10, mapped: 0, unrendered: 6 });
      const text = formatReport(old.report);
      expect(text).to.include(
        'unrendered   panel logs "Checkout errors" -> LogsTable at spec.panels.6\n             - not drawn by the web UI: the web UI does not bundle the plugins LogsTable (panel), LokiLogQuery (query), LokiDatasource (datasource): the panel shows an error instead',
      );
      expect(text.trim().split('\n').pop()).to.equal(
        '9 panels (2 approximated, 6 unrendered, 1 placeholder); 4 variables (1 mapped, 1 approximated, 2 unrendered); 10 queries (6 unrendered, 3 placeholder, 1 dropped); 0 other settings; the web UI draws 0 of 9 panels',
      );
    });

    it('says the same of variables: Loki variables are "unrendered" for a web UI without the Loki plugin (loki-variables-export)', () => {
      const variables = (opts: MigrateOptions) =>
        migrateGrafanaDashboard(load('loki-variables-export.json'), { ...opts, input: { DS_LOGS: 'logs' } })
          .report.entries.filter((e) => e.subject === 'variable')
          .map((e) => [e.result, e.outcome, e.render]);
      expect(variables(SERVER)).to.deep.equal([
        ['LokiLabelValuesVariable', 'mapped', { renders: true, reasons: [] }],
        ['LokiLabelValuesVariable', 'mapped', { renders: true, reasons: [] }],
        ['LokiLabelNamesVariable', 'mapped', { renders: true, reasons: [] }],
      ]);
      const lacks = (kind: string) => ({
        renders: false,
        reasons: [
          `the web UI does not bundle the plugins ${kind} (variable), LokiDatasource (datasource): the variable shows an error instead`,
        ],
      });
      expect(variables(PROMETHEUS_ONLY_UI)).to.deep.equal([
        ['LokiLabelValuesVariable', 'unrendered', lacks('LokiLabelValuesVariable')],
        ['LokiLabelValuesVariable', 'unrendered', lacks('LokiLabelValuesVariable')],
        ['LokiLabelNamesVariable', 'unrendered', lacks('LokiLabelNamesVariable')],
      ]);
    });

    it('gives no verdict when the caller does not say what the web UI draws', () => {
      const plain = migrateGrafanaDashboard(load('traces-profiles-logs.json'));
      expect(plain.report.entries.filter((e) => e.render)).to.deep.equal([]);
      expect(formatReport(plain.report)).not.to.include('web UI');
    });

    describe('on the corpus', () => {
      before(function () {
        if (!hasGrafanaCorpus()) {
          console.log(`      ${NO_CORPUS}`);
          this.skip();
        }
      });

      it('monitoring-mixins loki-logs: its Loki panels and variables are drawn by this web UI, and were "unrendered" for one with the Prometheus plugin only', () => {
        const grafana = corpusDashboards().find((d) => d.file.includes('loki_dashboards_loki-logs'))!.json;
        const now = migrateGrafanaDashboard(grafana, SERVER);
        expect(panelOf(now, 'Logs').spec.plugin.kind).to.equal('LogsTable');
        expect(panelOf(now, 'Logs').spec.queries[0].spec.plugin.kind).to.equal('LokiLogQuery');
        expect(now.report.entries.filter((e) => e.render && !e.render.renders)).to.deep.equal([]);
        const before = migrateGrafanaDashboard(grafana, PROMETHEUS_ONLY_UI);
        expect(before.report.entries.filter((e) => e.outcome === 'unrendered').map((e) => e.source)).to.deep.equal([
          'timeseries "Log Rate"',
          'logs "Logs"',
          'datasource variable "loki_datasource"',
        ]);
        expect(before.report.summary.queries).to.include({ mapped: 8, unrendered: 2 });
      });
    });
  });
});
