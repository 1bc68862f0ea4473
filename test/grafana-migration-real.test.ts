import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatReport } from '../src/migrate/report.js';
import { migrateGrafanaDashboard, type MigrateOptions, type MigrationResult } from '../src/migrate/dashboard.js';

/**
 * Grafana dashboards (test/data/grafana, listed in its SOURCES.md), each showing a case an audit
 * found the migration getting wrong: what it keeps, and what its report says. Some are real
 * dashboards; the others are small ones written for these tests, each showing one schema feature.
 */
const DATA = join(process.cwd(), 'test', 'data', 'grafana');
const load = (file: string): any => JSON.parse(readFileSync(join(DATA, file), 'utf8'));
const migrate = (file: string, opts: MigrateOptions = {}): MigrationResult => migrateGrafanaDashboard(load(file), opts);
const dashboardNotes = (r: MigrationResult): string[] => r.report.entries.find((e) => e.subject === 'dashboard')!.notes;
const panelsOf = (r: MigrationResult): any[] =>
  r.dashboard.spec.layouts.flatMap((l: any) => l.spec.items).map((i: any) => r.dashboard.spec.panels[i.content.$ref.split('/').pop()]);

describe('Grafana migration of the dashboards the audit found mishandled', () => {
  it('keeps the legacy rows[] of a dashboard that also has panels[], after them, as Grafana does (legacy-rows-and-panels)', () => {
    const r = migrate('legacy-rows-and-panels.json');
    expect(r.report.summary.panels.total).to.equal(4);
    expect(r.report.summary.queries.total).to.equal(4);
    const layouts = r.dashboard.spec.layouts;
    expect(layouts.map((l: any) => l.spec.display?.title ?? null)).to.deep.equal([null, 'Checkout service']);
    expect(panelsOf(r).map((p) => p.spec.display.name)).to.deep.equal(['About', 'Orders per second', 'Failed payments', 'Open carts']);
    // below the panel of panels[] (3 grid lines high) and the row's header
    expect(layouts[1].spec.items.map((i: any) => [i.x, i.y])).to.deep.equal([
      [0, 4],
      [12, 4],
      [0, 10],
    ]);
  });

  it('keeps panels whose repeatPanelId is 0 or repeatedByRow false, and names every copy left out (falsy-repeat-markers)', () => {
    const r = migrate('falsy-repeat-markers.json');
    expect(panelsOf(r).map((p) => p.spec.display.name)).to.deep.equal([
      'Load on $host',
      'Memory (repeatedByRow false)',
      'Disk (repeatPanelId 0)',
      'Packets in on $host',
      'Errors (repeatPanelId 0)',
    ]);
    expect(dashboardNotes(r)).to.include(
      '2 panel(s) or row(s) Grafana had copied for a repeat were left out, the repeated original standing for them: timeseries "Load on $host" (copy of panel 10), stat "Packets in on $host" (copy of panel 21)',
    );
  });

  it('names the copies of a repeated legacy row it leaves out (linkerd2 conduit-dashboard)', () => {
    const r = migrate('linkerd2__conduit-dashboard.json');
    expect(r.report.summary.panels.total).to.equal(13);
    expect(dashboardNotes(r)).to.include(
      '1 panel(s) or row(s) Grafana had copied for a repeat were left out, the repeated original standing for them: row "$target_deployment" (with 4 panel(s))',
    );
  });

  it('keeps a datasource named through input when the caller also gives one (ingress-nginx request-handling-performance)', () => {
    const r = migrate('ingress-nginx__request-handling-performance.json', { input: { DS_PROMETHEUS: 'thanos' }, datasource: 'prom' });
    const datasources = panelsOf(r)
      .flatMap((p) => p.spec.queries ?? [])
      .map((q: any) => q.spec.plugin.spec.datasource);
    expect(datasources).to.have.length(13);
    expect(datasources.every((d: any) => d?.name === 'thanos')).to.equal(true);
    const variable = r.report.entries.find((e) => e.source === 'datasource variable "DS_PROMETHEUS"')!;
    expect(variable.notes).to.deep.equal([
      'queries that used $DS_PROMETHEUS now use the datasource "thanos" given as input DS_PROMETHEUS: the choice among datasources is not kept',
    ]);
  });

  it('gives a dashboard whose time zone is "default" no time zone, the browser\'s (monitoring-mixins couchdb-logs)', () => {
    const r = migrate('monitoring-mixins__couchdb-logs.json');
    expect(load('monitoring-mixins__couchdb-logs.json').timezone).to.equal('default');
    expect(r.dashboard.spec).not.to.have.property('timezone');
  });

  it('migrates the text2 panels of Grafana 7.1-7.2 as text panels (text2-panels)', () => {
    const r = migrate('text2-panels.json');
    expect(r.report.summary.panels).to.include({ total: 3, placeholder: 0 });
    expect(panelsOf(r).map((p) => p.spec.plugin)).to.deep.equal([
      { kind: 'Markdown', spec: { text: '' } },
      { kind: 'Markdown', spec: { text: '## Escalation\nPage the **storage** on-call first.' } },
      { kind: 'Markdown', spec: { text: '<p>Status: <a href="https://status.example.com">status.example.com</a></p>' } },
    ]);
  });

  it('keeps unit, decimals, reducer, range and thresholds of Grafana 6 gauges (options-gauge, valueOptions, fieldOptions: gauge-grafana6-options)', () => {
    const r = migrate('gauge-grafana6-options.json');
    const [optionsGauge, valueOptions, fieldOptions] = panelsOf(r).map((p) => p.spec.plugin);
    expect(optionsGauge).to.deep.equal({
      kind: 'GaugeChart',
      spec: {
        calculation: 'mean',
        format: { unit: 'milliseconds', decimalPlaces: 1 },
        thresholds: {
          steps: [
            { value: 0, color: '#73bf69' },
            { value: 300, color: '#ff9830' },
            { value: 800, color: '#f2495c' },
          ],
        },
        max: 1000,
      },
    });
    expect(valueOptions.spec).to.deep.equal({
      calculation: 'max',
      format: { unit: 'bytes', decimalPlaces: 0 },
      thresholds: { steps: [{ value: 0, color: '#5794f2' }] },
      max: 2000000000000,
    });
    // a percent unit meant the range 0-100 before Grafana 8
    expect(fieldOptions.spec).to.deep.equal({
      calculation: 'last-number',
      format: { unit: 'percent', decimalPlaces: 1 },
      thresholds: {
        steps: [
          { value: 0, color: '#f2495c' },
          { value: 90, color: '#73bf69' },
        ],
      },
      max: 100,
    });
    expect(r.report.entries[0].notes).to.deep.equal(['prefix "p90 " is not shown', 'suffix " (avg)" is not shown']);
  });

  it('keeps the graph thresholds of schemas before 13 (grid.threshold1/2) with their colours (graph-grid-thresholds)', () => {
    const r = migrate('graph-grid-thresholds.json');
    expect(panelsOf(r).map((p) => p.spec.plugin.spec.thresholds?.steps)).to.deep.equal([
      [
        { value: 70, color: '#ed8128' },
        { value: 90, color: '#f53636' },
      ],
      [
        { value: 5, color: '#E24D42' },
        { value: 20, color: '#5794f2' },
      ],
      [{ value: 600, color: '#ff9830' }],
      undefined,
    ]);
    // threshold1 above threshold2: Grafana made both "below" thresholds
    expect(r.report.entries[1].notes).to.deep.equal(['"below" thresholds are drawn as "above" thresholds']);
  });

  it('names the data links on values it does not carry, in every Grafana form (data-links-grafana6-forms)', () => {
    const r = migrate('data-links-grafana6-forms.json');
    const links = r.report.entries
      .filter((e) => e.subject === 'panel')
      .map((e) => e.notes.find((n) => n.startsWith('data links on values are not carried')));
    expect(links.map((n) => n?.match(/"[^"]+" \(/g)?.length)).to.deep.equal([2, 2, 2, undefined]);
    expect(links[0]).to.include('"Traces of this route" (https://traces.example.com/search?route=${__series_name}&at=${__value_time})');
    expect(links[1]).to.include('"Error logs" (https://logs.example.com/?q=route%3D${__field_name}&value=${__value_numeric})');
    expect(links[2]).to.include('"Latency SLO" (https://slo.example.com/api-latency)');
  });

  it('names the transformations of panels that are not tables, which Perses cannot apply (monitoring-mixins couchdb-logs)', () => {
    const r = migrate('monitoring-mixins__couchdb-logs.json');
    const noted = r.report.entries.filter((e) => e.notes.some((n) => n.startsWith('transformations are not applied')));
    expect(noted.map((e) => [e.source, e.result, e.notes.find((n) => n.startsWith('transformations'))])).to.deep.equal([
      [
        'timeseries "Logs volume"',
        'TimeSeriesChart',
        'transformations are not applied (only Perses tables have transforms): renameByRegex',
      ],
    ]);
  });

  it('reads the variables, time range and graphs of schema 1 (services.filter, graphite panels: schema1-services-filter)', () => {
    const r = migrate('schema1-services-filter.json');
    expect(r.dashboard.spec.duration).to.equal('12h');
    expect((r.dashboard.spec.variables ?? []).map((v: any) => `${v.spec.name} ${v.spec.plugin.kind}`)).to.deep.equal([
      'instance PrometheusLabelValuesVariable',
      'stage StaticListVariable',
    ]);
    expect(r.report.summary.panels).to.include({ total: 4, placeholder: 0 });
    expect(panelsOf(r).map((p) => p.spec.plugin.kind)).to.deep.equal(['TimeSeriesChart', 'TimeSeriesChart', 'TimeSeriesChart', 'Markdown']);
    expect(panelsOf(r)[0].spec.plugin.spec).to.deep.equal({
      legend: { position: 'bottom', mode: 'list' },
      yAxis: { format: { unit: 'percent' }, min: 0, max: 100 },
    });
    expect(panelsOf(r)[1].spec.plugin.spec).to.deep.equal({ yAxis: { format: { unit: 'decimal' } } });
  });

  it('reads the pulldown annotations and the filter and untyped variables of schemas before 6 (schema5-pulldowns-and-filter-variables)', () => {
    const r = migrate('schema5-pulldowns-and-filter-variables.json');
    expect(r.report.summary.variables).to.include({ total: 4, mapped: 4 });
    expect((r.dashboard.spec.variables ?? []).map((v: any) => `${v.spec.name} ${v.spec.plugin.kind}`)).to.deep.equal([
      'node PrometheusLabelValuesVariable',
      'job PrometheusLabelValuesVariable',
      'mount StaticListVariable',
      'step StaticListVariable',
    ]);
    expect(r.report.entries.filter((e) => e.subject === 'annotation').map((e) => `${e.source} ${e.outcome}`)).to.deep.equal([
      'annotation "reboots" mapped',
      'annotation "maintenance" dropped',
    ]);
    expect(r.dashboard.spec.annotations[0].plugin.spec.expr).to.equal('changes(node_boot_time_seconds[5m]) > 0');
    expect(formatReport(r.report, true)).not.to.include('undefined');
  });

  it('hides the variables of schemas before 12 that had hideVariable', () => {
    const r = migrateGrafanaDashboard({
      title: 'old',
      schemaVersion: 11,
      templating: {
        list: [
          { name: 'a', type: 'textbox', query: 'x', hideVariable: true },
          { name: 'b', type: 'textbox', query: 'y', hideLabel: true },
        ],
      },
    });
    expect(r.dashboard.spec.variables.map((v: any) => v.spec.display)).to.deep.equal([{ hidden: true }, { hidden: false }]);
  });

  it('refuses the Grafana 12 v2 schema, naming it and the classic export to use (grafana12-v2-schema)', () => {
    expect(() => migrate('grafana12-v2-schema.json')).to.throw(
      'grafanaDashboard is a Grafana dashboard in the v2 schema (apiVersion dashboard.grafana.app/v2beta1: spec.elements and spec.layout), which dashplane does not read: export the classic JSON model instead',
    );
  });

  it('reads the classic model inside a Grafana 12 v1 resource, named after its metadata.name', () => {
    const r = migrateGrafanaDashboard({
      apiVersion: 'dashboard.grafana.app/v1beta1',
      kind: 'Dashboard',
      metadata: { name: 'abc' },
      spec: { title: 'T', panels: [{ type: 'text', title: 'a' }] },
    });
    expect(r.dashboard.metadata.name).to.equal('abc');
    expect(r.report.summary.panels.total).to.equal(1);
  });

  it("says a query on the -- Dashboard -- datasource reuses another panel's results, naming the panel (dashboard-datasource-shared-results)", () => {
    const r = migrate('dashboard-datasource-shared-results.json');
    const entry = r.report.entries.find((e) => e.source === 'stat "Signups, latest hour"')!;
    expect(entry.notes).to.deep.equal([
      'query A is kept as a placeholder query that returns no data: it reused the results of panel 7 (Grafana\'s "-- Dashboard --" datasource), and Perses panels cannot share results: copy that panel\'s queries here',
    ]);
    expect(formatReport(r.report)).not.to.match(/unknown/);
  });

  it('keeps the Loki variables of a Loki datasource variable as Loki variables on its picker (monitoring-mixins couchdb-logs)', () => {
    const r = migrate('monitoring-mixins__couchdb-logs.json');
    const plugins = (r.dashboard.spec.variables ?? []).filter((v: any) => v.kind === 'ListVariable').map((v: any) => v.spec.plugin);
    expect(plugins.slice(0, 3)).to.deep.equal([
      { kind: 'DatasourceVariable', spec: { datasourcePluginKind: 'LokiDatasource' } },
      { kind: 'LokiLabelValuesVariable', spec: { datasource: '$loki_datasource', labelName: 'job', matchers: [] } },
      {
        kind: 'LokiLabelValuesVariable',
        spec: { datasource: '$loki_datasource', labelName: 'couchdb_cluster', matchers: ['{job=~"$job"}'] },
      },
    ]);
    expect(
      r.report.entries.filter((e) => e.subject === 'variable' && e.result?.startsWith('LokiLabel')).map((e) => e.outcome),
    ).to.deep.equal(['mapped', 'mapped', 'mapped', 'mapped']);
  });

  it("keeps Loki variables without a datasource of their own on the export's only datasource input, Loki, not on Prometheus (loki-variables-export)", () => {
    for (const opts of [{}, { input: { DS_LOGS: 'loki-eu' } }, { datasource: 'prom' }] as MigrateOptions[]) {
      const r = migrate('loki-variables-export.json', opts);
      const datasource = opts.input ? { datasource: { kind: 'LokiDatasource', name: 'loki-eu' } } : {};
      expect(
        (r.dashboard.spec.variables ?? []).map((v: any) => v.spec.plugin),
        JSON.stringify(opts),
      ).to.deep.equal([
        { kind: 'LokiLabelValuesVariable', spec: { ...datasource, labelName: 'app', matchers: [] } },
        { kind: 'LokiLabelValuesVariable', spec: { ...datasource, labelName: 'level', matchers: ['{app=~"$app"}'] } },
        { kind: 'LokiLabelNamesVariable', spec: { ...datasource, matchers: [] } },
      ]);
      expect(r.report.summary.variables).to.include({ total: 3, mapped: 3 });
      expect(formatReport(r.report, true)).not.to.match(/Prometheus/);
    }
    // without the Loki plugins: saved values, said so
    const bare = migrate('loki-variables-export.json', { hasPlugin: (k) => !k.startsWith('Loki') });
    expect(bare.report.summary.variables).to.include({ total: 3, placeholder: 3 });
  });

  it('quotes multi-line query texts on one line in notes (ingress-nginx request-handling-performance)', () => {
    const r = migrate('ingress-nginx__request-handling-performance.json');
    const hidden = r.report.entries.flatMap((e) => e.notes).find((n) => n.includes('was hidden in Grafana'))!;
    expect(hidden).to.equal(
      'query A was hidden in Grafana and is not migrated: "sum (rate(nginx_ingress_controller_response_size_bucket{ ingress =~ \\"$ingress\\", }[1m])) by (le)"',
    );
  });

  it('says why a query is a placeholder when the server has a plugin of its datasource type', () => {
    const panel = {
      type: 'timeseries',
      title: 'Influx',
      datasource: { type: 'influxdb', uid: 'x' },
      targets: [{ refId: 'A', query: 'SELECT 1' }],
    };
    const notesWith = (has: boolean) =>
      migrateGrafanaDashboard({ title: 't', panels: [panel] }, { hasPlugin: (k) => has || !k.startsWith('InfluxDB') }).report.entries[0]
        .notes;
    expect(notesWith(true)).to.deep.equal([
      'query A (influxdb) is kept as a placeholder query that returns no data: dashplane has the InfluxDBTimeSeriesQuery plugin, but the migration does not translate influxdb queries into it: recreate the query with it; the original: "SELECT 1"',
    ]);
    expect(notesWith(false)[0]).to.include(': dashplane has no influxdb plugin;');
  });

  it('makes a library panel reference without its definition in the file a placeholder, even with a type; takes __elements over the reference', () => {
    const gridPos = { x: 0, y: 0, w: 12, h: 8 };
    const reference = {
      id: 4,
      type: 'table',
      title: 'Error rate per service',
      gridPos,
      libraryPanel: { uid: 'lib-err', name: 'Error rate' },
      fieldConfig: { defaults: {}, overrides: [] },
      options: {},
    };
    const inline = {
      ...reference,
      id: 5,
      title: 'Inline copy',
      libraryPanel: { uid: 'lib-inline', name: 'Inline' },
      targets: [{ refId: 'A', expr: 'sum(rate(errors_total[5m]))' }],
    };
    const r = migrateGrafanaDashboard({ title: 'libs', panels: [reference, inline] });
    expect(r.report.entries.slice(0, 2).map((e) => [e.source, e.result, e.outcome])).to.deep.equal([
      ['library panel "Error rate per service"', 'Markdown (placeholder)', 'placeholder'],
      ['table "Inline copy"', 'Table', 'mapped'],
    ]);
    expect(r.report.entries[0].notes[0]).to.match(/library panel whose definition is not in this file/);
    expect(r.dashboard.spec.panels['0'].spec.plugin.spec.text).to.match(
      /^\*\*Not migrated from Grafana\*\*: "Error rate per service" is a `table` panel\. It is a Grafana library panel/,
    );
    const exported = migrateGrafanaDashboard({
      title: 'libs',
      panels: [reference],
      __elements: { 'lib-err': { uid: 'lib-err', model: { type: 'stat', title: 'Error rate', targets: [{ refId: 'A', expr: 'up' }] } } },
    });
    expect(exported.report.entries[0]).to.include({ source: 'stat "Error rate per service"', result: 'StatChart' });
  });

  it('names a library panel without a name by its uid, and a dashboard without uid or title as such', () => {
    const r = migrateGrafanaDashboard({ panels: [{ libraryPanel: { uid: 'lib-7' }, gridPos: { x: 0, y: 0, w: 6, h: 4 } }] });
    expect(r.report.entries[0].source).to.equal('library panel "lib-7"');
    expect(dashboardNotes(r)).to.deep.equal([
      'the dashboard has neither a uid nor a title to name it after: it is named "grafana-dashboard"',
    ]);
  });
});
