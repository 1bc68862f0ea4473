import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { stringify } from 'yaml';
import { bearer, LOOPBACK_UPSTREAMS, loginAdmin, startAuthServer, type Tokens } from './helpers/auth.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { GRAFANA_EXPORT } from './helpers/grafana-export.js';
import { corpusDashboards, hasGrafanaCorpus, NO_CORPUS } from './helpers/grafana-corpus.js';
import { startMonitoring, type Monitoring } from './helpers/monitoring.js';
import { tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

/** Corpus dashboards rendered in Chromium after migration: legacy rows, singlestats, tables, pies, heatmaps, state timelines. */
const SAMPLE = [
  'rfmoz__grafana-dashboards__prometheus_node-exporter-full-old.json',
  'grafana__grafana__public_app_plugins_datasource_prometheus_dashboards_prometheus_2_stats@84411794.json',
  'rfmoz__grafana-dashboards__prometheus_node-exporter-bsd.json',
  'percona__grafana-dashboards__dashboards_MongoDB_MongoDB_Backup_Details.json',
  'monitoring-mixins__website__assets_loki_dashboards_loki-chunks.json',
  'dotdc__grafana-dashboards-kubernetes__dashboards_k8s-views-nodes.json',
];

/**
 * Waits until the page's requests have settled: none in flight and none started for 750 ms. The
 * dashboard's own watch stream stays open, so Playwright's "networkidle" never comes; it is left out.
 */
function requestTracker(page: Page): { settled(): Promise<void> } {
  let inFlight = 0;
  let last = Date.now();
  const counted = (url: string) => !url.includes('watch=true');
  page.on('request', (r) => {
    if (!counted(r.url())) return;
    inFlight++;
    last = Date.now();
  });
  const done = (r: { url(): string }) => {
    if (!counted(r.url())) return;
    inFlight--;
    last = Date.now();
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return {
    settled: () =>
      waitFor('the page requests to settle', () => inFlight <= 0 && Date.now() - last > 750, 60_000, 100).then(() => undefined),
  };
}

/** Scrolls to the bottom of the dashboard, letting each screenful's queries finish. */
async function scrollThrough(page: Page, settled: () => Promise<void>): Promise<void> {
  for (let i = 0; i < 15; i++) {
    const atBottom = await page.evaluate(() => window.innerHeight + window.scrollY >= document.body.scrollHeight - 5);
    if (atBottom) break;
    await page.mouse.wheel(0, 900);
    await settled();
  }
}

describe('web UI: importing Grafana dashboards (Chromium, real Prometheus)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(240_000);
  let monitoring: Monitoring;
  let s: TestServer;
  let admin: Tokens;
  let w: WatchedPage;
  let tracker: ReturnType<typeof requestTracker>;
  const files = tempDir('ui-import-');
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await s.api(method, path, body, bearer(admin));
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 500)}`);
    return r;
  };

  before(async function () {
    this.timeout(120_000);
    monitoring = await startMonitoring();
    s = await startAuthServer(LOOPBACK_UPSTREAMS);
    admin = await loginAdmin(s);
    await api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'imported' }, spec: {} });
    await api('POST', '/api/v1/projects/imported/datasources', {
      kind: 'Datasource',
      metadata: { name: 'prometheus' },
      // scrapeInterval 1s (Prometheus here scrapes every second): Perses' minimum step, so the
      // newest step of a short range holds samples right after Prometheus starts
      spec: {
        default: true,
        plugin: {
          kind: 'PrometheusDatasource',
          spec: { scrapeInterval: '1s', proxy: { kind: 'HTTPProxy', spec: { url: monitoring.prom.url } } },
        },
      },
    });
    w = await openPage(s.url);
    tracker = requestTracker(w.page);
    await w.page.goto('/signin');
    await w.page.getByLabel('User name').fill('admin');
    await w.page.getByLabel('Password').fill('admin-password');
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    await w.page.waitForURL((u) => u.pathname === '/');
  });

  after(async function () {
    this.timeout(30_000);
    await w?.close();
    await s?.stop();
    await monitoring?.stop();
    files.remove();
  });

  it('pastes a Grafana export, shows the report and a live preview, and saves it under the chosen name', async () => {
    const { page } = w;
    w.errors.length = 0;
    await page.goto('/projects/imported');
    await page.getByRole('link', { name: 'Import' }).click();
    await page.waitForURL(/\/projects\/imported\/import$/);
    // the last 5 minutes, refreshed every 5 s: right after Prometheus starts the newest whole step may be empty
    await page.goto('/projects/imported/import?start=5m&refresh=5s');
    await page.getByLabel('dashboard text').fill(JSON.stringify(GRAFANA_EXPORT, null, 2));
    await page.getByTestId('import-preview').click();
    await page.getByTestId('report-summary').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('report-summary').innerText())
      .to.contain('2 panels: 2 mapped')
      .and.contain('1 variables: 1 mapped');
    expect(await page.getByLabel('dashboard name').inputValue()).to.equal('svc-overview');
    const preview = page.getByTestId('import-preview-dashboard');
    await preview.getByRole('heading', { name: 'Targets up', exact: true }).waitFor({ timeout: 60_000 });
    await waitFor('the stat to show a value', async () => /Targets up\s*\n?\s*\d/.test(await preview.innerText()), 60_000, 250);
    await w.screenshot('import-01-preview');
    await page.getByLabel('dashboard name').fill('service');
    await page.getByTestId('import-save').click();
    await page.waitForURL(/\/projects\/imported\/dashboards\/service(?:\?|$)/); // the page adds its time range to the query at once
    await page.getByRole('heading', { name: 'Service overview', exact: true }).waitFor({ timeout: 60_000 });
    expect((await api('GET', '/api/v1/projects/imported/dashboards/service')).body.spec.display.name).to.equal('Service overview');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('says in the report and above the preview which panels this web UI does not draw, and why', async () => {
    const { page } = w;
    w.errors.length = 0;
    const grafana = {
      ...GRAFANA_EXPORT,
      uid: 'not-all-drawn',
      panels: [
        ...GRAFANA_EXPORT.panels,
        {
          type: 'geomap',
          title: 'Visitors',
          gridPos: { x: 0, y: 6, w: 12, h: 6 },
          targets: [{ refId: 'A', expr: 'sum by (country) (visits)' }],
        },
        {
          type: 'timeseries',
          title: 'Random walk',
          datasource: { type: 'testdata', uid: 'td' },
          gridPos: { x: 12, y: 6, w: 12, h: 6 },
          targets: [{ refId: 'A', scenarioId: 'random_walk' }],
        },
      ],
    };
    await page.goto('/projects/imported/import?start=5m');
    await page.getByLabel('dashboard text').fill(JSON.stringify(grafana));
    await page.getByTestId('import-preview').click();
    await page.getByTestId('report-summary').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('report-drawn').innerText()).to.equal('drawn here: 2 of 4 panels');
    expect(await page.getByTestId('import-not-drawn').innerText()).to.equal(
      '2 panels are not drawn by this web UI (the report says why): geomap "Visitors", timeseries "Random walk".',
    );
    const lines = async (row: string) =>
      (await page.getByTestId('report-row').filter({ hasText: row }).getByTestId('report-not-drawn').innerText()).split(/\n+/);
    expect(await lines('geomap "Visitors"')).to.deep.equal(['not drawn', 'only a text placeholder stands for it']);
    expect(await lines('timeseries "Random walk"')).to.deep.equal(['not drawn', 'none of its queries could be migrated: it shows no data']);
    // the preview shows what the report says: the placeholder's text, the other panels drawn
    const preview = page.getByTestId('import-preview-dashboard');
    await preview.getByRole('heading', { name: 'Targets up', exact: true }).waitFor({ timeout: 60_000 });
    // panels below the fold are drawn once scrolled to
    await scrollThrough(page, tracker.settled);
    await preview.getByText('Not migrated from Grafana').waitFor({ timeout: 60_000 });
    await w.screenshot('import-03-not-drawn');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('uploads a Perses dashboard in YAML and imports it as it is; a taken name is refused with a clear message', async () => {
    const { page } = w;
    const perses = (await s.api('POST', '/api/migrate', { grafanaDashboard: { ...GRAFANA_EXPORT, uid: 'uploaded' } }, bearer(admin))).body;
    const file = join(files.path, 'dashboard.yaml');
    writeFileSync(file, stringify(perses));
    await page.goto('/import');
    await page.getByTestId('import-file').setInputFiles(file);
    await waitFor('the file in the text box', async () =>
      (await page.getByLabel('dashboard text').inputValue()).includes('kind: Dashboard'),
    );
    await page.getByTestId('import-preview').click();
    await page.getByText('This is already a Perses dashboard').waitFor();
    expect(await page.getByLabel('dashboard name').inputValue()).to.equal('uploaded');
    await page.getByLabel('dashboard name').fill('service');
    await page.getByTestId('import-save').click();
    await page.getByText('A dashboard named "service" already exists in imported: choose another name.').waitFor();
    await w.screenshot('import-02-name-taken');
    await page.getByLabel('dashboard name').fill('uploaded');
    await page.getByTestId('import-save').click();
    await page.waitForURL(/\/projects\/imported\/dashboards\/uploaded(?:\?|$)/); // the page adds its time range to the query at once
  });

  describe('migrated corpus dashboards render with no console errors', () => {
    before(function () {
      if (!hasGrafanaCorpus()) {
        console.log(`      ${NO_CORPUS}`);
        this.skip();
      }
    });

    for (const file of SAMPLE) {
      it(file, async () => {
        const { page } = w;
        const grafana = corpusDashboards().find((d) => d.file === file)!.json;
        const migrated = (await api('POST', '/api/migrate?project=imported', { grafanaDashboard: grafana })).body;
        await api('POST', '/api/v1/projects/imported/dashboards', migrated);
        w.errors.length = 0;
        await page.goto(`/projects/imported/dashboards/${encodeURIComponent(migrated.metadata.name)}?start=15m`);
        await page.getByRole('heading', { name: migrated.spec.display.name, exact: true }).waitFor();
        await page.locator('section[data-testid="panel"]').first().waitFor();
        await tracker.settled();
        await scrollThrough(page, tracker.settled);
        await w.screenshot(`import-corpus-${migrated.metadata.name}`);
        expect(w.errors, `${file}:\n${w.errors.join('\n')}\nlast proxy calls:\n${w.proxyLog.join('\n')}`).to.deep.equal([]);
      });
    }
  });
});
