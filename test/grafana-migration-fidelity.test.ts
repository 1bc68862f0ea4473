import { expect } from 'chai';
import { migrateGrafanaDashboard, type MigrationResult } from '../src/migrate/dashboard.js';
import type { ReportEntry } from '../src/migrate/report.js';
import { corpusDashboards, hasGrafanaCorpus, NO_CORPUS } from './helpers/grafana-corpus.js';

/**
 * Fidelity defects found on real dashboards, each silent before: the real dashboard of the corpus
 * where it was found (suites skipped without the corpus), or the least panel that shows it when
 * the corpus holds no such panel.
 */

const grid = { x: 0, y: 0, w: 12, h: 8 };
const migrateOne = (panel: object, datasource: object | null = { type: 'prometheus', uid: 'prom' }): MigrationResult =>
  migrateGrafanaDashboard({ title: 't', panels: [{ gridPos: grid, datasource, ...panel }] });
const first = (r: MigrationResult): any => r.dashboard.spec.panels['0'];
const entryOf = (r: MigrationResult, title: string): ReportEntry =>
  r.report.entries.find((e) => e.subject === 'panel' && e.source.endsWith(`"${title}"`))!;
const panelOf = (r: MigrationResult, title: string): any => r.dashboard.spec.panels[entryOf(r, title).path!.split('.').pop()!];

describe('Grafana migration: fidelity defects found on real dashboards', () => {
  describe('in the corpus', () => {
    const results = new Map<string, MigrationResult>();
    const migrate = (prefix: string): MigrationResult => {
      if (!results.has(prefix))
        results.set(prefix, migrateGrafanaDashboard(corpusDashboards().find((d) => d.file.startsWith(prefix))!.json));
      return results.get(prefix)!;
    };
    before(function () {
      if (!hasGrafanaCorpus()) {
        console.log(`    ${NO_CORPUS}`);
        this.skip();
      }
    });

    it('keeps a query whose stacking override names another group out of the stack (rfmoz haproxy "Process - Pipes": the pipe limit)', () => {
      const r = migrate('rfmoz__grafana-dashboards__prometheus_haproxy.json');
      const spec = panelOf(r, 'Process - Pipes').spec.plugin.spec;
      expect(spec.visual.stack).to.equal('all');
      expect(spec.querySettings.find((s: any) => s.queryIndex === 0)).to.include({ stack: false });
      expect(entryOf(r, 'Process - Pipes').notes).to.include(
        "query A is kept out of the stack (querySettings stack: false), which the web UI's TimeSeriesChart does not apply yet: it stacks it with the rest",
      );
    });

    it('says the web UI stacks the series a graph keeps out of its stack (rfmoz node-exporter-full-old "Memory Basic": RAM Total)', () => {
      const r = migrate('rfmoz__grafana-dashboards__prometheus_node-exporter-full-old.json');
      const panel = panelOf(r, 'Memory Basic');
      const total = panel.spec.queries.findIndex((q: any) => q.spec.plugin.spec.seriesNameFormat === 'RAM Total');
      expect(panel.spec.plugin.spec.querySettings.find((s: any) => s.queryIndex === total)).to.include({ stack: false });
      expect(entryOf(r, 'Memory Basic').notes.join('\n')).to.match(/query \w+ is kept out of the stack .* it stacks it with the rest/);
    });

    it("shows Grafana's default reducer, the last non-null value, when reduceOptions names none (dotdc k8s-views-pods stats, ceph hardware pies)", () => {
      expect(
        panelOf(migrate('dotdc__grafana-dashboards-kubernetes__dashboards_k8s-views-pods'), 'QOS Class').spec.plugin.spec.calculation,
      ).to.equal('last-number');
      expect(
        panelOf(migrate('monitoring-mixins__website__assets_ceph_dashboards_hardware'), 'Drive Types').spec.plugin.spec.calculation,
      ).to.equal('last-number');
    });

    it('reports the series name a stat showed beside its value (percona PostgreSQL Instances Overview "Slow queries", text mode value_and_name)', () => {
      const r = migrate('percona__grafana-dashboards__dashboards_PostgreSQL_PostgreSQL_Instances_Overview');
      expect(entryOf(r, 'Slow queries').notes).to.include(
        'text mode "value and name" shows the value only: StatChart shows no series name beside it',
      );
    });

    it('reports continuous colour schemes on time series, bar gauges and tables that colour their cells (kafka-overview, percona pg-instance)', () => {
      const kafka = migrate('monitoring-mixins__website__assets_kafka_dashboards_kafka-overview-dashboard');
      expect(entryOf(kafka, 'CPU usage (process)').notes).to.include(
        'colour scheme "continuous-BlYlRd" (a colour along a gradient by value) is not supported: each series takes its colour from the palette',
      );
      const pg = migrate('percona__grafana-dashboards__dashboards_Experimental_pg-instance');
      expect(entryOf(pg, 'Tuples').notes).to.include(
        'colour scheme "continuous-BlYlRd" (a colour along a gradient by value) is not supported: BarChart colours from its palette',
      );
      expect(entryOf(pg, 'Queries').notes).to.include(
        'colour scheme "continuous-GrYlRd" (a colour along a gradient by value) is not supported: Perses colours cells by value conditions only',
      );
      // a table that colours no cell loses nothing to its scheme (dotdc k8s-views-nodes "Persistent Volumes - Usage in GB")
      const nodes = migrate('dotdc__grafana-dashboards-kubernetes__dashboards_k8s-views-nodes');
      expect(entryOf(nodes, 'Persistent Volumes - Usage in GB').notes.join('\n')).not.to.match(/colour scheme/);
    });
  });

  it("gives a time series panel saved without options Grafana's default legend, a list below the chart", () => {
    const r = migrateOne({ type: 'timeseries', title: 'Requests', targets: [{ refId: 'A', expr: 'rate(http_requests_total[5m])' }] });
    expect(first(r).spec.plugin.spec.legend).to.deep.equal({ position: 'bottom', mode: 'list' });
    // a legend switched off stays off
    const hidden = migrateOne({
      type: 'timeseries',
      title: 'Requests',
      options: { legend: { showLegend: false } },
      targets: [{ refId: 'A', expr: 'up' }],
    });
    expect(first(hidden).spec.plugin.spec).not.to.have.property('legend');
  });

  it('hides the legacy table columns a /.*/ hidden style hid (kept as defaultColumnHidden), and says the web UI still shows them', () => {
    const r = migrateOne({
      type: 'table-old',
      title: 'Pods',
      targets: [{ refId: 'A', expr: 'kube_pod_info', format: 'table', instant: true }],
      styles: [
        { pattern: 'pod', type: 'string', alias: 'Pod' },
        { pattern: 'node', type: 'string', alias: 'Node' },
        { pattern: '/.*/', type: 'hidden' },
      ],
    });
    expect(first(r).spec.plugin.spec).to.deep.equal({
      defaultColumnHidden: true,
      columnSettings: [
        { name: 'pod', header: 'Pod' },
        { name: 'node', header: 'Node' },
      ],
    });
    expect(r.report.entries[0].notes).to.include(
      "the style /.*/ hides every column no earlier style names: kept as defaultColumnHidden, which the web UI's Table does not apply yet (it shows those columns)",
    );
  });

  it('lists an empty target instead of migrating it, whatever its datasource', () => {
    const r = migrateOne(
      {
        type: 'timeseries',
        title: 'Load',
        targets: [
          { refId: 'A', expr: 'node_load1', datasource: { type: 'prometheus', uid: 'prom' } },
          { refId: 'B' },
          { refId: 'C', datasource: { type: 'graphite', uid: 'g' }, target: '' },
          { refId: 'D', datasource: { type: 'tempo', uid: 't' }, queryType: 'traceql', query: ' ' },
        ],
      },
      null,
    );
    expect(first(r).spec.queries.map((q: any) => q.spec.plugin.spec.query)).to.deep.equal(['node_load1']);
    expect(r.report.entries[0].notes).to.deep.equal([
      'query B is empty and is not migrated',
      'query C is empty and is not migrated',
      'query D is empty and is not migrated',
    ]);
    expect(r.report.summary.queries).to.include({ total: 4, mapped: 1, dropped: 3, placeholder: 0 });
  });
});
