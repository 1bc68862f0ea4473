import { expect } from 'chai';
import { dashboard } from './dashboard.js';
import { panelGroup, placed } from './group.js';
import { flow, keyFromTitle } from './layout.js';
import { panel, query } from './panel.js';
import { markdown, prometheusTimeSeriesQuery, timeSeriesChart } from './generated/plugins.js';
import { listVariable } from './variables.js';
import { plugin } from './plugin.js';

const chart = (title: string, extra: { key?: string; width?: number; height?: number } = {}) =>
  panel({ title, plugin: timeSeriesChart({}), ...extra });

describe('SDK: dashboard builders', () => {
  it('derives keys from titles, unique in the dashboard, after the keys given', () => {
    expect(keyFromTitle('CPU usage (%)')).to.equal('cpu_usage');
    expect(keyFromTitle('Débit réseau')).to.equal('debit_reseau');
    expect(keyFromTitle(undefined)).to.equal('panel');
    const d = dashboard({
      name: 'd',
      groups: [panelGroup({ panels: [chart('CPU'), chart('CPU'), chart('Other', { key: 'cpu_2' }), chart('CPU')] })],
    });
    expect(Object.keys(d.spec.panels)).to.deep.equal(['cpu_2', 'cpu', 'cpu_3', 'cpu_4']);
    expect(d.spec.layouts[0].spec.items.map((i) => i.content.$ref.split('/').pop())).to.deep.equal(['cpu', 'cpu_3', 'cpu_2', 'cpu_4']);
  });

  it('lays panels out in rows of N, a row as high as its highest panel; placed panels keep their position', () => {
    expect(
      flow([
        { width: 12, height: 6 },
        { width: 12, height: 8 },
        { width: 24, height: 4 },
      ]),
    ).to.deep.equal([
      { x: 0, y: 0, width: 12, height: 6 },
      { x: 12, y: 0, width: 12, height: 8 },
      { x: 0, y: 8, width: 24, height: 4 },
    ]);
    const d = dashboard({
      name: 'd',
      groups: [
        panelGroup({
          title: 'G',
          collapsed: true,
          columns: 4,
          height: 5,
          panels: [chart('a'), chart('b', { width: 12 }), chart('c'), placed(chart('z'), { x: 3, y: 40, width: 2, height: 2 }), chart('e')],
        }),
      ],
    });
    const layout = d.spec.layouts[0];
    expect(layout.spec.display).to.deep.equal({ title: 'G', collapse: { open: false } });
    expect(layout.spec.items.map(({ x, y, width, height }) => [x, y, width, height])).to.deep.equal([
      [0, 0, 6, 5],
      [6, 0, 12, 5],
      [18, 0, 6, 5],
      [3, 40, 2, 2],
      [0, 5, 6, 5],
    ]);
  });

  it('writes nothing the server fills in, nor options left out', () => {
    const d = dashboard({ name: 'd', groups: [] });
    expect(d).to.deep.equal({ kind: 'Dashboard', metadata: { name: 'd' }, spec: { panels: {}, layouts: [] } });
  });

  it('names datasources by name, keeps variable references, and wraps query plugins in their query type', () => {
    const p = panel({
      title: 'x',
      plugin: markdown({ text: '' }),
      queries: [
        prometheusTimeSeriesQuery({ query: 'up', datasource: 'prom' }),
        query(prometheusTimeSeriesQuery({ query: 'up', datasource: '$ds' }), { name: 'second' }),
      ],
    });
    expect(p.spec.queries).to.deep.equal([
      {
        kind: 'TimeSeriesQuery',
        spec: {
          plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: 'up', datasource: { kind: 'PrometheusDatasource', name: 'prom' } } },
        },
      },
      {
        kind: 'TimeSeriesQuery',
        spec: { name: 'second', plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: 'up', datasource: '$ds' } } },
      },
    ]);
    expect(() => query(plugin('SomethingElse', {}))).to.throw(/pass its query type/);
    expect(listVariable({ name: 'v', plugin: plugin('StaticListVariable', { values: ['a'] }) })).to.deep.equal({
      kind: 'ListVariable',
      spec: { name: 'v', plugin: { kind: 'StaticListVariable', spec: { values: ['a'] } } },
    });
  });

  it('refuses what cannot be built, saying how to fix it', () => {
    expect(() => dashboard({ name: '' })).to.throw(/name is required/);
    expect(() => panelGroup({ collapsed: true, panels: [] })).to.throw(/without a title cannot be collapsed/);
    expect(() => panelGroup({ columns: 0, panels: [] })).to.throw(/columns must be a whole number from 1 to 24/);
    const same = chart('a', { key: 'k' });
    expect(() => dashboard({ name: 'd', groups: [panelGroup({ panels: [same, chart('b', { key: 'k' })] })] })).to.throw(
      /two panels have the key "k"/,
    );
  });
});
