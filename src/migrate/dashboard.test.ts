import { expect } from 'chai';
import { ApiError } from '../errors.js';
import { migrateGrafanaDashboard } from './dashboard.js';
import { formatReport } from './report.js';

const grafana = {
  uid: 'node-uid',
  title: 'Node / Overview',
  description: 'hosts',
  tags: ['linux'],
  time: { from: 'now-3h', to: 'now' },
  refresh: '30s',
  timezone: 'browser',
  __inputs: [{ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }],
  templating: { list: [{ type: 'query', name: 'instance', datasource: '${DS_PROMETHEUS}', query: 'label_values(up, instance)' }] },
  panels: [
    {
      type: 'stat',
      title: 'Up',
      datasource: '${DS_PROMETHEUS}',
      gridPos: { x: 0, y: 0, w: 6, h: 4 },
      targets: [{ refId: 'A', expr: 'up{instance="$instance"}' }],
    },
  ],
};

describe('migrate: dashboard', () => {
  it('migrates title, description, tags, time range, refresh and the name from the uid', () => {
    const { dashboard } = migrateGrafanaDashboard(grafana, { project: 'ops' });
    expect(dashboard.metadata).to.deep.equal({
      name: 'node-uid',
      createdAt: '0001-01-01T00:00:00Z',
      updatedAt: '0001-01-01T00:00:00Z',
      version: 0,
      project: 'ops',
      tags: ['linux'],
    });
    expect(dashboard.spec).to.include({ duration: '3h', refreshInterval: '30s' });
    expect(dashboard.spec.display).to.deep.equal({ name: 'Node / Overview', description: 'hosts' });
    expect(dashboard.spec.layouts).to.deep.equal([
      { kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 6, height: 4, content: { $ref: '#/spec/panels/0' } }] } },
    ]);
  });

  it('accepts Grafana API answers ({dashboard, meta}) and applies input values', () => {
    const { dashboard } = migrateGrafanaDashboard({ dashboard: grafana, meta: { slug: 'x' } }, { input: { DS_PROMETHEUS: 'prom-eu' } });
    expect(dashboard.spec.panels['0'].spec.queries[0].spec.plugin.spec.datasource).to.deep.equal({
      kind: 'PrometheusDatasource',
      name: 'prom-eu',
    });
    expect(dashboard.spec.variables[0].spec.plugin.spec.datasource).to.deep.equal({ kind: 'PrometheusDatasource', name: 'prom-eu' });
  });

  it('derives a unique valid name from the title when the uid cannot be one, and reports it', () => {
    const { dashboard, report } = migrateGrafanaDashboard({ ...grafana, uid: 'has space' }, { takenNames: new Set(['node-overview']) });
    expect(dashboard.metadata.name).to.equal('node-overview-2');
    const entry = report.entries.find((e) => e.subject === 'dashboard')!;
    expect(entry.notes.join('\n'))
      .to.match(/"has space" is not a valid name/)
      .and.match(/already exists/);
    expect(migrateGrafanaDashboard(grafana, { name: 'chosen' }).dashboard.metadata.name).to.equal('chosen');
  });

  it('refuses what is not a Grafana dashboard with a message naming the field and the fix', () => {
    const attempt = (input: unknown, name?: string) => {
      try {
        migrateGrafanaDashboard(input, { name });
        return undefined;
      } catch (e) {
        expect(e).to.be.instanceOf(ApiError);
        return (e as ApiError).message;
      }
    };
    expect(attempt([])).to.match(/^grafanaDashboard must be a Grafana dashboard JSON object/);
    expect(attempt({ foo: 1 })).to.match(/no "panels", "rows", "title" or "templating"/);
    expect(attempt({ kind: 'Dashboard', metadata: {}, spec: {} })).to.match(/already a Perses dashboard/);
    expect(attempt(grafana, 'a b')).to.match(/^name: "a b" is not a valid dashboard name/);
  });

  it('reports every element, and the text report lists what was not plainly mapped', () => {
    const { report } = migrateGrafanaDashboard({
      ...grafana,
      panels: [...grafana.panels, { type: 'alertlist', title: 'Alerts', gridPos: { x: 6, y: 0, w: 6, h: 4 } }],
    });
    expect(report.summary.panels).to.deep.equal({ total: 2, mapped: 1, approximated: 0, unrendered: 0, placeholder: 1, dropped: 0 });
    expect(report.summary.variables.total).to.equal(1);
    const text = formatReport(report);
    expect(text).to.include('placeholder  panel alertlist "Alerts" -> Markdown (placeholder) at spec.panels.1');
    expect(text.trim().split('\n').pop()).to.equal(
      '2 panels (1 mapped, 1 placeholder); 1 variables (1 mapped); 1 queries (1 mapped); 0 other settings',
    );
  });

  it('a Grafana datasource variable becomes a DatasourceVariable that the queries and variables using it name ("$ds"), whatever datasource was chosen', () => {
    const picking = {
      ...grafana,
      __inputs: undefined,
      templating: {
        list: [
          { type: 'datasource', name: 'ds', query: 'prometheus' },
          { type: 'query', name: 'instance', datasource: { type: 'prometheus', uid: '${ds}' }, query: 'label_values(up, instance)' },
        ],
      },
      panels: [{ ...grafana.panels[0], datasource: { type: 'prometheus', uid: '$ds' } }],
    };
    for (const datasource of [undefined, 'prom-eu']) {
      const { dashboard } = migrateGrafanaDashboard(picking, { datasource });
      expect(dashboard.spec.variables[0].spec).to.deep.include({
        name: 'ds',
        plugin: { kind: 'DatasourceVariable', spec: { datasourcePluginKind: 'PrometheusDatasource' } },
      });
      expect(dashboard.spec.variables[0].spec.defaultValue).to.equal(datasource);
      expect(dashboard.spec.variables[1].spec.plugin.spec.datasource).to.equal('$ds');
      expect(dashboard.spec.panels['0'].spec.queries[0].spec.plugin.spec.datasource).to.equal('$ds');
    }
    const defaults = migrateGrafanaDashboard(picking, { useDefaultDatasource: true }).dashboard;
    expect(defaults.spec.variables.map((v: { spec: { name: string } }) => v.spec.name)).to.deep.equal(['instance']);
    expect(defaults.spec.panels['0'].spec.queries[0].spec.plugin.spec).not.to.have.property('datasource');
  });
});
