import { expect } from 'chai';
import { DatasourceResolver } from './datasources.js';
import { ReportBuilder } from './report.js';
import { migrateVariables } from './variables.js';

function migrate(list: object[], opts = {}, more: object = {}, hasPlugin = (_kind: string) => true) {
  const dashboard = { templating: { list }, ...more };
  return migrateVariables(dashboard, { ds: new DatasourceResolver(dashboard, opts), report: new ReportBuilder(), hasPlugin });
}

describe('migrate: variables', () => {
  it('maps query variables: label_values, label_names, metrics and query_result, with regex, sort, multi and all', () => {
    const { variables, entries } = migrate([
      {
        type: 'query',
        name: 'job',
        datasource: { type: 'prometheus', uid: 'x' },
        query: { query: 'label_values(up{env="prod"}, job)' },
        regex: '/^(api|web)$/',
        sort: 1,
        multi: true,
        includeAll: true,
        allValue: '.*',
        current: { value: ['api', 'web'] },
      },
      { type: 'query', name: 'label', query: 'label_names()', hide: 1, label: 'Label' },
      { type: 'query', name: 'metric', query: 'metrics(node_cpu)' },
      {
        type: 'query',
        name: 'cluster',
        query: 'query_result(up)',
        regex: '/.*cluster="([^"]+)".*/',
        current: { value: '$__all' },
        sort: 8,
      },
    ]);
    expect(variables.map((v) => v.spec)).to.deep.equal([
      {
        name: 'job',
        display: { hidden: false },
        defaultValue: ['api', 'web'],
        allowAllValue: true,
        allowMultiple: true,
        customAllValue: '.*',
        capturingRegexp: '^(api|web)$',
        sort: 'alphabetical-asc',
        plugin: { kind: 'PrometheusLabelValuesVariable', spec: { labelName: 'job', matchers: ['up{env="prod"}'] } },
      },
      {
        name: 'label',
        display: { name: 'Label', hidden: false },
        allowAllValue: false,
        allowMultiple: false,
        plugin: { kind: 'PrometheusLabelNamesVariable', spec: { matchers: [] } },
      },
      {
        name: 'metric',
        display: { hidden: false },
        allowAllValue: false,
        allowMultiple: false,
        capturingRegexp: '^(.*(?:node_cpu).*)$',
        plugin: { kind: 'PrometheusLabelValuesVariable', spec: { labelName: '__name__', matchers: [] } },
      },
      {
        name: 'cluster',
        display: { hidden: false },
        defaultValue: '$__all',
        allowAllValue: false,
        allowMultiple: false,
        sort: 'alphabetical-ci-desc',
        plugin: { kind: 'PrometheusPromQLVariable', spec: { expr: 'up', labelName: 'cluster' } },
      },
    ]);
    expect(entries.map((e) => e.outcome)).to.deep.equal(['mapped', 'mapped', 'mapped', 'approximated']);
  });

  it('maps custom, interval, constant and textbox variables', () => {
    const { variables, entries } = migrate([
      { type: 'custom', name: 'env', query: 'prod : production,  staging, a\\,b', current: { value: 'staging' } },
      {
        type: 'interval',
        name: 'step',
        auto: true,
        query: '1m,5m',
        options: [
          { text: 'auto', value: '$__auto_interval_step' },
          { text: '1m', value: '1m' },
          { text: '5m', value: '5m' },
        ],
      },
      { type: 'constant', name: 'site', query: 'eu-1' },
      { type: 'textbox', name: 'filter', query: 'x', current: { value: 'y' }, description: 'free text', hide: 2 },
    ]);
    expect(variables.map((v) => [v.kind, v.spec.plugin?.spec ?? v.spec.value])).to.deep.equal([
      ['ListVariable', { values: [{ label: 'prod', value: 'production' }, 'staging', 'a,b'] }],
      ['ListVariable', { values: ['1m', '5m'] }],
      ['TextVariable', 'eu-1'],
      ['TextVariable', 'y'],
    ]);
    expect(variables[2].spec).to.include({ constant: true });
    expect(variables[2].spec.display.hidden).to.equal(true);
    expect(variables[3].spec.display).to.deep.equal({ description: 'free text', hidden: true });
    expect(entries[1].notes[0]).to.match(/"auto" interval/);
  });

  it('gives an interval variable saved on "auto" a listed default: the interval nearest to what auto chose, never the $__auto_interval marker', () => {
    const interval = (more: object) => ({
      type: 'interval',
      name: 'iv',
      auto: true,
      auto_count: 30,
      auto_min: '10s',
      query: '1m,10m,30m,1h,1d',
      current: { text: 'auto', value: '$__auto_interval_iv' },
      options: [{ text: 'auto', value: '$__auto_interval_iv' }, ...['1m', '10m', '30m', '1h', '1d'].map((x) => ({ text: x, value: x }))],
      ...more,
    });
    const sixHours = migrate([interval({})], {}, { time: { from: 'now-6h', to: 'now' } });
    expect(sixHours.variables[0].spec).to.include({ defaultValue: '10m' });
    expect(sixHours.variables[0].spec.plugin.spec.values).to.deep.equal(['1m', '10m', '30m', '1h', '1d']);
    expect(sixHours.entries[0].notes).to.deep.equal([
      'the "auto" interval option is not supported: the default is 10m, the listed interval nearest to the 12m "auto" chose (the dashboard\'s 6h in 30 steps, at least 10s)',
    ]);
    // a week in 10 steps; no time range: Perses' 1h, at least 30m
    expect(migrate([interval({ auto_count: 10 })], {}, { time: { from: 'now-7d', to: 'now' } }).variables[0].spec.defaultValue).to.equal(
      '1d',
    );
    expect(migrate([interval({ auto_min: '30m' })]).variables[0].spec.defaultValue).to.equal('30m');
    // no listed duration: no default (Perses takes the first value)
    const odd = migrate([interval({ query: 'fast,slow', options: [] })]);
    expect(odd.variables[0].spec).not.to.have.property('defaultValue');
    expect(odd.entries[0].notes).to.deep.equal(['the "auto" interval option is not supported: the first listed interval is the default']);
  });

  it('keeps Prometheus and Loki datasource variables as pickers (DatasourceVariable) that their queries name; another type is dropped, saying its queries are placeholders', () => {
    const list = [
      { type: 'datasource', name: 'cw', query: 'cloudwatch', current: { text: 'CloudWatch', value: 'CloudWatch' } },
      { type: 'query', name: 'job', datasource: { type: 'prometheus', uid: '${mimir}' }, query: 'label_values(up, job)' },
      {
        type: 'datasource',
        name: 'mimir',
        query: 'grafana-mimir-datasource',
        label: 'Metrics from',
        current: { text: 'Mimir EU', value: 'P1809F7CD0C75ACF3' },
      },
      { type: 'datasource', name: 'logs', query: 'loki', multi: true, regex: '/loki-.*/' },
    ];
    const { variables, entries } = migrate(list);
    expect(variables).to.deep.equal([
      {
        kind: 'ListVariable',
        spec: {
          name: 'job',
          display: { hidden: false },
          allowAllValue: false,
          allowMultiple: false,
          plugin: { kind: 'PrometheusLabelValuesVariable', spec: { datasource: '$mimir', labelName: 'job', matchers: ['up'] } },
        },
      },
      {
        kind: 'ListVariable',
        spec: {
          name: 'mimir',
          display: { name: 'Metrics from', hidden: false },
          plugin: { kind: 'DatasourceVariable', spec: { datasourcePluginKind: 'PrometheusDatasource' } },
        },
      },
      {
        kind: 'ListVariable',
        spec: {
          name: 'logs',
          display: { hidden: false },
          plugin: { kind: 'DatasourceVariable', spec: { datasourcePluginKind: 'LokiDatasource' } },
        },
      },
    ]);
    expect(entries.map((e) => [e.outcome, e.result ?? null])).to.deep.equal([
      ['dropped', null],
      ['mapped', 'PrometheusLabelValuesVariable'],
      // Grafana's selection names a Grafana datasource: not kept
      ['approximated', 'DatasourceVariable'],
      ['approximated', 'DatasourceVariable'],
    ]);
    expect(entries[0].notes).to.deep.equal([
      'it chose a cloudwatch datasource, and the migration does not translate cloudwatch queries: the queries that used $cw are kept as placeholder queries',
    ]);
    expect(entries[2].notes).to.deep.equal([
      "queries that used $mimir use the datasource it picks among the project's and the global PrometheusDatasources, by default the project's default",
    ]);
    expect(entries[3].notes.slice(1)).to.deep.equal([
      'several datasources at once (multi-value or All) are not kept: it picks one',
      'its regex "/loki-.*/" filtering the datasources listed is not kept: it lists them all',
    ]);
  });

  it('routes datasource variables to one datasource of the project without the DatasourceVariable plugin, with useDefaultDatasource, or when input names their datasource', () => {
    const list = [
      { type: 'datasource', name: 'mimir', query: 'grafana-mimir-datasource' },
      { type: 'datasource', name: 'logs', query: 'loki' },
      { type: 'query', name: 'job', datasource: '$mimir', query: 'label_values(up, job)' },
    ];
    for (const [opts, hasPlugin] of [
      [{}, (k: string) => k !== 'DatasourceVariable'],
      [{ useDefaultDatasource: true }, () => true],
      [{ input: { mimir: 'prom', logs: 'loki' } }, () => true],
    ] as const) {
      const { variables, entries } = migrate(list, opts, {}, hasPlugin);
      expect(
        variables.map((v) => [v.spec.name, v.spec.plugin.kind]),
        JSON.stringify(opts),
      ).to.deep.equal([['job', 'PrometheusLabelValuesVariable']]);
      expect(typeof variables[0].spec.plugin.spec.datasource).not.to.equal('string');
      expect(entries.slice(0, 2).map((e) => e.outcome)).to.deep.equal(['approximated', 'approximated']);
    }
  });

  it('offers the saved selection of a variable whose query cannot run, with its options if any, and says which', () => {
    const graphite = { datasource: { type: 'graphite', uid: 'g' }, query: 'servers.*' };
    const { variables, entries } = migrate([
      { ...graphite, type: 'query', name: 'a', current: { text: 'web01', value: 'web01' }, options: [] },
      {
        ...graphite,
        type: 'query',
        name: 'b',
        multi: true,
        current: { value: ['web01', 'web02'] },
        options: [
          { text: 'web01', value: 'web01' },
          { text: 'web03', value: 'web03' },
        ],
      },
      { ...graphite, type: 'query', name: 'c', current: {}, options: [] },
      { ...graphite, type: 'query', name: 'd', current: { text: 'All', value: '$__all' }, options: [] },
      { ...graphite, type: 'query', name: 'e', includeAll: true, current: { text: 'All', value: ['$__all'] }, options: [] },
    ]);
    expect(variables.map((v) => [v.spec.plugin.spec.values, v.spec.defaultValue])).to.deep.equal([
      [['web01'], 'web01'],
      [
        ['web01', 'web03', 'web02'],
        ['web01', 'web02'],
      ],
      [[], undefined],
      [[], undefined],
      [[], '$__all'],
    ]);
    expect(entries.map((e) => e.notes[0].replace('the graphite query "servers.*" cannot run in dashplane; ', ''))).to.deep.equal([
      'no options were saved with the dashboard: the variable offers only its saved selection "web01"',
      'the variable offers the 2 value(s) saved with the dashboard and its saved selection "web02"',
      'no values were saved with the dashboard: the variable offers none until values are listed in it',
      'no values were saved with the dashboard: the variable offers none until values are listed in it',
      'no values were saved with the dashboard: the variable offers none until values are listed in it',
    ]);
    expect(entries.every((e) => e.outcome === 'placeholder')).to.equal(true);
  });

  it('keeps a datasource variable (defaulting to the chosen datasource), drops ad hoc filters and duplicates, and keeps other queries as their saved values', () => {
    const { variables, entries } = migrate(
      [
        { type: 'datasource', name: 'ds', query: 'prometheus' },
        { type: 'adhoc', name: 'filters' },
        {
          type: 'query',
          name: 'host',
          datasource: 'graphite',
          query: 'servers.*',
          options: [
            { text: 'a', value: 'a' },
            { text: 'All', value: '$__all' },
          ],
        },
        { type: 'custom', name: 'host', query: 'x' },
      ],
      { datasource: 'prom' },
    );
    expect(variables.map((v) => [v.spec.name, v.spec.plugin.kind, v.spec.plugin.spec, v.spec.defaultValue])).to.deep.equal([
      ['ds', 'DatasourceVariable', { datasourcePluginKind: 'PrometheusDatasource' }, 'prom'],
      ['host', 'StaticListVariable', { values: ['a'] }, undefined],
    ]);
    expect(entries.map((e) => e.outcome)).to.deep.equal(['approximated', 'dropped', 'placeholder', 'dropped']);
    expect(entries[0].notes[0]).to.equal(
      'queries that used $ds use the datasource it picks among the project\'s and the global PrometheusDatasources, by default "prom"',
    );
    expect(entries[2].notes[0]).to.match(/unknown query "servers\.\*" cannot run/);
    expect(entries[3].notes.join()).to.match(/same name comes first/);
  });

  it('maps Loki variable queries to Loki variables: structured, label_values with and without selector, label_names; a datasource named by a log panel is Loki', () => {
    const logs = { panels: [{ type: 'logs', datasource: 'Logs', targets: [{ refId: 'A', expr: '{job="x"}' }] }] };
    const { variables, entries } = migrate(
      [
        { type: 'query', name: 'a', datasource: 'Logs', query: 'label_values(jobid)' },
        { type: 'query', name: 'b', datasource: { type: 'loki', uid: 'x' }, query: 'label_values({}, job)' },
        { type: 'query', name: 'c', datasource: { type: 'loki', uid: 'x' }, query: 'label_values({job="$a"}, pod)', regex: '/^(api.*)$/' },
        {
          type: 'query',
          name: 'd',
          datasource: { type: 'loki', uid: 'x' },
          query: { refId: 'LokiVariableQueryEditor-VariableQuery', type: 0, stream: '{job="x"}' },
        },
        { type: 'query', name: 'e', query: { refId: 'LokiVariableQueryEditor-VariableQuery', type: 1, label: 'level' } },
      ],
      {},
      logs,
    );
    expect(variables.map((v) => [v.spec.plugin, v.spec.capturingRegexp])).to.deep.equal([
      [{ kind: 'LokiLabelValuesVariable', spec: { labelName: 'jobid', matchers: [] } }, undefined],
      [{ kind: 'LokiLabelValuesVariable', spec: { labelName: 'job', matchers: [] } }, undefined],
      [{ kind: 'LokiLabelValuesVariable', spec: { labelName: 'pod', matchers: ['{job="$a"}'] } }, '^(api.*)$'],
      [{ kind: 'LokiLabelNamesVariable', spec: { matchers: ['{job="x"}'] } }, undefined],
      [{ kind: 'LokiLabelValuesVariable', spec: { labelName: 'level', matchers: [] } }, undefined],
    ]);
    expect(entries.map((e) => e.outcome)).to.deep.equal(['mapped', 'mapped', 'mapped', 'mapped', 'mapped']);
  });

  it('names the Loki datasource given as input for a variable without a datasource in an export whose only input is Loki', () => {
    const inputs = { __inputs: [{ name: 'DS_LOKI', type: 'datasource', pluginId: 'loki' }] };
    const variable = { type: 'query', name: 'app', query: { refId: 'A', type: 1, label: 'app' } };
    expect(migrate([variable], { input: { DS_LOKI: 'myloki' } }, inputs).variables[0].spec.plugin).to.deep.equal({
      kind: 'LokiLabelValuesVariable',
      spec: { datasource: { kind: 'LokiDatasource', name: 'myloki' }, labelName: 'app', matchers: [] },
    });
    // a label_values text on the same export is Loki too, not Prometheus
    const text = migrate([{ type: 'query', name: 'app', query: 'label_values(app)' }], { datasource: 'prom' }, inputs);
    expect(text.variables[0].spec.plugin).to.deep.equal({ kind: 'LokiLabelValuesVariable', spec: { labelName: 'app', matchers: [] } });
  });
});
