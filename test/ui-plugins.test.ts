/**
 * Issue 34: the plugins Perses publishes for logs, traces and profiles render in the web UI
 * (Perses' own packages), in Chromium, against fakes that speak the Loki, Tempo and Pyroscope
 * HTTP APIs (none of them is packaged in Debian) through dashplane's proxy with each kind's
 * suggested allowedEndpoints: a dashboard with a Loki time series and logs table, a Tempo trace
 * table, trace search (scatter) and Gantt chart, a Pyroscope flame chart and a datasource
 * variable shows data in every panel.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT, SCHEMAS_DIR } from '../src/paths.js';
import { PluginRegistry } from '../src/plugins/registry.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import type { RunningFake } from './helpers/fake-http.js';
import { startFakeLoki } from './helpers/fake-loki.js';
import { startFakePyroscope } from './helpers/fake-pyroscope.js';
import { fakeTraces, startFakeTempo } from './helpers/fake-tempo.js';
import { panelSection, signIn, startUiStack, type UiStack } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const CPU = 'process_cpu:cpu:nanoseconds:cpu:nanoseconds';

const panel = (
  title: string,
  plugin: string,
  spec: Record<string, unknown>,
  queryType: string,
  query: string,
  querySpec: Record<string, unknown>,
) => ({
  kind: 'Panel',
  spec: {
    display: { name: title },
    plugin: { kind: plugin, spec },
    queries: [{ kind: queryType, spec: { plugin: { kind: query, spec: querySpec } } }],
  },
});

const PANELS = {
  lokiRate: panel('Loki rate', 'TimeSeriesChart', { legend: { position: 'bottom' } }, 'TimeSeriesQuery', 'LokiTimeSeriesQuery', {
    datasource: { kind: 'LokiDatasource', name: 'loki' },
    query: 'sum by (status) (count_over_time({job="nginx"}[1m]))',
  }),
  lokiLogs: panel('Loki logs', 'LogsTable', { wrap: true, time: true, enableDetails: true }, 'LogQuery', 'LokiLogQuery', {
    query: '{job="$job"} |= "500"',
  }),
  traces: panel('Traces', 'TraceTable', {}, 'TraceQuery', 'TempoTraceQuery', { datasource: '$tempo', query: '{}' }),
  search: panel('Trace search', 'ScatterChart', {}, 'TraceQuery', 'TempoTraceQuery', { query: '{ resource.service.name = "frontend" }' }),
  gantt: panel('Checkout trace', 'TracingGanttChart', {}, 'TraceQuery', 'TempoTraceQuery', { query: TRACE }),
  flame: panel(
    'CPU',
    'FlameChart',
    { palette: 'package-name', showSettings: true, showSeries: false, showTable: true, showFlameGraph: true },
    'ProfileQuery',
    'PyroscopeProfileQuery',
    {
      profileType: CPU,
      service: 'checkout',
    },
  ),
};
const ORDER = Object.keys(PANELS) as (keyof typeof PANELS)[];

const dashboard = {
  kind: 'Dashboard',
  metadata: { name: 'observability', project: 'obs' },
  spec: {
    display: { name: 'Logs, traces and profiles' },
    duration: '15m',
    variables: [
      {
        kind: 'ListVariable',
        spec: {
          name: 'tempo',
          display: { name: 'Tempo' },
          plugin: { kind: 'DatasourceVariable', spec: { datasourcePluginKind: 'TempoDatasource' } },
        },
      },
      // the Loki variables (dashplane's own plugins): the logs panel's query uses $job
      {
        kind: 'ListVariable',
        spec: { name: 'job', plugin: { kind: 'LokiLabelValuesVariable', spec: { labelName: 'job', matchers: ['{status="500"}'] } } },
      },
      {
        kind: 'ListVariable',
        spec: {
          name: 'status',
          plugin: {
            kind: 'LokiLogQLVariable',
            spec: { expr: 'sum by (status) (count_over_time({job="nginx"}[5m]))', labelName: 'status' },
          },
        },
      },
      { kind: 'ListVariable', spec: { name: 'label', plugin: { kind: 'LokiLabelNamesVariable', spec: {} } } },
    ],
    panels: PANELS,
    // two columns, three rows: every panel in the window (Perses draws a panel once it is in view)
    layouts: [
      {
        kind: 'Grid',
        spec: {
          items: ORDER.map((k, i) => ({
            x: (i % 2) * 12,
            y: Math.floor(i / 2) * 9,
            width: 12,
            height: 9,
            content: { $ref: `#/spec/panels/${k}` },
          })),
        },
      },
    ],
  },
};

/** A dashboard of Prometheus queries only. */
const PROMETHEUS_ONLY = {
  kind: 'Dashboard',
  metadata: { name: 'prometheus-only', project: 'obs' },
  spec: {
    display: { name: 'Prometheus only' },
    duration: '5m',
    panels: {
      up: {
        kind: 'Panel',
        spec: {
          display: { name: 'Up' },
          plugin: { kind: 'TimeSeriesChart', spec: {} },
          queries: [{ kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: 'up' } } } }],
        },
      },
    },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 6, content: { $ref: '#/spec/panels/up' } }] } }],
  },
};

/** The built scripts (ui/dist/assets) holding code of Tempo's trace query and of Loki's query editor: the lazily loaded plugin chunks. */
function pluginChunks(): string[] {
  const dir = join(PACKAGE_ROOT, 'ui', 'dist', 'assets');
  const markers = ['TempoTraceQuery is undefined, null, or an empty string.', 'Got unexpected non LokiQuery datasource selection'];
  return readdirSync(dir).filter((f) => f.endsWith('.js') && markers.some((m) => readFileSync(join(dir, f), 'utf8').includes(m)));
}

/** The file names of the scripts the page loaded so far. */
const loadedScripts = (w: WatchedPage) =>
  w.page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((e) => new URL(e.name).pathname.split('/').pop() ?? '')
      .filter((f) => f.endsWith('.js')),
  );

/** Waits until the panel shows `what` (a text, or a drawn canvas), with no error alert and no "No data". */
async function waitForShown(w: WatchedPage, title: string, what: RegExp | 'canvas'): Promise<void> {
  const p = panelSection(w, title);
  let last = '';
  try {
    await waitFor(
      `panel "${title}" to show ${what}`,
      async () => {
        if ((await p.count()) === 0) return false;
        last = await p.innerText();
        if (/No data|Unable to determine|is not installed/.test(last) || (await p.locator('.MuiAlert-standardError').count()) > 0)
          return false;
        return what === 'canvas' ? (await p.locator('canvas').count()) > 0 : what.test(last);
      },
      60_000,
      250,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; it shows: ${last}; proxy: ${w.proxyLog.join(' | ')}`);
  }
}

describe('web UI: Loki, Tempo and Pyroscope panels and the datasource variable (Chromium, fakes of their HTTP APIs)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(180_000);
  let stack: UiStack;
  const fakes: RunningFake[] = [];

  before(async function () {
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    const registry = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'));
    const now = Date.now();
    // a second Tempo whose traces are other services', so the variable's choice shows
    const other = fakeTraces(now).map((t) => ({ ...t, spans: t.spans.map((s) => ({ ...s, service: `other-${s.service}` })) }));
    const [loki, tempo, tempoB, pyroscope] = await Promise.all([
      startFakeLoki(),
      startFakeTempo(fakeTraces(now)),
      startFakeTempo(other),
      startFakePyroscope(),
    ]);
    fakes.push(loki, tempo, tempoB, pyroscope);
    await stack.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'obs' }, spec: {} });
    const datasource = async (name: string, kind: string, url: string, isDefault: boolean) =>
      stack.api('POST', '/api/v1/projects/obs/datasources', {
        kind: 'Datasource',
        metadata: { name, project: 'obs' },
        spec: {
          default: isDefault,
          plugin: { kind, spec: { proxy: { kind: 'HTTPProxy', spec: { url, allowedEndpoints: registry.get(kind)!.allowedEndpoints } } } },
        },
      });
    await datasource('loki', 'LokiDatasource', loki.url, true);
    await datasource('tempo', 'TempoDatasource', tempo.url, true);
    await datasource('tempo-b', 'TempoDatasource', tempoB.url, false);
    await datasource('pyroscope', 'PyroscopeDatasource', pyroscope.url, true);
    await stack.api('POST', '/api/v1/projects/obs/dashboards', dashboard);
    await stack.api('POST', '/api/v1/projects/obs/datasources', {
      kind: 'Datasource',
      metadata: { name: 'prometheus', project: 'obs' },
      spec: {
        default: true,
        plugin: {
          kind: 'PrometheusDatasource',
          spec: { scrapeInterval: '1s', proxy: { kind: 'HTTPProxy', spec: { url: stack.prom.url } } },
        },
      },
    });
    await stack.api('POST', '/api/v1/projects/obs/dashboards', PROMETHEUS_ONLY);
  });

  /** A page signed in as the admin, tall enough for the dashboard's six panels. */
  const openAsAdmin = async () => {
    const w = await openPage(stack.s.url, { viewport: { width: 1600, height: 1100 } });
    await signIn(w, 'admin', 'admin-password');
    return w;
  };

  after(async () => {
    await stack?.stop();
    for (const f of fakes) await f.stop();
  });

  it("every panel shows its data: log rate, log lines, traces, trace search, a trace's spans, a flame graph", async () => {
    const w = await openAsAdmin();
    try {
      await w.page.goto('/projects/obs/dashboards/observability');
      await waitForShown(w, 'Loki rate', 'canvas');
      await waitForShown(w, 'Loki logs', /upstream timed out/);
      await waitForShown(w, 'Traces', /GET \/checkout/);
      await waitForShown(w, 'Trace search', 'canvas');
      await waitForShown(w, 'Checkout trace', /PlaceOrder[\s\S]*Charge/);
      await waitForShown(w, 'CPU', /shop\.PlaceOrder/);
      await w.screenshot('plugins-dashboard');
      expect(await panelSection(w, 'Loki rate').innerText()).to.include('status=500');
      expect(await panelSection(w, 'Traces').innerText(), 'the default Tempo')
        .to.include('frontend')
        .and.not.include('other-frontend');
      expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
    } finally {
      await w.close();
    }
  });

  it('the datasource variable lists the Tempo datasources, and choosing one switches the panel that uses it', async () => {
    const w = await openAsAdmin();
    try {
      await w.page.goto('/projects/obs/dashboards/observability');
      await waitForShown(w, 'Traces', /GET \/checkout/);
      const variable = w.page.locator('[data-testid="variable-tempo"]:visible');
      await variable.locator('input').click();
      const options = w.page.getByRole('option');
      await options.first().waitFor();
      const names = await options.allInnerTexts();
      expect(names.join(' '), names.join(' | ')).to.include('tempo-b');
      await w.page.getByRole('option', { name: 'tempo-b' }).click();
      await waitForShown(w, 'Traces', /other-frontend/);
      expect(new URL(w.page.url()).searchParams.get('var-tempo')).to.equal('tempo-b');
    } finally {
      await w.close();
    }
  });

  it("a Prometheus-only dashboard loads no code of Loki's or Tempo's queries and panels; the dashboard that uses them does", async () => {
    const chunks = pluginChunks();
    expect(chunks, 'the built UI has chunks with the Tempo trace query and the Loki query editor').to.have.length.of.at.least(2);
    const w = await openAsAdmin();
    try {
      await w.page.goto('/projects/obs/dashboards/prometheus-only');
      await waitForShown(w, 'Up', 'canvas');
      expect((await loadedScripts(w)).filter((f) => chunks.includes(f))).to.deep.equal([]);
      await w.page.goto('/projects/obs/dashboards/observability');
      await waitForShown(w, 'Traces', /GET \/checkout/);
      expect((await loadedScripts(w)).filter((f) => chunks.includes(f))).to.not.be.empty;
    } finally {
      await w.close();
    }
  });

  it('the datasource form creates a proxied Loki, Tempo and Pyroscope datasource with its suggested endpoints, and Save & test reaches the service', async () => {
    const registry = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'));
    const w = await openAsAdmin();
    try {
      const { page } = w;
      await page.goto('/projects/obs?tab=datasources');
      const cases = [
        { kind: 'LokiDatasource', service: 'Loki', url: fakes[0].url, call: 'GET /loki/api/v1/labels' },
        { kind: 'TempoDatasource', service: 'Tempo', url: fakes[1].url, call: 'GET /api/v2/search/tags' },
        { kind: 'PyroscopeDatasource', service: 'Pyroscope', url: fakes[3].url, call: 'POST /querier.v1.QuerierService/ProfileTypes' },
      ];
      for (const c of cases) {
        const name = `form-${c.service.toLowerCase()}`;
        await page.getByRole('button', { name: 'New datasource' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByRole('heading', { name: 'New datasource' }).waitFor();
        await dialog.getByTestId('name-field').fill(name);
        await dialog.getByLabel('Type').click();
        await page.getByRole('option', { name: c.kind, exact: true }).click();
        await dialog.getByLabel(`${c.service} URL`).fill(c.url);
        await dialog.getByRole('button', { name: `Allow only what ${c.service} panels use` }).click();
        expect(await dialog.getByTestId('endpoint-row').count(), c.kind).to.equal(registry.get(c.kind)!.allowedEndpoints!.length);
        await dialog.getByRole('button', { name: 'Save & test' }).click();
        const result = dialog.getByTestId('datasource-test');
        await result.waitFor();
        expect(await result.innerText(), c.kind).to.match(
          new RegExp(`^Saved and tested: ${c.service} answered ${c.call.replace(/\./g, '\\.')} in \\d+ ms\\.$`),
        );
        const stored = (await stack.api('GET', `/api/v1/projects/obs/datasources/${name}`)).body;
        expect(stored.spec.plugin).to.deep.equal({
          kind: c.kind,
          spec: { proxy: { kind: 'HTTPProxy', spec: { url: c.url, allowedEndpoints: registry.get(c.kind)!.allowedEndpoints } } },
        });
        await dialog.getByRole('button', { name: 'Close' }).click();
        await dialog.waitFor({ state: 'detached' });
      }
      await w.screenshot('plugins-datasource-form');
      expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
    } finally {
      await w.close();
    }
  });

  it("Explore has Tempo's and Pyroscope's explorers: a TraceQL search lists the traces, a profile query draws its flame graph", async () => {
    const w = await openPage(stack.s.url, { viewport: { width: 1600, height: 1100 } });
    const explore = (explorer: string, query: unknown) =>
      `/projects/obs/explore?${new URLSearchParams({ explorer, data: JSON.stringify({ queries: [query] }) })}`;
    try {
      await signIn(w, 'admin', 'admin-password');
      const { page } = w;
      const area = page.getByTestId('explore');
      await page.goto(
        explore('Tempo-TempoExplorer', {
          kind: 'TraceQuery',
          spec: {
            plugin: {
              kind: 'TempoTraceQuery',
              spec: { query: '{ status = error }', datasource: { kind: 'TempoDatasource', name: 'tempo' } },
            },
          },
        }),
      );
      await waitFor(
        `the traces found (shown: ${await area.innerText().catch(() => '')})`,
        async () => /GET \/checkout/.test(await area.innerText()),
        60_000,
        250,
      );
      expect(await area.innerText()).to.not.include('GET /healthz');
      await w.screenshot('plugins-explore-tempo');
      // the switch keeps the project; Pyroscope's explorer with a query in the URL
      await page.getByRole('button', { name: 'Profiles' }).waitFor();
      await page.goto(
        explore('Pyroscope-PyroscopeExplorer', {
          kind: 'ProfileQuery',
          spec: { plugin: { kind: 'PyroscopeProfileQuery', spec: { profileType: CPU, service: 'frontend' } } },
        }),
      );
      await waitFor(
        `the flame graph (shown: ${await area.innerText().catch(() => '')})`,
        async () => /shop\.PlaceOrder/.test(await area.innerText()),
        60_000,
        250,
      );
      await page.getByRole('button', { name: 'Metrics' }).click();
      await page.getByRole('heading', { name: 'Prometheus' }).waitFor();
      expect(new URL(page.url()).searchParams.get('explorer')).to.not.equal('Pyroscope-PyroscopeExplorer');
    } finally {
      await w.close();
    }
  });

  it("the Loki variables list label values (restricted by matchers), a LogQL result's label, and label names; the logs panel uses $job", async () => {
    const w = await openAsAdmin();
    try {
      const { page } = w;
      const queried: string[] = [];
      page.on('request', (r) => {
        const u = new URL(r.url());
        if (u.pathname.endsWith('/loki/api/v1/query_range')) queried.push(u.searchParams.get('query') ?? '');
      });
      await page.goto('/projects/obs/dashboards/observability');
      await waitForShown(w, 'Loki logs', /upstream timed out/);
      expect(queried).to.include('{job="nginx"} |= "500"');
      const choices = async (name: string) => {
        await page.locator(`[data-testid="variable-${name}"]:visible input`).click();
        await page.getByRole('option').first().waitFor();
        const texts = await page.getByRole('option').allInnerTexts();
        await page.keyboard.press('Escape');
        await page.getByRole('listbox').waitFor({ state: 'detached' });
        return texts.map((t) => t.trim()).filter((t) => t !== 'All');
      };
      expect(await choices('job'), 'only the jobs with status 500 lines').to.deep.equal(['nginx']);
      expect(await choices('status')).to.deep.equal(['200', '500']);
      expect(await choices('label')).to.deep.equal(['job', 'level', 'status']);
      expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
    } finally {
      await w.close();
    }
  });
});
