import { expect } from 'chai';
import { DatasourceResolver } from './datasources.js';
import { migratePanel } from './panels.js';
import type { QueryContext } from './queries.js';
import { ReportBuilder } from './report.js';

const ctx = (has = (_: string) => true): QueryContext => ({
  ds: new DatasourceResolver({}, {}),
  report: new ReportBuilder(),
  hasPlugin: has,
});
const run = (panel: object, c = ctx()) => migratePanel(panel, 'spec.panels.0', c);
const target = { refId: 'A', expr: 'up', legendFormat: '{{instance}}' };

describe('migrate: panels', () => {
  it('upgrades the Grafana 6 fieldOptions and valueOptions of gauges, bar gauges and stats before mapping them', () => {
    const fieldOptions = run({
      type: 'bargauge',
      title: 'Disk',
      targets: [target],
      options: {
        orientation: 'horizontal',
        fieldOptions: {
          calcs: ['max'],
          defaults: { unit: 'percent', decimals: 1, max: 90 },
          thresholds: [
            { color: 'red', value: 80 },
            { color: 'green', value: null },
          ],
        },
      },
    });
    expect(fieldOptions.panel.spec.plugin.spec).to.deep.include({ calculation: 'max', format: { unit: 'percent', decimalPlaces: 1 } });
    const valueOptions = run({
      type: 'gauge',
      title: 'Load',
      targets: [target],
      options: {
        valueOptions: { unit: 'percentunit', stat: 'avg', decimals: 2, suffix: '!' },
        maxValue: 2,
        thresholds: [
          { color: 'green', value: null },
          { color: 'red', value: 1.5 },
        ],
      },
    });
    expect(valueOptions.panel.spec.plugin.spec).to.deep.equal({
      calculation: 'mean',
      format: { unit: 'percent-decimal', decimalPlaces: 2 },
      thresholds: {
        steps: [
          { value: 0, color: '#73bf69' },
          { value: 1.5, color: '#f2495c' },
        ],
      },
      max: 2,
    });
    expect(valueOptions.entry.notes).to.deep.equal(['suffix "!" is not shown']);
  });

  it('maps a legacy singlestat to a StatChart with thresholds, value maps and sparkline, or to a GaugeChart', () => {
    const base = {
      type: 'singlestat',
      title: 'Up',
      targets: [target],
      format: 'percent',
      decimals: 1,
      valueName: 'current',
      thresholds: '50,80',
      colors: ['green', 'rgba(237, 129, 40, 0.89)', '#d44a3a'],
      colorValue: true,
    };
    const stat = run({
      ...base,
      sparkline: { show: true, lineColor: 'rgb(31, 120, 193)' },
      mappingType: 1,
      valueMaps: [
        { op: '=', text: 'N/A', value: 'null' },
        { op: '=', text: 'down', value: '0' },
      ],
    });
    expect(stat.panel.spec.plugin).to.deep.equal({
      kind: 'StatChart',
      spec: {
        calculation: 'last-number',
        format: { unit: 'percent', decimalPlaces: 1 },
        thresholds: {
          steps: [
            { value: 0, color: '#73bf69' },
            { value: 50, color: '#ed8128' },
            { value: 80, color: '#d44a3a' },
          ],
        },
        colorMode: 'value',
        sparkline: { color: '#1f78c1' },
        mappings: [
          { kind: 'Misc', spec: { value: 'null', result: { value: 'N/A' } } },
          { kind: 'Value', spec: { value: '0', result: { value: 'down' } } },
        ],
      },
    });
    const gauge = run({ ...base, gauge: { show: true, maxValue: 200 } });
    expect(gauge.panel.spec.plugin.kind).to.equal('GaugeChart');
    expect(gauge.panel.spec.plugin.spec.max).to.equal(200);
    expect(gauge.entry).to.include({ outcome: 'mapped', result: 'GaugeChart' });
  });

  it('keeps the fieldConfig of a singlestat that has one: mappings, unit, range (Grafana keeps them when it upgrades it)', () => {
    const mappings = [{ type: 'value', options: { 0: { color: 'red', text: 'Down' }, 1: { color: 'green', text: 'Up' } } }];
    const stat = run({ type: 'singlestat', title: 'Up', targets: [target], fieldConfig: { defaults: { mappings } } });
    expect(stat.panel.spec.plugin.spec.mappings).to.deep.equal([
      { kind: 'Value', spec: { value: '0', result: { value: 'Down', color: '#f2495c' } } },
      { kind: 'Value', spec: { value: '1', result: { value: 'Up', color: '#73bf69' } } },
    ]);
    const gauge = run({
      type: 'singlestat',
      title: 'Idle',
      gauge: { show: true },
      targets: [target],
      fieldConfig: { defaults: { unit: 'percent', min: 10, max: 100, mappings } },
    });
    expect(gauge.panel.spec.plugin).to.deep.equal({
      kind: 'GaugeChart',
      spec: { calculation: 'mean', format: { unit: 'percent' }, max: 100 },
    });
    expect(gauge.entry.notes).to.deep.equal([
      'gauge minimum 10 is not supported: the gauge starts at 0',
      'value mappings are not shown by GaugeChart (2 dropped)',
    ]);
  });

  it('colours a stat or gauge with its fixed colour, and notes the colour schemes Perses does not have', () => {
    const fixed = run({
      type: 'stat',
      title: 'Errors',
      targets: [target],
      fieldConfig: {
        defaults: { color: { mode: 'fixed', fixedColor: 'orange' }, thresholds: { steps: [{ value: null, color: 'green' }] } },
      },
    });
    expect(fixed.panel.spec.plugin.spec.thresholds).to.deep.equal({ defaultColor: '#ff9830', steps: [{ value: 0, color: '#ff9830' }] });
    expect(fixed.entry.outcome).to.equal('mapped');
    const gauge = run({
      type: 'gauge',
      title: 'Load',
      targets: [target],
      fieldConfig: { defaults: { color: { mode: 'fixed', fixedColor: '#123456' } } },
    });
    expect(gauge.panel.spec.plugin.spec.thresholds).to.deep.equal({ defaultColor: '#123456', steps: [{ value: 0, color: '#123456' }] });
    const palette = run({ type: 'stat', title: 'p', targets: [target], fieldConfig: { defaults: { color: { mode: 'palette-classic' } } } });
    expect(palette.entry.notes).to.deep.equal(['colour scheme "palette-classic" is not supported: the value is coloured by thresholds']);
  });

  it('names the overrides and fixed colour of a bar chart, which BarChart cannot carry', () => {
    const r = run({
      type: 'barchart',
      title: 'Logs by level',
      targets: [target, { refId: 'B', expr: 'up' }],
      fieldConfig: {
        defaults: { color: { mode: 'fixed', fixedColor: 'blue' } },
        overrides: [
          {
            matcher: { id: 'byFrameRefID', options: 'A' },
            properties: [
              { id: 'displayName', value: 'Lines' },
              { id: 'color', value: { mode: 'fixed', fixedColor: 'super-light-blue' } },
            ],
          },
          { matcher: { id: 'byName', options: 'B' }, properties: [{ id: 'custom.hideFrom', value: { viz: true } }] },
        ],
      },
    });
    expect(r.entry.notes.slice(1)).to.deep.equal([
      'the fixed colour "blue" is not carried: BarChart colours bars from its palette',
      '2 per-series override(s) are not carried (BarChart styles all bars alike): byFrameRefID "A" (name "Lines", colour super-light-blue); byName "B" (custom.hideFrom)',
    ]);
  });

  it('maps heatmap, histogram, state-timeline and bar chart panels to their Perses plugins, noting what differs', () => {
    const kinds = ['heatmap', 'histogram', 'state-timeline', 'barchart', 'bargauge', 'piechart', 'logs'].map((type) => {
      const r = run({ type, title: type, targets: [target] });
      return [type, r.panel.spec.plugin.kind, r.entry.outcome];
    });
    expect(kinds).to.deep.equal([
      ['heatmap', 'HeatMapChart', 'mapped'],
      ['histogram', 'HistogramChart', 'approximated'],
      ['state-timeline', 'StatusHistoryChart', 'approximated'],
      ['barchart', 'BarChart', 'approximated'],
      ['bargauge', 'BarChart', 'mapped'],
      ['piechart', 'PieChart', 'mapped'],
      ['logs', 'LogsTable', 'mapped'],
    ]);
  });

  it('maps a legacy graph: axis, legend, stacking, series overrides; in series mode a BarChart', () => {
    const r = run({
      type: 'graph',
      title: 'CPU',
      targets: [target, { refId: 'B', expr: 'sum(up)', legendFormat: 'total' }],
      yaxes: [{ format: 'bytes', min: '0', logBase: 1, show: true }, { show: false }],
      legend: { show: true, rightSide: true, values: true, current: true, max: true },
      lines: true,
      linewidth: 2,
      fill: 5,
      stack: true,
      seriesOverrides: [{ alias: 'total', color: '#FF0000', fill: 0, dashes: true, zindex: 3 }],
    });
    expect(r.panel.spec.plugin.spec).to.deep.equal({
      legend: { position: 'right', mode: 'list', values: ['max', 'last-number'] },
      yAxis: { format: { unit: 'bytes' }, min: 0 },
      visual: { display: 'line', lineWidth: 2, areaOpacity: 0.5, stack: 'all' },
      querySettings: [{ queryIndex: 1, colorMode: 'fixed', colorValue: '#FF0000', areaOpacity: 0, lineStyle: 'dashed' }],
    });
    expect(r.entry.notes.join()).to.match(/series override "zindex"/);
    const bars = run({ type: 'graph', title: 'x', xaxis: { mode: 'series', values: ['max'] }, targets: [target] });
    expect(bars.panel.spec.plugin).to.deep.equal({ kind: 'BarChart', spec: { calculation: 'max', orientation: 'vertical' } });
  });

  it('says percentage stacking is plain stacking only when the legacy graph stacks (Grafana ignores percentage without stack)', () => {
    const note = 'percentage stacking is shown as plain stacking';
    const graph = (stack: boolean) => run({ type: 'graph', title: 'g', targets: [target], lines: true, stack, percentage: true });
    expect(graph(true).entry.notes).to.deep.equal([note]);
    expect(graph(true).panel.spec.plugin.spec.visual).to.deep.equal({ display: 'line', stack: 'all' });
    expect(graph(false).entry).to.include({ outcome: 'mapped' });
    expect(graph(false).panel.spec.plugin.spec.visual).to.deep.equal({ display: 'line' });
  });

  it('turns a panel without equivalent into a Markdown placeholder naming its type and title, with its queries', () => {
    const r = run({
      type: 'grafana-worldmap-panel',
      title: 'Where',
      description: 'map',
      targets: [{ refId: 'A', expr: 'sum by (country) (up)' }],
    });
    expect(r.entry).to.include({ outcome: 'placeholder', source: 'grafana-worldmap-panel "Where"', result: 'Markdown (placeholder)' });
    expect(r.panel.spec.display).to.deep.equal({ name: 'Where', description: 'map' });
    expect(r.panel.spec.plugin.spec.text).to.equal(
      '**Not migrated from Grafana**: "Where" is a `grafana-worldmap-panel` panel. dashplane has no plugin for it.\n\nOriginal queries:\n\n```text\nA: sum by (country) (up)\n```',
    );
  });

  it('uses a placeholder when the server lacks the plugin, and counts the queries once', () => {
    const c = ctx((k) => k !== 'LogsTable');
    const r = run({ type: 'logs', title: 'Logs', targets: [{ refId: 'A', expr: '{job="x"}', datasource: { type: 'loki' } }] }, c);
    expect(r.entry.outcome).to.equal('placeholder');
    expect(r.panel.spec.plugin.spec.text).to.match(/LogsTable, is not installed/);
    expect(c.report.build().summary.queries).to.include({ total: 1, placeholder: 1 });
  });

  it('says in the description when queries are placeholders, and keeps panel links with a URL', () => {
    const r = run({
      type: 'timeseries',
      title: 'T',
      datasource: { type: 'elasticsearch', uid: 'es' },
      targets: [{ refId: 'A', query: 'status:500' }],
      links: [
        { title: 'doc', url: 'https://x/$var', targetBlank: true },
        { title: 'old', dashboard: 'other' },
      ],
      timeShift: '1h',
    });
    expect(r.panel.spec.display.description).to.match(/1 of 1 queries could not be migrated/);
    expect(r.panel.spec.links).to.deep.equal([{ name: 'doc', url: 'https://x/$var', targetBlank: true, renderVariables: true }]);
    expect(r.entry.notes.join('\n'))
      .to.match(/elasticsearch/)
      .and.match(/has no URL/)
      .and.match(/time shift "1h"/);
  });
});
