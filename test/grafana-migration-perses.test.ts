import { expect } from 'chai';
import { migrateGrafanaDashboard } from '../src/migrate/dashboard.js';
import { hasGrafanaCorpus, NO_CORPUS, persesCases, sortKeys, type PersesCase } from './helpers/grafana-corpus.js';

/**
 * Perses' own migration test cases: the same Grafana input must give Perses' expected output, up
 * to key order, except for the deliberate improvements listed here (and in the README), each as
 * the change it makes to Perses' expected output.
 */

type Patch = (expected: any) => any;

/** Deliberate differences: why, and Perses' expected output turned into ours. */
const DIFFERENCES: Record<string, { why: string; patch: Patch }> = {
  internal_api_e2e_api_testdata_empty: {
    why: 'the time range (now-6h) and time zone (utc) are kept',
    patch: (e) => ({ ...e, spec: { ...e.spec, duration: '6h', timezone: 'UTC' } }),
  },
  internal_api_plugin_migrate_testdata_dashboards_basic: {
    why: 'the refresh interval (1m) is kept',
    patch: (e) => ({ ...e, spec: { ...e.spec, refreshInterval: '1m' } }),
  },
  internal_api_plugin_migrate_testdata_dashboards_empty_panels_list: {
    why: 'the time range (now-6h) is kept',
    patch: (e) => ({ ...e, spec: { ...e.spec, duration: '6h' } }),
  },
  internal_api_plugin_migrate_testdata_dashboards_library_panel: {
    why: 'the time range (now-6h) is kept',
    patch: (e) => ({ ...e, spec: { ...e.spec, duration: '6h' } }),
  },
  internal_api_plugin_migrate_testdata_dashboards_panel_repeat: {
    why: 'panels above the first row get no "Panel Group 1" header (Grafana shows none)',
    patch: withoutFirstHeader,
  },
  internal_api_plugin_migrate_testdata_dashboards_panel_repeat_only: {
    why: 'panels above the first row get no "Panel Group 1" header',
    patch: withoutFirstHeader,
  },
  internal_api_plugin_migrate_testdata_dashboards_panel_with_links: {
    why: 'panels above the first row get no "Panel Group 1" header',
    patch: withoutFirstHeader,
  },
  'internal_api_plugin_migrate_testdata_non-reg_cue-marshal_dashboards_simple': {
    why: 'a dashboard without uid is named after its title (Perses: an empty, invalid name); a panel without gridPos gets 12x8 (Perses: 0x0, invisible); no "Panel Group 1" header',
    patch: (e) => {
      const out = withoutFirstHeader(e);
      out.metadata.name = 'test-dashboard';
      Object.assign(out.spec.layouts[0].spec.items[0], { width: 12, height: 8 });
      return out;
    },
  },
  'loki_schemas_queries_loki-log-query_migrate_tests_basic': {
    why: "Grafana datasource uids do not exist in the target project: the project's default Loki datasource is used",
    patch: withoutDatasource,
  },
  'loki_schemas_queries_loki-log-query_migrate_tests_with-pipe-filter': { why: 'as above', patch: withoutDatasource },
  'prometheus_schemas_prometheus-time-series-query_migrate_tests_legend-format': {
    why: 'the ${datasource} variable is resolved to the project default (or --datasource); an empty interval is no min step (Perses: minStep "")',
    patch: (e) => set(withoutDatasource(e), (s) => delete s.minStep),
  },
  'prometheus_schemas_prometheus-promql_migrate_tests_no-aggr': {
    why: 'without a "by" clause the label comes from the regex (job="(...)"); Perses gives the label "migration_from_grafana_not_supported"',
    patch: (e) => ({ ...e, spec: { expr: e.spec.expr.replace(/^query_result\((.*)\)$/, '$1'), labelName: 'job' } }),
  },
  statchart_schemas_migrate_tests_mappings: {
    why: "a stat without reducer shows Grafana's default, the last non-null value (Perses: the last value)",
    patch: (e) => set(e, (s) => (s.calculation = 'last-number')),
  },
  statchart_schemas_migrate_tests_special_mapping_without_match: {
    why: 'the base threshold step without a value keeps its colour (Perses drops it)',
    patch: (e) => set(e, (s) => s.thresholds.steps.unshift({ color: '#F2495C', value: 0 })),
  },
  'table_schemas_migrate_tests_legacy-panel': {
    why: 'legacy column styles keep their unit and decimals',
    patch: (e) => set(e, (s) => (s.columnSettings[1].format = { unit: 'decimal', decimalPlaces: 2 })),
  },
  'table_schemas_migrate_tests_rename-twice-using-transform': {
    why: 'a second organize renames the already renamed column, as in Grafana (Perses adds a column "family")',
    patch: (e) =>
      set(
        e,
        (s) =>
          (s.columnSettings = [
            { header: 'bonjour', name: 'value' },
            { header: 'group', name: 'job' },
            { header: 'Timestamp', name: 'timestamp' },
          ]),
      ),
  },
  'table_schemas_migrate_tests_several-settings-using-both-2': {
    why: 'as above: "group" is the renamed "job" column',
    patch: (e) =>
      set(
        e,
        (s) =>
          (s.columnSettings = [
            { header: 'group', name: 'job', width: 150 },
            { header: 'bonjour', name: 'value' },
            { header: 'Timestamp', name: 'timestamp' },
          ]),
      ),
  },
  'timeserieschart_schemas_migrate_tests_legacy-panel': {
    why: "the legacy graph's legend, lines, fill and series colours are kept (Perses: an empty spec)",
    patch: (e) => ({
      ...e,
      spec: {
        legend: { position: 'bottom', mode: 'table', values: ['min', 'max', 'mean'] },
        visual: { display: 'line', lineWidth: 1, areaOpacity: 0 },
        querySettings: [{ queryIndex: 0, colorMode: 'fixed', colorValue: '#F2CC0C', areaOpacity: 0.1 }],
      },
    }),
  },
};

function set(e: any, change: (spec: any) => void): any {
  const copy = structuredClone(e);
  change(copy.spec);
  return copy;
}
function withoutDatasource(e: any): any {
  return set(e, (s) => delete s.datasource);
}
function withoutFirstHeader(e: any): any {
  return set(e, (s) => delete s.layouts[0].spec.display);
}

/** What we compare for a dashboard-level case: everything but plugin contents (those cases run on Perses' dummy test plugins) and descriptions. */
function structure(d: any): any {
  const spec = d.spec;
  const panels = Object.fromEntries(
    Object.entries<any>(spec.panels).map(([k, p]) => [k, { name: p.spec.display?.name, links: p.spec.links }]),
  );
  const variables = (spec.variables ?? []).map((v: any) => ({ kind: v.kind, ...v.spec, plugin: undefined }));
  return JSON.parse(JSON.stringify({ metadata: d.metadata, spec: { ...spec, panels, variables } }));
}

/** Runs one case through the dashboard migration: a panel, query or variable is wrapped in a dashboard. */
function run(c: PersesCase): any {
  const kind = c.expected.kind;
  if (kind === 'Dashboard') return structure(migrateGrafanaDashboard(c.input).dashboard);
  if (/Variable$/.test(kind))
    return migrateGrafanaDashboard({ title: 't', templating: { list: [c.input] } }).dashboard.spec.variables?.[0]?.spec.plugin;
  const grid = { x: 0, y: 0, w: 12, h: 8 };
  if (/Query$/.test(kind)) {
    const panel = { type: kind === 'LokiLogQuery' ? 'logs' : 'timeseries', gridPos: grid, targets: [c.input] };
    return migrateGrafanaDashboard({ title: 't', panels: [panel] }).dashboard.spec.panels['0'].spec.queries?.[0]?.spec.plugin;
  }
  return migrateGrafanaDashboard({ title: 't', panels: [{ gridPos: grid, ...c.input }] }).dashboard.spec.panels['0'].spec.plugin;
}

describe("Grafana migration against Perses' own test cases", () => {
  const available = hasGrafanaCorpus();
  const cases = available ? persesCases() : [];
  /** The percli plugin-development fixtures run made-up plugins (MyPanel, MyQuery, MyVariable) that no server has. */
  const madeUp = cases.filter((c) => /^My/.test(c.expected.kind));

  before(function () {
    if (!available) {
      console.log(`    ${NO_CORPUS}`);
      this.skip();
    }
  });

  it('reads the 76 cases, 4 of which run made-up plugins and are left out', () => {
    expect(cases.length).to.equal(76);
    expect(madeUp.length).to.equal(4);
  });

  it('every deliberate difference names an existing case', () => {
    const names = new Set(cases.map((c) => c.name));
    expect(Object.keys(DIFFERENCES).filter((n) => !names.has(n))).to.deep.equal([]);
  });

  for (const c of available ? persesCases().filter((x) => !/^My/.test(x.expected.kind)) : []) {
    const diff = DIFFERENCES[c.name];
    it(`${c.name}${diff ? ` (differs on purpose: ${diff.why})` : ''}`, () => {
      const expected = c.expected.kind === 'Dashboard' ? structure(c.expected) : c.expected;
      const want = diff ? diff.patch(structuredClone(expected)) : expected;
      expect(sortKeys(run(c))).to.deep.equal(sortKeys(want));
    });
  }
});
