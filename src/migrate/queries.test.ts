import { expect } from 'chai';
import { DatasourceResolver, type DatasourceOptions } from './datasources.js';
import { replaceInputs } from './grafana-input.js';
import { migrateTargets, type QueryContext } from './queries.js';
import { ReportBuilder } from './report.js';

function context(dashboard: object, opts: DatasourceOptions = {}, has = (_: string) => true): QueryContext & { report: ReportBuilder } {
  return { ds: new DatasourceResolver(replaceInputs(dashboard, opts.input), opts), report: new ReportBuilder(), hasPlugin: has };
}
const specs = (r: ReturnType<typeof migrateTargets>) =>
  r.queries.map((q) => ({ kind: q.kind, plugin: q.spec.plugin.kind, ...q.spec.plugin.spec }));

describe('migrate: queries and datasources', () => {
  const dashboard = {
    __inputs: [
      { name: 'DS_PROM', type: 'datasource', pluginId: 'prometheus' },
      { name: 'DS_LOGS', type: 'datasource', pluginId: 'loki' },
    ],
    templating: {
      list: [
        { type: 'datasource', name: 'datasource', query: 'prometheus' },
        { type: 'datasource', name: 'loki', query: 'loki' },
      ],
    },
  };

  it('maps Prometheus targets: expr, legend, min step (target, else panel), instant, resolution', () => {
    const ctx = context(dashboard);
    const r = migrateTargets(
      {
        datasource: '${DS_PROM}',
        interval: '1m',
        targets: [
          { refId: 'A', expr: 'rate(x[[interval]])', legendFormat: '{{pod}}', interval: '>30s', instant: true },
          { refId: 'B', expr: 'up', legendFormat: '__auto', intervalFactor: 2 },
          { refId: 'C', expr: 'up', step: 240, interval: '' },
        ],
      },
      ctx,
    );
    expect(specs(r)).to.deep.equal([
      {
        kind: 'TimeSeriesQuery',
        plugin: 'PrometheusTimeSeriesQuery',
        query: 'rate(x${interval})',
        seriesNameFormat: '{{pod}}',
        minStep: '30s',
        instant: true,
      },
      { kind: 'TimeSeriesQuery', plugin: 'PrometheusTimeSeriesQuery', query: 'up', minStep: '1m', resolution: 2 },
      // an empty interval falls back to the panel's; Grafana 4's leftover step is no setting
      { kind: 'TimeSeriesQuery', plugin: 'PrometheusTimeSeriesQuery', query: 'up', minStep: '1m' },
    ]);
    expect(ctx.report.build().summary.queries).to.include({ total: 3, mapped: 3 });
  });

  it("does not take Grafana 4's step, the step it computed and wrote back onto the target, for a min step", () => {
    const r = migrateTargets(
      {
        datasource: '${DS_PROM}',
        targets: [
          { refId: 'A', expr: 'up', step: 1800, intervalFactor: 2 },
          { refId: 'B', expr: 'up', step: 240, interval: '' },
        ],
      },
      context(dashboard),
    );
    expect(specs(r).map((q) => q.minStep)).to.deep.equal([undefined, undefined]);
    expect(r.notes).to.deep.equal([]);
  });

  it('resolves datasource variables and inputs to the project default, or to the chosen datasource', () => {
    const panel = {
      targets: [
        { refId: 'A', expr: 'up', datasource: { type: 'prometheus', uid: '$datasource' } },
        { refId: 'B', expr: 'up', datasource: 'P1809F7CD0C75ACF3' },
      ],
    };
    expect(specs(migrateTargets(panel, context(dashboard))).map((q) => q.datasource)).to.deep.equal([undefined, undefined]);
    const chosen = specs(migrateTargets(panel, context(dashboard, { datasource: 'prom' }))).map((q) => q.datasource);
    expect(chosen).to.deep.equal([
      { kind: 'PrometheusDatasource', name: 'prom' },
      { kind: 'PrometheusDatasource', name: 'prom' },
    ]);
  });

  it('keeps the datasource named by an input value, as percli --input does, unless useDefaultDatasource', () => {
    const input = { DS_PROM: 'thanos' };
    const panel = replaceInputs({ datasource: '${DS_PROM}', targets: [{ refId: 'A', expr: 'up' }] }, input);
    expect(specs(migrateTargets(panel, context(dashboard, { input })))[0].datasource).to.deep.equal({
      kind: 'PrometheusDatasource',
      name: 'thanos',
    });
    expect(specs(migrateTargets(panel, context(dashboard, { input, useDefaultDatasource: true })))[0].datasource).to.equal(undefined);
  });

  it('maps Loki targets to log queries in log panels and to time series queries elsewhere', () => {
    const panel = { datasource: '$loki', targets: [{ refId: 'A', expr: 'sum(rate({job="x"}[1m]))' }] };
    expect(specs(migrateTargets(panel, context(dashboard)))[0]).to.deep.equal({
      kind: 'TimeSeriesQuery',
      plugin: 'LokiTimeSeriesQuery',
      query: 'sum(rate({job="x"}[1m]))',
    });
    expect(specs(migrateTargets(panel, context(dashboard), 'LogQuery'))[0]).to.deep.equal({
      kind: 'LogQuery',
      plugin: 'LokiLogQuery',
      query: 'sum(rate({job="x"}[1m]))',
    });
  });

  it('keeps other targets as placeholder queries that return nothing, with their text in PromQL comments', () => {
    const ctx = context(dashboard);
    const r = migrateTargets(
      {
        datasource: 'gdev-testdata',
        targets: [
          { refId: 'A', scenarioId: 'random_walk' },
          { refId: 'B', target: 'aliasByNode(apps.*.count, 1)\n' },
        ],
      },
      ctx,
    );
    const [a, b] = specs(r);
    expect(a.query).to.equal(
      '# Grafana testdata query A was not migrated: dashplane has no testdata plugin. Original query:\n#   testdata scenario random_walk\ngrafana_query_not_migrated',
    );
    expect(b.query.split('\n')).to.deep.equal([
      '# Grafana graphite query B was not migrated: dashplane has no graphite plugin. Original query:',
      '#   aliasByNode(apps.*.count, 1)',
      '#   ',
      'grafana_query_not_migrated',
    ]);
    expect(r.placeholders).to.equal(2);
    expect(ctx.report.build().summary.queries).to.include({ total: 2, placeholder: 2 });
  });

  it('tells InfluxDB targets (raw InfluxQL, or the query builder) from Graphite ones, although both carry a target string', () => {
    const ctx = context(dashboard);
    const r = migrateTargets(
      {
        targets: [
          { refId: 'A', target: '', rawQuery: true, query: 'SELECT mean("value") FROM "cpu" WHERE $timeFilter GROUP BY time($__interval)' },
          {
            refId: 'B',
            target: '',
            measurement: 'cpu',
            resultFormat: 'time_series',
            groupBy: [{ type: 'time', params: ['$__interval'] }],
            select: [[{ type: 'field', params: ['value'] }]],
          },
          { refId: 'C', target: 'servers.*.cpu' },
        ],
      },
      ctx,
    );
    expect(r.notes.map((n) => n.split(':')[0])).to.deep.equal([
      'query A (influxdb) is kept as a placeholder query that returns no data',
      'query B (influxdb) is kept as a placeholder query that returns no data',
      'query C (graphite) is kept as a placeholder query that returns no data',
    ]);
    expect(specs(r)[0].query).to.match(
      /^# Grafana influxdb query A was not migrated: dashplane has the InfluxDBTimeSeriesQuery plugin, but the migration does not translate influxdb queries into it/,
    );
  });

  it("says a target on Grafana's built-in datasource queried it, not that its type cannot be told", () => {
    const grafana = { type: 'datasource', uid: 'grafana' };
    const r = migrateTargets(
      { datasource: grafana, targets: [{ refId: 'A', datasource: grafana, queryType: 'randomWalk' }] },
      context(dashboard),
    );
    expect(r.notes).to.deep.equal([
      'query A (grafana) is kept as a placeholder query that returns no data: it queried Grafana\'s built-in datasource (randomWalk), which exists only inside Grafana (random walks, live channels, files, dashboard search); the original: "{\\"queryType\\":\\"randomWalk\\"}"',
    ]);
  });

  it('leaves out hidden and empty targets, and Loki targets when the server has no Loki plugin, with notes', () => {
    const ctx = context(dashboard, {}, (k) => !k.startsWith('Loki'));
    const r = migrateTargets(
      {
        targets: [
          { refId: 'A', expr: 'up', hide: true },
          { refId: 'B', expr: ' ' },
          { refId: 'C', expr: '{a="b"}', datasource: { type: 'loki' } },
        ],
      },
      ctx,
      'LogQuery',
    );
    expect(r.queries).to.deep.equal([]);
    expect(r.notes.join('\n'))
      .to.match(/query A was hidden/)
      .and.match(/query B is empty/)
      .and.match(/query C \(loki\) is not migrated: the server has no LokiLogQuery plugin/);
    expect(ctx.report.build().summary.queries).to.include({ total: 3, dropped: 3 });
  });

  it('writes the Tempo search form and the legacy search fields as the TraceQL Grafana runs, and keeps TraceQL and trace IDs as they are', () => {
    const tempo = { type: 'tempo', uid: 't' };
    const r = migrateTargets(
      {
        datasource: tempo,
        targets: [
          {
            refId: 'A',
            queryType: 'traceqlSearch',
            limit: 20,
            filters: [
              { id: 'service-name', tag: 'service.name', operator: '=', scope: 'resource', value: ['api'], valueType: 'string' },
              { id: 'x', tag: 'http.method', operator: '!=', scope: 'span', value: ['GET', 'HEAD'], valueType: 'string' },
              { id: 'y', tag: 'kind', operator: '=', scope: 'span', value: 'server', valueType: 'keyword' },
              { id: 'min-duration', tag: 'duration', operator: '>', value: '1s', valueType: 'duration' },
              { id: 'incomplete', tag: 'db.system', operator: '=', scope: 'span' },
            ],
          },
          {
            refId: 'B',
            queryType: 'nativeSearch',
            serviceName: 'api',
            spanName: 'GET /',
            search: 'http.status_code=500 region="eu west"',
            minDuration: '100ms',
            maxDuration: '2s',
          },
          { refId: 'C', queryType: 'traceql', query: '4bf92f3577b34da6a3ce929d0e0e4736' },
          { refId: 'D', queryType: 'traceqlSearch', filters: [] },
        ],
      },
      context(dashboard),
      'TraceQuery',
    );
    expect(specs(r).map((q) => q.query)).to.deep.equal([
      '{resource.service.name="api" && span.http.method!~"GET|HEAD" && kind=server && duration>1s}',
      '{resource.service.name="api" && name="GET /" && .http.status_code="500" && .region="eu west" && duration>100ms && duration<2s}',
      '4bf92f3577b34da6a3ce929d0e0e4736',
      '{}',
    ]);
    expect(specs(r)[0]).to.deep.include({ kind: 'TraceQuery', plugin: 'TempoTraceQuery', limit: 20 });
  });

  it('maps Pyroscope targets: the profile type, service_name as the service, the other matchers as filters (written as they are), max nodes', () => {
    const pyroscope = { type: 'grafana-pyroscope-datasource', uid: 'p' };
    const r = migrateTargets(
      {
        datasource: pyroscope,
        targets: [
          {
            refId: 'A',
            profileTypeId: 'process_cpu:cpu:nanoseconds:cpu:nanoseconds',
            labelSelector: '{service_name="api", pod=~"api-.*", env!="dev\\"x"}',
            maxNodes: 1024,
            groupBy: ['pod'],
          },
          { refId: 'B', profileTypeId: 'memory:alloc_space:bytes:space:bytes', labelSelector: '{service_name=api}' },
          { refId: 'C', profileTypeId: 'memory:inuse_space:bytes:space:bytes', datasource: { type: 'phlare', uid: 'old' } },
        ],
      },
      context(dashboard),
      'ProfileQuery',
    );
    expect(specs(r)).to.deep.equal([
      {
        kind: 'ProfileQuery',
        plugin: 'PyroscopeProfileQuery',
        profileType: 'process_cpu:cpu:nanoseconds:cpu:nanoseconds',
        service: 'api',
        filters: [
          { labelName: 'pod', operator: '=~', labelValue: 'api-.*' },
          { labelName: 'env', operator: '!=', labelValue: 'dev\\"x' },
        ],
        maxNodes: 1024,
      },
      { kind: 'ProfileQuery', plugin: 'PyroscopeProfileQuery', profileType: 'memory:inuse_space:bytes:space:bytes' },
    ]);
    expect(r.notes).to.deep.equal([
      'query A: grouping by pod is not carried (FlameChart draws one profile)',
      'query B (pyroscope) is not migrated: its label selector "{service_name=api}" is not a list of label matchers; the original: "memory:alloc_space:bytes:space:bytes{service_name=api}"',
    ]);
  });

  it('tells Tempo and Pyroscope targets by their fields when their datasource says nothing, and leaves them out of panels they cannot feed', () => {
    const ctx = context(dashboard);
    const r = migrateTargets(
      {
        targets: [
          { refId: 'A', queryType: 'traceql', query: '{ status = error }' },
          { refId: 'B', profileTypeId: 'process_cpu:cpu:nanoseconds:cpu:nanoseconds', labelSelector: '{}' },
        ],
      },
      ctx,
      'LogQuery',
    );
    expect(r.queries).to.deep.equal([]);
    expect(r.notes.map((n) => n.split(';')[0])).to.deep.equal([
      'query A (tempo) is not migrated: it cannot feed a log panel',
      'query B (pyroscope) is not migrated: it cannot feed a log panel',
    ]);
    expect(ctx.report.build().summary.queries).to.include({ total: 2, dropped: 2 });
  });
});
