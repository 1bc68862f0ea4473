import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { signIn, startUiStack, type UiStack } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';
import { skipWithoutCorpus } from './helpers/corpus.js';
import { needsPrograms } from './helpers/programs.js';

/** The PromQL editor of the n-th query (CodeMirror). */
const promql = (page: Page, n = 0) => page.getByTestId('explore').locator('.cm-content').nth(n);

/**
 * Runs the first query until the table shows a series of `metric`: right after Prometheus starts,
 * the instant query's time (aligned down to the minute) may come before its first sample. The
 * table is looked at every 100 ms; the query is run again at most every 3 s.
 */
async function runUntilTableShows(page: Page, metric: string): Promise<void> {
  const table = page.getByTestId('explore').locator('table');
  let ranAt = 0;
  await waitFor(
    `a table row of ${metric}`,
    async () => {
      if ((await table.innerText().catch(() => '')).includes(metric)) return true;
      if (Date.now() - ranAt >= 3_000) {
        await page.getByRole('button', { name: 'Run Query' }).first().click();
        ranAt = Date.now();
      }
      return false;
    },
    90_000,
    100,
  );
}

/** Explore: ad-hoc PromQL as a table and a graph against the project's or the global datasources; a panel's Explore action. */
describe('web UI Explore (Chromium, real Prometheus)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(150_000);
  let stack: UiStack;
  let w: WatchedPage;

  before(async function () {
    skipWithoutCorpus(this, 'corpus'); // the Perses Demo dashboard
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    await stack.project('perses', 'Perses demo');
    await stack.demo('perses');
    await stack.api('POST', '/api/v1/globaldatasources', {
      kind: 'GlobalDatasource',
      metadata: { name: 'global-prometheus' },
      spec: {
        default: true,
        plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: stack.prom.url } } } },
      },
    });
    w = await openPage(stack.s.url);
    await signIn(w, 'admin', 'admin-password');
  });

  after(async () => {
    await w?.close();
    await stack?.stop();
  });

  it("runs a PromQL query against the project's default datasource, as a table and as a graph", async () => {
    const { page } = w;
    await page.goto('/');
    // Explore opens on the first project holding a datasource (test/ui-explore-start.test.ts)
    await page.getByRole('link', { name: 'Explore', exact: true }).click();
    await page.waitForURL(/\/projects\/perses\/explore/);
    await page.getByRole('tab', { name: 'Table' }).waitFor();
    await promql(page).click();
    await page.keyboard.type('node_memory_MemTotal_bytes');
    await runUntilTableShows(page, 'node_memory_MemTotal_bytes');
    const explore = page.getByTestId('explore');
    expect(await explore.locator('table').innerText()).to.match(/job.*node/);
    await w.screenshot('explore-table');
    await page.getByRole('tab', { name: 'Graph' }).click();
    await explore.locator('canvas').first().waitFor();
    // the query and the tab are in the URL: a reload shows the same
    expect(decodeURIComponent(page.url())).to.contain('node_memory_MemTotal_bytes').and.to.contain('"tab":"graph"');
    await page.reload();
    await explore.locator('canvas').first().waitFor();
    await w.screenshot('explore-graph');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('runs against the global datasources when no project is chosen', async () => {
    const { page } = w;
    // the query goes to the global default datasource's proxy
    const asked = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/proxy/globaldatasources/global-prometheus/api/v1/query' && r.status() === 200,
    );
    await page.getByLabel('Datasources of').click();
    await page.getByRole('option', { name: 'global datasources only' }).click();
    await page.waitForURL((u) => u.pathname === '/explore');
    await page.getByRole('tab', { name: 'Table' }).click();
    await asked;
    await runUntilTableShows(page, 'node_memory_MemTotal_bytes');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it("opens a dashboard panel's queries in Explore from its header, variables filled in", async () => {
    const { page } = w;
    await page.goto('/projects/perses/dashboards/Demo?var-job=node&start=15m');
    await page.getByRole('heading', { name: 'Demo', exact: true }).waitFor();
    const panel = page
      .locator('section[data-testid="panel"]')
      .filter({ has: page.getByRole('heading', { name: 'Legend Example', exact: true }) })
      .first();
    // hover the header, not the chart: an ECharts tooltip opened over the chart would still try to
    // draw after the page has gone to Explore (a page error in Chromium)
    await panel.getByRole('heading', { name: 'Legend Example', exact: true }).hover();
    await panel.getByRole('link', { name: 'Explore Legend Example' }).click();
    await page.waitForURL(/\/projects\/perses\/explore\?/);
    expect(new URL(page.url()).searchParams.get('start')).to.equal('15m');
    expect(new URL(page.url()).searchParams.get('dashboard')).to.equal('Demo');
    const first = await promql(page).innerText();
    expect(first).to.contain("node_memory_MemTotal_bytes{job='node'").and.to.not.contain('$');
    // the graph of the panel's queries, through the project's default datasource
    const canvas = page.getByTestId('explore').locator('canvas').first();
    // (the mouse away from the charts: ECharts' tooltip trips over a chart that re-renders under it)
    await page.mouse.move(0, 0);
    await waitFor(
      'the graph',
      async () => {
        await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
        return (await canvas.count()) > 0;
      },
      60_000,
      500,
    );
    await page.getByRole('link', { name: 'Back to Demo' }).waitFor();
    await w.screenshot('explore-from-panel');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });
});
