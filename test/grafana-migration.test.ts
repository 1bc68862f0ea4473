import { expect } from 'chai';
import { createRequire } from 'node:module';
import { KINDS } from '../cli/kinds.js';
import { OfflineValidator } from '../cli/offline-validator.js';
import { migrateGrafanaDashboard, type MigrationResult } from '../src/migrate/dashboard.js';
import { mapUnit, MAPPED_GRAFANA_UNITS } from '../src/migrate/units.js';
import { corpusDashboards, grafanaPanels, hasGrafanaCorpus, NO_CORPUS, type CorpusDashboard } from './helpers/grafana-corpus.js';

/**
 * Every real Grafana dashboard of the corpus (81 files, schema versions 7 to 42) migrates to a
 * dashboard the server accepts — the very validation `POST /api/validate/dashboards` runs — with
 * every panel and variable accounted for, in Grafana's order and sizes.
 */
describe('Grafana migration over the dashboard corpus', () => {
  const available = hasGrafanaCorpus();
  const dashboards: CorpusDashboard[] = available ? corpusDashboards() : [];
  const results = new Map<string, MigrationResult>();
  const validator = new OfflineValidator();
  const dashboardKind = KINDS.byName('Dashboard')!;

  before(function () {
    if (!available) {
      console.log(`    ${NO_CORPUS}`);
      this.skip();
    }
    for (const d of dashboards) results.set(d.file, migrateGrafanaDashboard(d.json, { project: 'imported' }));
  });

  it('reads all 81 dashboards of the corpus', () => {
    expect(dashboards.length).to.equal(81);
  });

  it('every migrated dashboard is accepted by the server validation (schemas and plugin schemas)', async () => {
    const refused: string[] = [];
    for (const d of dashboards) {
      const error = await validator.check(dashboardKind, results.get(d.file)!.dashboard);
      if (error) refused.push(`${d.file}: ${error.message} ${JSON.stringify(error.details.slice(0, 3))}`);
    }
    expect(refused, refused.join('\n')).to.deep.equal([]);
  });

  it('every Grafana panel becomes exactly one panel with a report entry, in the original order', () => {
    for (const d of dashboards) {
      const { dashboard, report } = results.get(d.file)!;
      const grafana = grafanaPanels(d.json);
      const items = dashboard.spec.layouts.flatMap((l: any) => l.spec.items);
      expect(items.length, d.file).to.equal(grafana.length);
      expect(Object.keys(dashboard.spec.panels).length, d.file).to.equal(grafana.length);
      const entries = report.entries.filter((e) => e.subject === 'panel');
      expect(entries.length, d.file).to.equal(grafana.length);
      items.forEach((item: any, i: number) => {
        const panel = dashboard.spec.panels[item.content.$ref.split('/').pop()];
        expect(panel.spec.display.name, `${d.file} panel ${i}`).to.equal(grafana[i].title ?? grafana[i].libraryPanel?.name ?? '');
      });
    }
  });

  it('keeps the grid positions and sizes of panels that have them', () => {
    for (const d of dashboards) {
      const items = results.get(d.file)!.dashboard.spec.layouts.flatMap((l: any) => l.spec.items);
      grafanaPanels(d.json).forEach((p, i) => {
        if (typeof p.gridPos?.w !== 'number') return;
        const { x, y, w, h } = p.gridPos;
        expect({ x: items[i].x, y: items[i].y, width: items[i].width, height: items[i].height }, `${d.file} ${p.title}`).to.deep.equal({
          x: Math.floor(x ?? 0),
          y: Math.floor(y ?? 0),
          width: Math.floor(w),
          height: Math.floor(h),
        });
      });
    }
  });

  it('lays out the legacy rows[] layout (schema < 16) on the grid without overlaps', () => {
    const legacy = dashboards.filter((d) => !d.json.panels?.length && d.json.rows?.length);
    expect(legacy.length).to.be.greaterThan(10);
    for (const d of legacy) {
      for (const layout of results.get(d.file)!.dashboard.spec.layouts) {
        const items = layout.spec.items;
        for (const a of items) {
          expect(a.x + a.width, d.file).to.be.at.most(24);
          for (const b of items) {
            if (a === b) continue;
            const overlap = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
            expect(overlap, `${d.file}: ${JSON.stringify(a)} overlaps ${JSON.stringify(b)}`).to.equal(false);
          }
        }
      }
      // Grafana shows row headers when a row has its title shown, is collapsed or repeats (DashboardMigrator.upgradeToGridLayout)
      const headers = d.json.rows.some((r: any) => r.showTitle || r.collapse || r.repeat);
      const titled = headers ? d.json.rows.filter((r: any) => r.panels?.length && !r.repeatIteration && !r.repeatRowId) : [];
      expect(results.get(d.file)!.dashboard.spec.layouts.filter((l: any) => l.spec.display).length, d.file).to.equal(titled.length);
    }
  });

  it('keeps the repeat variable of repeated panels and rows', () => {
    let repeats = 0;
    for (const d of dashboards) {
      const items = results.get(d.file)!.dashboard.spec.layouts.flatMap((l: any) => l.spec.items);
      grafanaPanels(d.json).forEach((p, i) => {
        if (!p.repeat) return;
        repeats++;
        expect(items[i].repeatVariable?.value, `${d.file} ${p.title}`).to.equal(p.repeat);
      });
    }
    expect(repeats).to.be.greaterThan(0);
  });

  it('accounts for every variable, and a placeholder panel names the Grafana type and title', () => {
    for (const d of dashboards) {
      const { dashboard, report } = results.get(d.file)!;
      expect(report.entries.filter((e) => e.subject === 'variable').length, d.file).to.equal(d.json.templating?.list?.length ?? 0);
      for (const e of report.entries.filter((x) => x.outcome === 'placeholder' && x.subject === 'panel')) {
        const text = dashboard.spec.panels[e.path!.split('.').pop()!].spec.plugin.spec.text;
        expect(text, `${d.file} ${e.source}`).to.match(/^\*\*Not migrated from Grafana\*\*/);
        expect(text).to.include(e.source.split(' "')[0]);
      }
    }
  });

  it('maps at least 98% of the panels to a real plugin and 93.9% of the variables (the others query Graphite, CloudWatch or ClickHouse, or choose a CloudWatch datasource)', () => {
    const sum = { panels: 0, placeholders: 0, variables: 0, variablesMapped: 0 };
    for (const { report } of results.values()) {
      sum.panels += report.summary.panels.total;
      sum.placeholders += report.summary.panels.placeholder;
      sum.variables += report.summary.variables.total;
      sum.variablesMapped += report.summary.variables.mapped + report.summary.variables.approximated;
    }
    expect(1 - sum.placeholders / sum.panels).to.be.at.least(0.98);
    expect(sum.variablesMapped / sum.variables).to.be.at.least(0.939);
  });

  it("uses only units the web UI's Perses packages can format (an unknown unit makes them throw)", () => {
    const { formatValue } = createRequire(import.meta.url)('@perses-dev/core/dist/cjs/model/units/units.js') as {
      formatValue(v: number, f: object): string;
    };
    const units = new Set(MAPPED_GRAFANA_UNITS.map((u) => mapUnit(u)!.unit));
    const collect = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) k === 'unit' && typeof x === 'string' ? units.add(x) : collect(x);
    };
    for (const r of results.values()) collect(r.dashboard.spec);
    for (const unit of units) expect(() => formatValue(1234.5, { unit }), unit).not.to.throw();
  });

  it('queries that used a datasource variable name its picker ("$datasource"), defaulting to the chosen datasource; with the project defaults asked for, they name none', () => {
    const d = dashboards.find((x) => x.file.includes('k8s-views-pods'))!;
    const queries = (r: MigrationResult) =>
      Object.values<any>(r.dashboard.spec.panels)
        .flatMap((p) => p.spec.queries ?? [])
        .map((q) => q.spec.plugin.spec.datasource);
    const picker = (r: MigrationResult) => r.dashboard.spec.variables.find((v: any) => v.spec.name === 'datasource').spec;
    expect(queries(results.get(d.file)!).every((ds) => ds === '$datasource')).to.equal(true);
    expect(picker(results.get(d.file)!)).to.deep.include({
      plugin: { kind: 'DatasourceVariable', spec: { datasourcePluginKind: 'PrometheusDatasource' } },
    });
    const named = migrateGrafanaDashboard(d.json, { datasource: 'prom-main' });
    expect(queries(named).every((ds) => ds === '$datasource')).to.equal(true);
    expect(picker(named).defaultValue).to.equal('prom-main');
    const defaults = migrateGrafanaDashboard(d.json, { useDefaultDatasource: true });
    expect(queries(defaults).every((ds) => ds === undefined)).to.equal(true);
  });
});
