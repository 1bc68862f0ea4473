import { expect } from 'chai';
import { datasourceRefs, fallbackDatasourceKinds, missingDatasources, resolveDatasource } from './datasource-refs.js';

const PLUGINS = [
  { module: 'prometheus', type: 'Datasource', kind: 'PrometheusDatasource' },
  { module: 'prometheus', type: 'TimeSeriesQuery', kind: 'PrometheusTimeSeriesQuery' },
  { module: 'prometheus', type: 'Datasource', kind: 'MetricsDatasource' },
  { module: 'prometheus', type: 'TimeSeriesQuery', kind: 'MetricsTimeSeriesQuery' },
  { module: 'prometheus', type: 'Variable', kind: 'PrometheusLabelValuesVariable' },
  { module: 'timeserieschart', type: 'Panel', kind: 'TimeSeriesChart' },
];
const fallback = fallbackDatasourceKinds(PLUGINS);
const ds = (name: string, isDefault = false, kind = 'PrometheusDatasource') => ({ name, kind, isDefault });
const plugin = (kind: string, spec: Record<string, unknown> = {}) => ({ kind, spec });

describe("datasource references and Perses' resolution (src/lib/datasource-refs.ts)", () => {
  it('a plugin naming no datasource uses its own kind: the module datasource kind sharing the longest prefix', () => {
    expect(fallback.get('PrometheusTimeSeriesQuery')).to.equal('PrometheusDatasource');
    expect(fallback.get('MetricsTimeSeriesQuery')).to.equal('MetricsDatasource');
    expect(fallback.has('TimeSeriesChart'), 'panels ask for nothing').to.equal(false);
  });

  it('finds selectors and plugins without one, leaves variables ($ds, or a string) and the local definitions out', () => {
    const spec = {
      datasources: { local: { default: true, plugin: plugin('PrometheusDatasource') } },
      panels: {
        a: {
          kind: 'Panel',
          spec: {
            plugin: plugin('TimeSeriesChart'),
            queries: [
              {
                kind: 'TimeSeriesQuery',
                spec: { plugin: plugin('PrometheusTimeSeriesQuery', { datasource: { kind: 'PrometheusDatasource', name: 'x' } }) },
              },
              { kind: 'TimeSeriesQuery', spec: { plugin: plugin('PrometheusTimeSeriesQuery') } },
              {
                kind: 'TimeSeriesQuery',
                spec: { plugin: plugin('PrometheusTimeSeriesQuery', { datasource: { kind: 'PrometheusDatasource', name: '${ds}' } }) },
              },
              { kind: 'TimeSeriesQuery', spec: { plugin: plugin('PrometheusTimeSeriesQuery', { datasource: '$ds' }) } },
            ],
          },
        },
      },
      variables: [
        {
          kind: 'ListVariable',
          spec: {
            name: 'v',
            plugin: plugin('PrometheusLabelValuesVariable', { labelName: 'job', datasource: { kind: 'PrometheusDatasource' } }),
          },
        },
      ],
    };
    expect(datasourceRefs(spec, fallback)).to.deep.equal([
      {
        path: 'spec.panels.a.spec.queries[0].spec.plugin.spec.datasource',
        selector: { kind: 'PrometheusDatasource', name: 'x' },
        implicit: false,
      },
      { path: 'spec.panels.a.spec.queries[1].spec.plugin', selector: { kind: 'PrometheusDatasource' }, implicit: true },
      { path: 'spec.variables[0].spec.plugin.spec.datasource', selector: { kind: 'PrometheusDatasource' }, implicit: false },
    ]);
  });

  it('resolves in the dashboard (by key, of that kind), then the project (exact name, then any case), then the global scope', () => {
    const scopes = {
      dashboard: [ds('mine', true), ds('tempo', false, 'TempoDatasource')],
      project: [ds('Main'), ds('main'), ds('proj-default', true)],
      global: [ds('shared', true), ds('Main')],
    };
    expect(resolveDatasource({ kind: 'PrometheusDatasource' }, scopes)).to.deep.include({ scope: 'dashboard' });
    expect(resolveDatasource({ kind: 'PrometheusDatasource', name: 'main' }, scopes)).to.deep.equal({
      scope: 'project',
      datasource: ds('main'),
    });
    expect(resolveDatasource({ kind: 'PrometheusDatasource', name: 'MAIN' }, scopes)).to.deep.equal({
      scope: 'project',
      datasource: ds('Main'),
    });
    expect(
      resolveDatasource({ kind: 'PrometheusDatasource', name: 'tempo' }, scopes),
      'a local datasource of another kind does not answer',
    ).to.equal(undefined);
    expect(resolveDatasource({ kind: 'PrometheusDatasource', name: 'shared' }, scopes)).to.deep.equal({
      scope: 'global',
      datasource: ds('shared', true),
    });
    expect(resolveDatasource({ kind: 'PrometheusDatasource' }, { project: [ds('p')], global: [ds('g', true)] })).to.deep.equal({
      scope: 'global',
      datasource: ds('g', true),
    });
    expect(resolveDatasource({ kind: 'PrometheusDatasource', name: 'nope' }, { project: [], global: undefined })).to.equal('unknown');
  });

  it('reports what no scope has, and says so when the global scope could not be read; nothing when the project could not be', () => {
    const spec = {
      panels: {
        a: { kind: 'Panel', spec: { queries: [{ kind: 'TimeSeriesQuery', spec: { plugin: plugin('PrometheusTimeSeriesQuery') } }] } },
      },
    };
    expect(missingDatasources(spec, fallback, { project: [ds('p')], global: [] }, 'web').map((m) => m.message)).to.deep.equal([
      'names no datasource, so it asks for the default datasource of kind PrometheusDatasource, which is not in project "web" or the global datasources: make a datasource of that kind the default, or name one',
    ]);
    expect(missingDatasources(spec, fallback, { project: [ds('p')] }, 'web')[0].message).to.contain(
      'which is not in project "web" (the global datasources could not be checked)',
    );
    expect(missingDatasources(spec, fallback, { global: [] }, 'web')).to.deep.equal([]);
    expect(missingDatasources(spec, fallback, { project: [ds('p', true)], global: [] }, 'web')).to.deep.equal([]);
  });
});
