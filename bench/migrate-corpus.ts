/**
 * `node dist/bench/migrate-corpus.js DIR`: migrates every Grafana dashboard (*.json) of DIR with
 * the server's plugin catalog (which kinds exist, which the web UI draws), checks each result with
 * the server's validation, and prints the figures of docs/migrate-grafana.md next to what Perses'
 * own rules give on the same files (bench/perses-rules.ts), plus the time the whole directory
 * takes (median of 5 runs).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KINDS } from '../cli/kinds.js';
import { OfflineValidator } from '../cli/offline-validator.js';
import { migrateGrafanaDashboard, type MigrationResult } from '../src/migrate/dashboard.js';
import { SCHEMAS_DIR } from '../src/paths.js';
import { PluginRegistry } from '../src/plugins/registry.js';
import { grafanaPanels } from '../test/helpers/grafana-corpus.js';
import { persesOutcome } from './perses-rules.js';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node dist/bench/migrate-corpus.js DIRECTORY_OF_GRAFANA_DASHBOARDS');
  process.exit(2);
}
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const inputs = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
// biome-ignore lint/suspicious/noExplicitAny: corpus files read loosely
const unwrap = (d: any) => (d.dashboard && !d.panels && !d.rows ? d.dashboard : d);

const plugins = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'));
const options = {
  project: 'bench',
  hasPlugin: (k: string) => plugins.get(k) !== undefined,
  inUi: (k: string) => plugins.get(k)?.ui === true,
};
const times: number[] = [];
let results: MigrationResult[] = [];
for (let i = 0; i < 5; i++) {
  const started = performance.now();
  results = inputs.map((d) => migrateGrafanaDashboard(d, options));
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);

const validator = new OfflineValidator();
const started = performance.now();
let accepted = 0;
for (const r of results) if (!(await validator.check(KINDS.byName('Dashboard')!, r.dashboard))) accepted++;
const validationMs = performance.now() - started;

const sum = (f: (r: MigrationResult) => number) => results.reduce((n, r) => n + f(r), 0);
const grafana = {
  panels: inputs.reduce((n, d) => n + grafanaPanels(d).length, 0),
  targets: inputs.reduce(
    (n, d) => n + grafanaPanels(d).reduce((m, p) => m + (p.targets ?? []).filter((t: unknown) => t && typeof t === 'object').length, 0),
    0,
  ),
  variables: inputs.reduce((n, d) => n + (unwrap(d).templating?.list?.length ?? 0), 0),
  legacy: inputs.filter((d) => persesOutcome(unwrap(d)).legacyRows),
};
const perses = inputs.map((d) => persesOutcome(unwrap(d)));
const psum = (f: (o: ReturnType<typeof persesOutcome>) => number) => perses.reduce((n, o) => n + f(o), 0);
const pct = (n: number, of: number) => `${n}/${of} (${((100 * n) / of).toFixed(1)}%)`;

const ours = {
  panelsPlugin: sum((r) => r.report.summary.panels.mapped + r.report.summary.panels.approximated),
  panelsExact: sum((r) => r.report.summary.panels.mapped),
  placeholders: sum((r) => r.report.summary.panels.placeholder),
  queries: sum((r) => r.report.summary.queries.mapped),
  queriesUnrendered: sum((r) => r.report.summary.queries.unrendered),
  panelsDrawn: sum((r) => r.report.entries.filter((e) => e.subject === 'panel' && e.render?.renders).length),
  queryPlaceholders: sum((r) => r.report.summary.queries.placeholder),
  variables: sum((r) => r.report.summary.variables.mapped + r.report.summary.variables.approximated),
  timeKept: results.filter((r, i) => r.dashboard.spec.duration !== '1h' || unwrap(inputs[i]).time?.from === 'now-1h').length,
  refresh: results.filter((r) => r.dashboard.spec.refreshInterval).length,
  annotations: sum((r) => r.dashboard.spec.annotations?.length ?? 0),
  legacyPanels: grafana.legacy.reduce((n, d) => n + grafanaPanels(d).length, 0),
};
const rows: [string, string, string][] = [
  [
    'dashboards accepted by dashplane validation',
    pct(accepted, results.length),
    `at most ${pct(
      psum((o) => (o.validName ? 1 : 0)),
      results.length,
    )} (no uid: empty name)`,
  ],
  [
    'panels on a real plugin (not a placeholder)',
    pct(ours.panelsPlugin, grafana.panels),
    pct(
      psum((o) => o.panelsMapped),
      grafana.panels,
    ),
  ],
  ['  ... of which with nothing approximated', pct(ours.panelsExact, grafana.panels), '-'],
  ['panels the web UI draws (plugins bundled, data)', pct(ours.panelsDrawn, grafana.panels), '-'],
  [`panels of the ${grafana.legacy.length} legacy rows[] dashboards`, pct(ours.legacyPanels, ours.legacyPanels), `0/${ours.legacyPanels}`],
  [
    'queries that run in the web UI',
    pct(ours.queries, grafana.targets),
    pct(
      psum((o) => o.queriesMapped),
      grafana.targets,
    ),
  ],
  ['queries migrated that the web UI cannot run', pct(ours.queriesUnrendered, grafana.targets), '-'],
  ['queries kept as text placeholders', pct(ours.queryPlaceholders, grafana.targets), '-'],
  [
    'variables mapped',
    pct(ours.variables, grafana.variables),
    pct(
      psum((o) => o.variablesMapped),
      grafana.variables,
    ),
  ],
  [
    'time range kept',
    pct(ours.timeKept, results.length),
    pct(
      psum((o) => (o.timeRangeKept ? 1 : 0)),
      results.length,
    ),
  ],
  ['refresh interval kept', `${ours.refresh}`, '0'],
  ['Prometheus annotations kept', `${ours.annotations}`, '0'],
];
console.log(`${files.length} Grafana dashboards from ${dir}\n`);
console.log(`${'figure'.padEnd(48)} ${'dashplane'.padEnd(22)} Perses' rules`);
for (const [what, a, b] of rows) console.log(`${what.padEnd(48)} ${a.padEnd(22)} ${b}`);
console.log(
  `\nmigrating all ${files.length}: median ${times[2].toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[4].toFixed(0)}); validating them: ${validationMs.toFixed(0)} ms`,
);
