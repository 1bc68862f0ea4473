import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { parse } from 'yaml';
import { bearer, loginAdmin, startAuthServer, type Tokens } from './helpers/auth.js';
import { launchBrowser, openPage, type WatchedPage } from './helpers/browser.js';
import { startNodeExporter, type RunningNodeExporter } from './helpers/node-exporter.js';
import { startPrometheus, type RunningPrometheus } from './helpers/prometheus.js';
import type { TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const CORPUS = join(process.cwd(), '..', 'shared', 'corpus');
const OVERVIEW = join(CORPUS, 'community-mixins/examples/dashboards/perses/prometheus/prometheus-overview.yaml');
const DEMO = join(CORPUS, 'perses/dev/data/9-dashboard.json');

/** A panel of the Perses dashboard by its title (a <section data-testid="panel"> labelled by its header). */
function panel(page: Page, title: string): Locator {
  return page.locator('section[data-testid="panel"]').filter({ has: page.getByRole('heading', { name: title, exact: true }) }).first();
}

/** Waits for a panel to show data: a chart canvas, table rows or a value, and no "No data". */
async function expectPanelWithData(page: Page, title: string, kind: 'chart' | 'table' | 'stat'): Promise<void> {
  const p = panel(page, title);
  await p.scrollIntoViewIfNeeded();
  await waitFor(
    `panel "${title}" to show data`,
    async () => {
      const text = await p.innerText();
      if (/No data/.test(text)) return false;
      if (kind === 'chart') return (await p.locator('canvas').count()) > 0;
      if (kind === 'table') return (await p.getByRole('row').count()) >= 2;
      return /\d/.test(text.replace(title, ''));
    },
    30_000,
    200,
  );
}

describe('web UI in Chromium (auth on, real Prometheus and node exporter)', function () {
  this.timeout(180_000);
  let nodeExporter: RunningNodeExporter;
  let prom: RunningPrometheus;
  let s: TestServer;
  let admin: Tokens;
  let browser: Browser;
  let w: WatchedPage;
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await s.api(method, path, body, { ...bearer(admin), ...headers });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };

  before(async function () {
    this.timeout(120_000);
    nodeExporter = await startNodeExporter();
    prom = await startPrometheus({ scrape: [{ job: 'node', target: nodeExporter.target }] });
    s = await startAuthServer();
    admin = await loginAdmin(s);
    for (const project of ['perses-dev', 'perses']) {
      await api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: project }, spec: { display: { name: project === 'perses' ? 'Perses demo' : 'Perses dev' } } });
      await api('POST', `/api/v1/projects/${project}/datasources`, {
        kind: 'Datasource',
        metadata: { name: 'prometheus-datasource', project },
        spec: { default: true, plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: prom.url } } } } },
      });
    }
    await api('POST', '/api/v1/projects/perses-dev/dashboards', parse(readFileSync(OVERVIEW, 'utf8')));
    const demo = JSON.parse(readFileSync(DEMO, 'utf8'))[0];
    demo.spec.datasources.PrometheusLocal.plugin.spec.proxy.spec.url = prom.url; // was localhost:9090
    await api('POST', '/api/v1/projects/perses/dashboards', demo);
    browser = await launchBrowser();
    w = await openPage(browser, s.url);
  });

  after(async function () {
    this.timeout(30_000);
    await w?.close();
    await browser?.close();
    await s?.stop();
    await prom?.stop();
    await nodeExporter?.stop();
  });

  it('sends a visitor without a session to sign in, and signs in with the native form', async function () {
    const { page } = w;
    await page.goto('/projects/perses');
    await page.waitForURL(/\/signin\?redirect=%2Fprojects%2Fperses/);
    await page.getByRole('heading', { name: 'Sign in to dashplane' }).waitFor();
    await page.getByLabel('User name').fill('admin');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('signin-error').waitFor();
    await w.screenshot('01-signin-error');
    await page.getByLabel('Password').fill('admin-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/projects\/perses$/);
    expect(await page.getByTestId('current-user').innerText()).to.equal('admin');
  });

  it('lists projects and searches them', async function () {
    const { page } = w;
    await page.goto('/');
    await page.getByTestId('project-row').first().waitFor();
    expect(await page.getByTestId('project-row').count()).to.equal(2);
    await page.getByLabel('Search projects').fill('demo');
    await waitFor('one project row', async () => (await page.getByTestId('project-row').count()) === 1);
    expect(await page.getByTestId('project-row').innerText()).to.contain('Perses demo');
    await w.screenshot('02-projects');
    await page.getByRole('link', { name: 'Perses demo' }).click();
    await page.waitForURL(/\/projects\/perses$/);
    await page.getByTestId('resource-row').first().waitFor();
    expect(await page.getByTestId('resource-row').innerText()).to.contain('Demo');
    await page.getByRole('tab', { name: 'Datasources' }).click();
    await waitFor('the datasource row', async () => (await page.getByTestId('resource-row').innerText().catch(() => '')).includes('prometheus-datasource'));
    expect(await page.getByTestId('resource-row').innerText()).to.contain('PrometheusDatasource');
    await w.screenshot('03-project-datasources');
  });

  it('renders prometheus-overview (community-mixins) with data from Prometheus through the proxy', async function () {
    const { page } = w;
    w.errors.length = 0;
    await page.goto('/projects/perses-dev/dashboards/prometheus-overview');
    await page.getByRole('heading', { name: 'Prometheus / Overview' }).waitFor();
    await expectPanelWithData(page, 'Prometheus Stats', 'table');
    expect(await panel(page, 'Prometheus Stats').innerText()).to.match(/2\.\d+\.\d+/); // the version column
    await expectPanelWithData(page, 'Target Sync', 'chart');
    await w.screenshot('04-prometheus-overview');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('renders the Perses Demo dashboard: stats, gauges and time series from the node exporter', async function () {
    const { page } = w;
    w.errors.length = 0;
    await page.goto('/projects/perses/dashboards/Demo');
    await page.getByRole('heading', { name: 'Demo', exact: true }).waitFor();
    await expectPanelWithData(page, 'RAM Total', 'stat');
    await expectPanelWithData(page, 'Gauge Format Test', 'chart');
    await expectPanelWithData(page, 'Legend Example', 'chart');
    await w.screenshot('05-demo');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });
});
