import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusDir, skipWithoutCorpus } from '../../test/helpers/corpus.js';
import { SCHEMAS_DIR } from '../paths.js';
import { PluginRegistry } from './registry.js';

/**
 * PluginRegistry against the plugin-level fragments `{kind, spec}` of github.com/perses/plugins
 * (corpus/plugins: the CUE schema tests tests/valid, tests/invalid and the Grafana-migration
 * outputs migrate/tests/<case>/expected.json) and the Perses plugin-schema samples.
 */

const BUILTIN = join(SCHEMAS_DIR, 'plugins');
/** The suites reading it are skipped (with a note at the end of the run) when it is missing. */
const CORPUS = corpusDir('corpus') ?? '';

interface Fragment {
  file: string;
  kind: string;
  spec: unknown;
}

interface IndexEntry {
  file: string;
  index: number;
  wrapper: string;
  kind: string;
}

const readJson = (file: string): any => JSON.parse(readFileSync(file, 'utf8'));
const INDEX = (CORPUS ? readJson(join(CORPUS, 'INDEX.json')) : { resources: [] }) as { resources: IndexEntry[] };

/** The fragments of corpus/plugins/** whose path matches `re`. */
function fragments(re: RegExp): Fragment[] {
  return INDEX.resources
    .filter((e) => e.wrapper === 'plugin-fragment' && e.file.startsWith('plugins/') && re.test(e.file))
    .map((e) => {
      const v = readJson(join(CORPUS, e.file));
      const frag = Array.isArray(v) ? v[e.index] : v;
      return { file: e.file, kind: frag.kind, spec: frag.spec };
    });
}

const VALID = fragments(/\/tests\/valid\/[^/]+\.json$|\/migrate\/tests\/[^/]+\/expected\.json$/);
const INVALID = fragments(/\/tests\/invalid\/[^/]+\.json$/);
const SAMPLES = join(CORPUS, 'perses/internal/api/plugin/schema/testdata/samples');

/** The catalog, loaded once at module load so the dynamic tests below can see which kinds have schemas. */
const registry = PluginRegistry.load(BUILTIN);

function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'dashplane-plugins-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('PluginRegistry', () => {
  it('every built-in plugin schema compiles (they compile on first use)', () => {
    const withSchema = registry.all().filter((p) => p.validate);
    expect(withSchema.length).to.be.greaterThan(10);
    for (const p of withSchema) expect(() => p.validate!({}), p.kind).to.not.throw();
  });

  it('finds the corpus fragments', function () {
    skipWithoutCorpus(this, 'corpus');
    expect(VALID.length, 'valid fragments').to.be.greaterThan(100);
    expect(INVALID.length, 'invalid fragments').to.be.greaterThan(3);
  });

  describe('every valid fragment of perses/plugins (tests/valid, migrate/tests/*/expected.json) is accepted', () => {
    for (const f of VALID) {
      const info = registry.get(f.kind);
      const how = info?.validate ? 'validates against its schema' : 'is a known kind (no schema in the catalog: open spec)';
      it(`${f.file} (${f.kind}) ${how}`, () => {
        expect(info, `${f.kind} is not in the catalog`).to.not.equal(undefined);
        expect(registry.check({ kind: f.kind, spec: f.spec }, [info!.type], 'spec.plugin')).to.deep.equal([]);
      });
    }
  });

  describe('every invalid fragment of perses/plugins (tests/invalid) is rejected with details under spec.plugin', () => {
    for (const f of INVALID) {
      const info = registry.get(f.kind);
      if (!info?.validate) {
        // Pending, not passing: the catalog has no schema for this kind, so its spec cannot be checked yet.
        it(`${f.file} (${f.kind}): no schema for ${f.kind} in schemas/plugins/catalog.json`);
        continue;
      }
      it(`${f.file} (${f.kind})`, () => {
        const details = registry.check({ kind: f.kind, spec: f.spec }, [info.type], 'spec.plugin');
        expect(details, 'details').to.not.be.empty;
        for (const d of details) {
          expect(d.path).to.match(/^spec\.plugin\.spec(\.|\[|$)/);
          expect(d.message).to.be.a('string').and.not.equal('');
        }
      });
    }
  });

  describe('unknown plugin kinds (perses plugin-schema samples)', () => {
    before(function () {
      skipWithoutCorpus(this, 'corpus');
    });
    const cases: [string, string, string][] = [
      ['panels/invalid_kind_panel.json', 'Panel', 'UnknownChart'],
      ['variables/invalid_unknown_variable.json', 'Variable', 'UnknownVariable'],
      ['annotations/invalid_kind_annotation.json', 'Annotation', 'UnknownAnnotation'],
    ];
    for (const [file, type, kind] of cases) {
      it(`${file}: ${kind} as a ${type} is rejected at spec.plugin.kind, naming the kind`, () => {
        const frag = readJson(join(SAMPLES, file));
        expect(frag.kind).to.equal(kind);
        const details = registry.check(frag, [type], 'spec.plugin');
        expect(details).to.have.length(1);
        expect(details[0].path).to.equal('spec.plugin.kind');
        expect(details[0].message).to.include(`"${kind}"`);
      });
    }

    it('queries/invalid_kind_query.json: UnknownGraphQuery inside a TimeSeriesQuery is rejected at its own path', () => {
      const [query] = readJson(join(SAMPLES, 'queries/invalid_kind_query.json'));
      expect(query.kind).to.equal('TimeSeriesQuery');
      const details = registry.check(query.spec.plugin, [query.kind], 'spec.panels.a.spec.queries[0].spec.plugin');
      expect(details).to.have.length(1);
      expect(details[0].path).to.equal('spec.panels.a.spec.queries[0].spec.plugin.kind');
      expect(details[0].message).to.include('"UnknownGraphQuery"');
    });

    it('a kind differing only in case is unknown (kinds are case-sensitive)', () => {
      const details = registry.check({ kind: 'timeserieschart', spec: {} }, ['Panel'], 'spec.plugin');
      expect(details.map((d) => d.path)).to.deep.equal(['spec.plugin.kind']);
      expect(details[0].message).to.include('"timeserieschart"');
    });

    it('the message lists the known kinds of the expected type', () => {
      const [d] = registry.check({ kind: 'NoSuchDatasource', spec: {} }, ['Datasource'], 'spec.plugin');
      expect(d.message).to.include('PrometheusDatasource').and.include('TempoDatasource').and.not.include('TimeSeriesChart');
    });
  });

  describe('a plugin of the wrong type is rejected at spec.plugin.kind', () => {
    const cases: [string, string, string][] = [
      ['TimeSeriesChart', 'Panel', 'Datasource'],
      ['PrometheusDatasource', 'Datasource', 'Panel'],
      ['PrometheusTimeSeriesQuery', 'TimeSeriesQuery', 'Variable'],
      ['StaticListVariable', 'Variable', 'TimeSeriesQuery'],
      ['TempoTraceQuery', 'TraceQuery', 'TimeSeriesQuery'],
    ];
    for (const [kind, actual, expected] of cases) {
      it(`${kind} (a ${actual}) where a ${expected} is expected`, () => {
        expect(registry.get(kind)?.type).to.equal(actual);
        const details = registry.check({ kind, spec: {} }, [expected], 'spec.plugin');
        expect(details).to.have.length(1);
        expect(details[0].path).to.equal('spec.plugin.kind');
        expect(details[0].message).to.include(kind).and.include(actual).and.include(expected);
      });
    }
  });

  describe('Metrics* synonyms resolve to the Prometheus schemas (docs/api.md §10)', () => {
    const synonyms: [string, string, string][] = [
      ['MetricsDatasource', 'PrometheusDatasource', 'Datasource'],
      ['MetricsTimeSeriesQuery', 'PrometheusTimeSeriesQuery', 'TimeSeriesQuery'],
      ['MetricsLabelValuesVariable', 'PrometheusLabelValuesVariable', 'Variable'],
      ['MetricsLabelNamesVariable', 'PrometheusLabelNamesVariable', 'Variable'],
      ['MetricsPromQLVariable', 'PrometheusPromQLVariable', 'Variable'],
    ];
    for (const [synonym, target, type] of synonyms) {
      it(`${synonym} = ${target} (${type})`, () => {
        const info = registry.get(synonym);
        expect(info, synonym).to.not.equal(undefined);
        expect(info!.synonymOf).to.equal(target);
        expect(info!.type).to.equal(type);
        expect(info!.type).to.equal(registry.get(target)!.type);
        expect(info!.validate, `${synonym} has a schema`).to.be.a('function');
        // An obviously wrong spec is rejected under the synonym too.
        expect(registry.check({ kind: synonym, spec: 42 }, [type], 'spec.plugin')).to.not.be.empty;
      });
      it(`${synonym} gives the same verdicts as ${target} on every corpus fragment of that kind, valid or invalid`, function () {
        skipWithoutCorpus(this, 'corpus');
        const samples = [...VALID, ...INVALID].filter((f) => f.kind === target);
        expect(samples, `corpus fragments of ${target}`).to.not.be.empty;
        for (const f of samples) {
          expect(registry.check({ kind: synonym, spec: f.spec }, [type], 'spec.plugin'), f.file).to.deep.equal(
            registry.check({ kind: target, spec: f.spec }, [type], 'spec.plugin'),
          );
        }
      });
    }
  });

  describe('the Loki, Tempo, Pyroscope and trace/profile panel schemas refuse what their Perses CUE schemas refuse, at the field', () => {
    const proxy = { kind: 'HTTPProxy', spec: { url: 'http://loki:3100' } };
    const flame = { palette: 'value', showSettings: true, showSeries: true, showTable: true, showFlameGraph: true };
    const cases: [string, unknown, string][] = [
      ['LokiDatasource', {}, 'spec.plugin.spec'],
      ['LokiDatasource', { directUrl: 'http://loki:3100', proxy }, 'spec.plugin.spec'],
      ['LokiDatasource', { directUrl: 'loki:3100' }, 'spec.plugin.spec.directUrl'],
      ['TempoDatasource', { proxy, scrapeInterval: '15s' }, 'spec.plugin.spec.scrapeInterval'],
      ['PyroscopeDatasource', { directUrl: 'http://pyroscope:4040', minStep: 'soon' }, 'spec.plugin.spec.minStep'],
      ['LokiTimeSeriesQuery', {}, 'spec.plugin.spec.query'],
      ['LokiLogQuery', { query: '' }, 'spec.plugin.spec.query'],
      ['LokiLogQuery', { query: '{job="nginx"}', direction: 'sideways' }, 'spec.plugin.spec.direction'],
      ['LokiLogQuery', { query: '{job="nginx"}', datasource: { kind: 'PrometheusDatasource' } }, 'spec.plugin.spec.datasource'],
      ['LokiLabelValuesVariable', { matchers: ['{job="nginx"}'] }, 'spec.plugin.spec.labelName'],
      ['TempoTraceQuery', {}, 'spec.plugin.spec.query'],
      ['TempoTraceQuery', { query: '{}', limit: 0 }, 'spec.plugin.spec.limit'],
      ['TempoTraceQuery', { query: '{}', datasource: { kind: 'LokiDatasource', name: 'loki' } }, 'spec.plugin.spec.datasource'],
      ['PyroscopeProfileQuery', { service: 'checkout' }, 'spec.plugin.spec.profileType'],
      [
        'PyroscopeProfileQuery',
        { profileType: 'cpu', filters: [{ labelName: 'a', labelValue: 'b' }] },
        'spec.plugin.spec.filters[0].operator',
      ],
      ['FlameChart', { ...flame, palette: 'rainbow' }, 'spec.plugin.spec.palette'],
      ['FlameChart', { ...flame, showTable: undefined }, 'spec.plugin.spec.showTable'],
      ['TraceTable', { visual: { palette: { mode: 'neon' } } }, 'spec.plugin.spec.visual.palette.mode'],
      ['TracingGanttChart', { links: { attributes: [{ name: 'k8s.pod.name' }] } }, 'spec.plugin.spec.links.attributes[0].link'],
      ['LogsTable', { showTime: 'yes' }, 'spec.plugin.spec.showTime'],
      ['DatasourceVariable', {}, 'spec.plugin.spec.datasourcePluginKind'],
    ];
    for (const [kind, spec, path] of cases) {
      it(`${kind} ${JSON.stringify(spec)}: a detail at ${path}`, () => {
        const details = registry.check({ kind, spec: JSON.parse(JSON.stringify(spec)) }, [registry.get(kind)!.type], 'spec.plugin');
        expect(details.map((d) => d.path)).to.include(path);
      });
    }

    it('a datasource variable reference ("$ds") selects the datasource of a Loki, Tempo or Pyroscope query', () => {
      expect(
        registry.check({ kind: 'LokiLogQuery', spec: { query: '{job="nginx"}', datasource: '$ds' } }, ['LogQuery'], 'q'),
      ).to.deep.equal([]);
      expect(registry.check({ kind: 'TempoTraceQuery', spec: { query: '{}', datasource: '${tempo}' } }, ['TraceQuery'], 'q')).to.deep.equal(
        [],
      );
      expect(
        registry.check(
          { kind: 'PyroscopeProfileQuery', spec: { profileType: 'cpu', datasource: { kind: 'PyroscopeDatasource' } } },
          ['ProfileQuery'],
          'q',
        ),
      ).to.deep.equal([]);
    });

    it('LogsTable takes the settings of the Loki plugin 0.2 (wrap, time) and of later Perses (allowWrap, showTime)', () => {
      expect(registry.check({ kind: 'LogsTable', spec: { wrap: true, time: true, enableDetails: true } }, ['Panel'], 'p')).to.deep.equal(
        [],
      );
      expect(
        registry.check({ kind: 'LogsTable', spec: { allowWrap: true, showTime: true, enableDetails: false } }, ['Panel'], 'p'),
      ).to.deep.equal([]);
    });
  });

  it('the HTTP datasource kinds suggest allowedEndpoints of {endpointPattern, method}; other kinds none', () => {
    const withEndpoints = registry
      .all()
      .filter((p) => p.allowedEndpoints)
      .map((p) => p.kind)
      .sort();
    expect(withEndpoints).to.deep.equal(['LokiDatasource', 'PrometheusDatasource', 'PyroscopeDatasource', 'TempoDatasource']);
    for (const kind of withEndpoints) {
      for (const e of registry.get(kind)!.allowedEndpoints!) {
        expect(Object.keys(e).sort(), kind).to.deep.equal(['endpointPattern', 'method']);
        expect(e.method, kind).to.be.oneOf(['GET', 'POST']);
        expect(e.endpointPattern, kind).to.match(/^\//);
      }
    }
  });

  it('every plugin kind named in docs/api.md §10 is in the catalog with the right type', () => {
    const expected: Record<string, string> = {
      // Panels.
      TimeSeriesChart: 'Panel',
      BarChart: 'Panel',
      GaugeChart: 'Panel',
      StatChart: 'Panel',
      PieChart: 'Panel',
      ScatterChart: 'Panel',
      HistogramChart: 'Panel',
      HeatMapChart: 'Panel',
      StatusHistoryChart: 'Panel',
      Table: 'Panel',
      TimeSeriesTable: 'Panel',
      Markdown: 'Panel',
      FlameChart: 'Panel',
      LogsTable: 'Panel',
      TraceTable: 'Panel',
      TracingGanttChart: 'Panel',
      // Variables.
      StaticListVariable: 'Variable',
      DatasourceVariable: 'Variable',
      PrometheusLabelValuesVariable: 'Variable',
      PrometheusLabelNamesVariable: 'Variable',
      PrometheusPromQLVariable: 'Variable',
      // Datasources of the official set named there.
      PrometheusDatasource: 'Datasource',
      TempoDatasource: 'Datasource',
      LokiDatasource: 'Datasource',
      PyroscopeDatasource: 'Datasource',
      ClickHouseDatasource: 'Datasource',
      VictoriaLogsDatasource: 'Datasource',
      AlertManagerDatasource: 'Datasource',
      // Their main queries.
      PrometheusTimeSeriesQuery: 'TimeSeriesQuery',
      TempoTraceQuery: 'TraceQuery',
      LokiLogQuery: 'LogQuery',
      PyroscopeProfileQuery: 'ProfileQuery',
      // The generic metrics names.
      MetricsDatasource: 'Datasource',
      MetricsTimeSeriesQuery: 'TimeSeriesQuery',
      MetricsLabelValuesVariable: 'Variable',
      MetricsLabelNamesVariable: 'Variable',
      MetricsPromQLVariable: 'Variable',
    };
    const actual = Object.fromEntries(Object.keys(expected).map((k) => [k, registry.get(k)?.type]));
    expect(actual).to.deep.equal(expected);
    for (const t of ['TimeSeriesQuery', 'TraceQuery', 'LogQuery', 'ProfileQuery']) expect(registry.queryTypes.has(t), t).to.equal(true);
    expect(registry.queryTypes.has('Panel')).to.equal(false);
  });

  it('every catalog entry has a kind, a type and a module', () => {
    const all = registry.all();
    expect(all.length).to.be.greaterThan(30);
    for (const p of all) {
      expect(p.kind, JSON.stringify(p)).to.match(/^[A-Z][A-Za-z0-9]*$/);
      expect(p.type, p.kind).to.be.a('string').and.not.equal('');
      expect(p.module, p.kind).to.be.a('string').and.not.equal('');
    }
  });

  it('query languages: PrometheusTimeSeriesQuery and its synonym declare spec.query as PromQL, checked with the schema, the problem at the field', () => {
    const r = PluginRegistry.load(BUILTIN);
    for (const kind of ['PrometheusTimeSeriesQuery', 'MetricsTimeSeriesQuery']) {
      expect(r.get(kind)?.languages, kind).to.deep.equal({ query: 'promql' });
      expect(r.check({ kind, spec: { query: 'rate(up[5m])' } }, ['TimeSeriesQuery'], 'q.spec.plugin')).to.deep.equal([]);
      expect(r.check({ kind, spec: { query: 'rate(up[)' } }, ['TimeSeriesQuery'], 'q.spec.plugin')).to.deep.equal([
        { path: 'q.spec.plugin.spec.query', message: 'invalid PromQL at line 1, column 9: unexpected ")"' },
      ]);
    }
    expect(r.get('PrometheusPromQLVariable')?.languages, 'Perses checks the queries of panels only').to.equal(undefined);
    expect(
      r
        .check({ kind: 'SQLTimeSeriesQuery', spec: { query: 'rate(up[)' } }, ['TimeSeriesQuery'], 'q')
        .filter((d) => d.message.includes('PromQL')),
    ).to.deep.equal([]);
  });

  describe('plugin.schemas_dir', () => {
    it('adds plugins with their schemas (one entry or an array per file)', () =>
      withTempDir((dir) => {
        writeFileSync(
          join(dir, 'charts.json'),
          JSON.stringify([
            {
              kind: 'FooChart',
              type: 'Panel',
              module: 'foo',
              schema: { type: 'object', required: ['expr'], properties: { expr: { type: 'string' } } },
            },
            { kind: 'ExoticQuery', type: 'TimeSeriesQuery' },
          ]),
        );
        writeFileSync(join(dir, 'variable.json'), JSON.stringify({ kind: 'SomeVariable', type: 'Variable', schema: { type: 'object' } }));
        writeFileSync(join(dir, 'README.txt'), 'not a plugin file');
        const r = PluginRegistry.load(BUILTIN, dir);
        expect(r.get('FooChart')).to.include({ type: 'Panel', module: 'foo' });
        expect(r.get('ExoticQuery')).to.include({ type: 'TimeSeriesQuery', module: 'ExoticQuery' });
        expect(r.get('SomeVariable')?.type).to.equal('Variable');
        expect(r.get('TimeSeriesChart')?.type, 'the built-in catalog is still there').to.equal('Panel');
        expect(r.check({ kind: 'FooChart', spec: { expr: 'up' } }, ['Panel'], 'spec.plugin')).to.deep.equal([]);
        expect(r.check({ kind: 'FooChart', spec: {} }, ['Panel'], 'spec.plugin').map((d) => d.path)).to.deep.equal([
          'spec.plugin.spec.expr',
        ]);
        expect(r.check({ kind: 'ExoticQuery', spec: { anything: [1, 2] } }, ['TimeSeriesQuery'], 'q')).to.deep.equal([]);
        expect(r.check({ kind: 'FooChart', spec: { expr: 'up' } }, ['Datasource'], 'spec.plugin')).to.have.length(1);
      }));

    it('an entry may declare spec fields in a query language; an unknown language fails to load, naming the file, the plugin and the known ones', () =>
      withTempDir((dir) => {
        writeFileSync(
          join(dir, 'exotic.json'),
          JSON.stringify({ kind: 'ExoticQuery', type: 'TimeSeriesQuery', languages: { expr: 'promql' } }),
        );
        const r = PluginRegistry.load(BUILTIN, dir);
        expect(r.check({ kind: 'ExoticQuery', spec: { expr: 'sum(x' } }, ['TimeSeriesQuery'], 'q').map((d) => d.path)).to.deep.equal([
          'q.spec.expr',
        ]);
        writeFileSync(
          join(dir, 'exotic.json'),
          JSON.stringify({ kind: 'ExoticQuery', type: 'TimeSeriesQuery', languages: { expr: 'logql' } }),
        );
        expect(() => PluginRegistry.load(BUILTIN, dir)).to.throw(Error, /exotic\.json.*ExoticQuery.*"logql".*promql/);
      }));

    it('a file that is not valid JSON fails to load, naming the file', () =>
      withTempDir((dir) => {
        writeFileSync(join(dir, 'good.json'), JSON.stringify({ kind: 'FooChart', type: 'Panel' }));
        writeFileSync(join(dir, 'broken.json'), '{"kind": "BarChart2", ');
        expect(() => PluginRegistry.load(BUILTIN, dir)).to.throw(Error, 'broken.json');
      }));

    it('an entry without "type" fails to load, naming the file and the missing field', () =>
      withTempDir((dir) => {
        writeFileSync(join(dir, 'untyped.json'), JSON.stringify([{ kind: 'FooChart', type: 'Panel' }, { kind: 'NoTypeChart' }]));
        let message = '';
        try {
          PluginRegistry.load(BUILTIN, dir);
        } catch (e) {
          message = (e as Error).message;
        }
        expect(message).to.include('untyped.json').and.include('"type"');
      }));

    it('an entry whose schema does not compile fails to load, naming the file and the plugin', () =>
      withTempDir((dir) => {
        writeFileSync(join(dir, 'bad-schema.json'), JSON.stringify({ kind: 'FooChart', type: 'Panel', schema: { type: 'no-such-type' } }));
        let message = '';
        try {
          PluginRegistry.load(BUILTIN, dir);
        } catch (e) {
          message = (e as Error).message;
        }
        expect(message).to.include('bad-schema.json').and.include('FooChart');
      }));
  });
});
