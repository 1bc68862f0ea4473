/**
 * Which dashboards a datasource serves (ui/src/manage/datasource-users.ts), the list the delete
 * confirmation names, against the plugin modules a real server serves.
 */
import { expect } from 'chai';
import { dashboardUses, implicitDatasourceKinds, type PluginModuleInfo } from '../ui/src/manage/datasource-users.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const query = (spec: Record<string, unknown>) => ({
  kind: 'TimeSeriesQuery',
  spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: 'up', ...spec } } },
});
const dashboard = (queries: unknown[], extra: Record<string, unknown> = {}) => ({
  ...extra,
  panels: { a: { kind: 'Panel', spec: { plugin: { kind: 'TimeSeriesChart', spec: {} }, queries } } },
});

describe('delete confirmation: the dashboards a datasource serves', () => {
  let s: TestServer;
  let implicit: Map<string, string>;
  const prom = { pluginKind: 'PrometheusDatasource', name: 'prometheus-datasource', isDefault: true };
  before(async () => {
    s = await startTestServer();
    implicit = implicitDatasourceKinds((await s.api('GET', '/api/v1/plugins')).body as PluginModuleInfo[]);
  });
  after(async () => s?.stop());

  it('counts queries that name no datasource as users of the default of their plugin’s datasource kind', () => {
    const noSelector = dashboard([query({})]);
    expect(dashboardUses(noSelector, prom, implicit)).to.equal(true);
    expect(dashboardUses(noSelector, { ...prom, isDefault: false }, implicit)).to.equal(false);
    // another plugin kind's default is not what these queries go through
    expect(dashboardUses(noSelector, { pluginKind: 'TempoDatasource', name: 'tempo', isDefault: true }, implicit)).to.equal(false);
    // variables too (the Perses Demo's job and instance variables name no datasource)
    const variable = {
      variables: [
        { kind: 'ListVariable', spec: { name: 'job', plugin: { kind: 'PrometheusLabelValuesVariable', spec: { labelName: 'job' } } } },
      ],
    };
    expect(dashboardUses({ ...dashboard([]), ...variable }, prom, implicit)).to.equal(true);
    expect(dashboardUses(dashboard([]), prom, implicit)).to.equal(false);
  });

  it('keeps the selector rules: by name, a kind-only selector for the default, a dashboard default first', () => {
    expect(
      dashboardUses(
        dashboard([query({ datasource: { kind: 'PrometheusDatasource', name: 'prometheus-datasource' } })]),
        { ...prom, isDefault: false },
        implicit,
      ),
    ).to.equal(true);
    expect(dashboardUses(dashboard([query({ datasource: { kind: 'PrometheusDatasource', name: 'other' } })]), prom, implicit)).to.equal(
      false,
    );
    expect(dashboardUses(dashboard([query({ datasource: { kind: 'PrometheusDatasource' } })]), prom, implicit)).to.equal(true);
    const local = { datasources: { mine: { default: true, plugin: { kind: 'PrometheusDatasource', spec: {} } } } };
    expect(dashboardUses(dashboard([query({})], local), prom, implicit)).to.equal(false);
    expect(
      dashboardUses(
        dashboard([query({ datasource: { kind: 'PrometheusDatasource', name: 'prometheus-datasource' } })], local),
        prom,
        implicit,
      ),
    ).to.equal(true);
  });
});
