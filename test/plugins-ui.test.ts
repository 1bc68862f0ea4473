/**
 * The plugin catalog's `"ui": true` flags (what the Grafana migration report and other server code
 * read to tell whether a panel will render here) against what the web UI really registers: every
 * Perses plugin package ui/src/plugins.ts imports, and the plugin kinds each package declares in
 * its package.json (`perses.plugins`, what its getPluginModule() hands the plugin registry).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PluginRegistry } from '../src/plugins/registry.js';
import { PACKAGE_ROOT, SCHEMAS_DIR } from '../src/paths.js';

const PLUGINS_TS = join(PACKAGE_ROOT, 'ui', 'src', 'plugins.ts');
const requireFromUi = createRequire(join(PACKAGE_ROOT, 'ui', 'package.json'));

/** The Perses plugin packages ui/src/plugins.ts loads: every `@perses-dev/*` module it imports, statically or with import(), but the plugin system. */
function uiPackages(): string[] {
  const source = readFileSync(PLUGINS_TS, 'utf8');
  const names = [...source.matchAll(/(?:from |import\()'(@perses-dev\/[a-z0-9-]+)(?:\/[^']*)?'/g)].map((m) => m[1]);
  return [...new Set(names)].filter((n) => n !== '@perses-dev/plugin-system').sort();
}

type Declared = { perses?: { plugins?: { kind: string; spec: { name: string } }[] } };
const kindsOf = (json: Declared) => (json.perses?.plugins ?? []).map((p) => `${p.kind}:${p.spec.name}`);

/** `<type>:<kind>` of every plugin the package declares. */
const declared = (pkg: string): string[] => kindsOf(JSON.parse(readFileSync(requireFromUi.resolve(`${pkg}/package.json`), 'utf8')));

/** `<type>:<kind>` of the plugins of dashplane's own plugin modules (ui/src/perses/*.module.json, in the form of a package.json) that ui/src/plugins.ts imports. */
function ownModules(): string[] {
  const source = readFileSync(PLUGINS_TS, 'utf8');
  return [...source.matchAll(/from '(\.\/[^']+\.module\.json)'/g)].flatMap((m) =>
    kindsOf(JSON.parse(readFileSync(join(PACKAGE_ROOT, 'ui', 'src', m[1]), 'utf8'))),
  );
}

describe('the catalog\'s "ui" flags match the plugins the web UI registers', () => {
  const registry = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'));
  const packages = uiPackages();
  // explorers are pages of the UI, not resources a server validates
  const rendered = [...packages.flatMap(declared), ...ownModules()].filter((k) => !k.startsWith('Explore:'));

  it('ui/src/plugins.ts loads the Perses packages of Prometheus, Loki, Tempo, Pyroscope and the trace, flame and chart panels', () => {
    for (const p of [
      'prometheus-plugin',
      'loki-plugin',
      'tempo-plugin',
      'pyroscope-plugin',
      'trace-table-plugin',
      'tracing-gantt-chart-plugin',
      'flame-chart-plugin',
      'datasource-variable-plugin',
      'timeseries-chart-plugin',
    ]) {
      expect(packages, p).to.include(`@perses-dev/${p}`);
    }
  });

  it('every kind the UI registers is in the catalog with the same type and "ui": true', () => {
    for (const typeAndKind of rendered) {
      const [type, kind] = typeAndKind.split(':');
      const info = registry.get(kind);
      expect(info, `${kind} (from the UI) is not in schemas/plugins/catalog.json`).to.not.equal(undefined);
      expect(info!.type, kind).to.equal(type);
      expect(info!.ui, `${kind} is drawn by the UI: mark it "ui": true in schemas/plugins/catalog.json`).to.equal(true);
    }
  });

  it('every catalog kind marked "ui": true is registered by the UI (no other)', () => {
    const flagged = registry
      .all()
      .filter((p) => p.ui)
      .map((p) => `${p.type}:${p.kind}`)
      .sort();
    expect(flagged).to.deep.equal([...rendered].sort());
  });

  it("the kinds of issue 34 are flagged (the Loki variables are dashplane's own), and kinds without an installable UI package are not", () => {
    for (const k of [
      'LokiDatasource',
      'LokiTimeSeriesQuery',
      'LokiLogQuery',
      'LokiLabelValuesVariable',
      'LokiLabelNamesVariable',
      'LokiLogQLVariable',
      'LogsTable',
      'TempoDatasource',
      'TempoTraceQuery',
      'TraceTable',
      'TracingGanttChart',
      'ScatterChart',
      'PyroscopeDatasource',
      'PyroscopeProfileQuery',
      'FlameChart',
      'DatasourceVariable',
    ]) {
      expect(registry.get(k)?.ui, k).to.equal(true);
    }
    // ClickHouse and OpenSearch need @perses-dev 0.54 packages that do not install
    for (const k of ['ClickHouseDatasource', 'OpenSearchDatasource', 'MetricsDatasource', 'PrometheusPromQLAnnotation']) {
      expect(registry.get(k)?.ui, k).to.equal(undefined);
    }
  });
});
