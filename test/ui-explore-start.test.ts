/**
 * Explore from the top menu opens on something the user can query (issue 35): a normal user's
 * project and its datasource (the last used, else the first), a query that runs against a real
 * Prometheus; a user with nothing to query is told what to do. And a dashboard panel whose
 * datasource does not exist says so in a sentence at once, not after Perses' retries; the Import
 * preview warns of it.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { bearer, login, signUp } from './helpers/auth.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { needsPrograms } from './helpers/programs.js';
import { signIn, startUiStack, type UiStack } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';

const promql = (page: Page) => page.getByTestId('explore').locator('.cm-content').first();
const prometheus = (url: string, isDefault: boolean) => ({
  default: isDefault,
  plugin: { kind: 'PrometheusDatasource', spec: { scrapeInterval: '1s', proxy: { kind: 'HTTPProxy', spec: { url } } } },
});

describe('web UI: where Explore starts, and panels whose datasource is missing (Chromium, real Prometheus)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(150_000);
  let stack: UiStack;
  let w: WatchedPage;

  before(async function () {
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    await signUp(stack.s, 'dev');
    await signUp(stack.s, 'newcomer');
    // dev's only project, with one Prometheus datasource that is not the default
    await stack.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'team' }, spec: {} });
    await stack.api('POST', '/api/v1/projects/team/datasources', {
      kind: 'Datasource',
      metadata: { name: 'team-prometheus', project: 'team' },
      spec: prometheus(stack.prom.url, false),
    });
    await stack.api('POST', '/api/v1/projects/team/rolebindings', {
      kind: 'RoleBinding',
      metadata: { name: 'dev', project: 'team' },
      spec: { role: 'editor', subjects: [{ kind: 'User', name: 'dev' }] },
    });
    // an admin's project and a global datasource dev may not see
    await stack.project('admins');
    await stack.api('POST', '/api/v1/globaldatasources', {
      kind: 'GlobalDatasource',
      metadata: { name: 'global-prometheus' },
      spec: prometheus(stack.prom.url, true),
    });
    w = await openPage(stack.s.url);
  });

  after(async () => {
    await w?.close();
    await stack?.stop();
  });

  it("opens a normal user's project and its datasource from the top menu, and runs a query against Prometheus", async () => {
    const { page } = w;
    await signIn(w, 'dev', 'dev-password');
    await page.goto('/');
    await page.getByRole('link', { name: 'Explore', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/projects/team/explore' && u.searchParams.has('data'));
    const data = JSON.parse(new URL(page.url()).searchParams.get('data')!);
    expect(data.queries[0].spec.plugin.spec.datasource).to.deep.equal({ kind: 'PrometheusDatasource', name: 'team-prometheus' });
    expect(await page.getByTestId('explore-hint').count()).to.equal(0);
    await promql(page).click();
    await page.keyboard.type('node_memory_MemTotal_bytes');
    const table = page.getByTestId('explore').locator('table');
    // the table looked at every 100 ms, the query run again at most every 3 s
    let ranAt = 0;
    await waitFor(
      'a table row of node_memory_MemTotal_bytes',
      async () => {
        if ((await table.innerText().catch(() => '')).includes('node_memory_MemTotal_bytes')) return true;
        if (Date.now() - ranAt >= 3_000) {
          await page.getByRole('button', { name: 'Run Query' }).first().click();
          ranAt = Date.now();
        }
        return false;
      },
      90_000,
      100,
    );
    // the query went through the datasource it names
    expect(w.proxyLog.some((l) => l.includes('/proxy/projects/team/datasources/team-prometheus/api/v1/query'))).to.equal(true);
    await w.screenshot('explore-start-normal-user');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('opens the project last used rather than the first', async () => {
    const { page } = w;
    await w.context.clearCookies();
    await signIn(w, 'admin', 'admin-password');
    await page.goto('/projects/team/explore');
    await page.getByTestId('explore').waitFor();
    await page.goto('/');
    await page.getByRole('link', { name: 'Explore', exact: true }).click();
    await page.waitForURL(/\/projects\/team\/explore\?/);
    await page.getByLabel('Datasources of').click();
    await page.getByRole('option', { name: 'admins' }).click();
    await page.waitForURL(/\/projects\/admins\/explore/);
    await page.goto('/');
    await page.getByRole('link', { name: 'Explore', exact: true }).click();
    await page.waitForURL(/\/projects\/admins\/explore/);
    // its default datasource answers: the query names none
    const data = JSON.parse(new URL(page.url()).searchParams.get('data') ?? '{}');
    expect(data.queries ?? []).to.deep.equal([]);
  });

  it('tells a user with nothing to query what to do', async () => {
    const { page } = w;
    await w.context.clearCookies();
    await signIn(w, 'newcomer', 'newcomer-password');
    await page.goto('/');
    await page.getByRole('link', { name: 'Explore', exact: true }).click();
    const hint = page.getByTestId('explore-hint');
    await hint.waitFor();
    expect(await hint.innerText()).to.equal(
      'There is nothing to explore yet: create a project (New project on the home page) and add a datasource to it, or ask an administrator for a role in a project that has one.',
    );
    expect(new URL(page.url()).pathname).to.equal('/explore');
    // a project of their own without a datasource: what to add, and where
    const newcomer = await login(stack.s, 'newcomer');
    expect(
      (await stack.s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'mine' }, spec: {} }, bearer(newcomer))).status,
    ).to.equal(200);
    await page.goto('/projects/mine/explore');
    await waitFor('the hint', async () =>
      /^Project “mine” has no Prometheus datasource to query, and there is no global one: add one in its Datasources tab, or choose another project above\.$/.test(
        await hint.innerText().catch(() => ''),
      ),
    );
    await page.goto('/explore');
    await waitFor('the hint', async () =>
      (await hint.innerText().catch(() => '')).startsWith(
        "None of your projects has a datasource to query: add one in a project's Datasources tab (for example mine)",
      ),
    );
  });

  it('says in a panel at once that its datasource does not exist, and what to do', async () => {
    const { page } = w;
    await w.context.clearCookies();
    await signIn(w, 'dev', 'dev-password');
    const query = (datasource?: unknown) => ({
      kind: 'TimeSeriesQuery',
      spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: 'up', ...(datasource ? { datasource } : {}) } } },
    });
    const panel = (name: string, datasource?: unknown) => ({
      kind: 'Panel',
      spec: { display: { name }, plugin: { kind: 'TimeSeriesChart', spec: {} }, queries: [query(datasource)] },
    });
    await stack.api('POST', '/api/v1/projects/team/dashboards', {
      kind: 'Dashboard',
      metadata: { name: 'typo', project: 'team' },
      spec: {
        duration: '1h',
        panels: { a: panel('Typo', { kind: 'PrometheusDatasource', name: 'prometheus-typo' }), b: panel('No default') },
        layouts: [
          {
            kind: 'Grid',
            spec: { items: ['a', 'b'].map((k, i) => ({ x: i * 12, y: 0, width: 12, height: 6, content: { $ref: `#/spec/panels/${k}` } })) },
          },
        ],
      },
    });
    await page.goto('/projects/team/dashboards/typo');
    const section = (title: string) =>
      page.locator('section[data-testid="panel"]').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
    await section('Typo').waitFor();
    const shownAt = Date.now();
    await section('Typo').getByText('This panel asks for datasource').waitFor({ timeout: 2_000 });
    const after = Date.now() - shownAt;
    expect(await section('Typo').getByRole('alert').innerText()).to.equal(
      'This panel asks for datasource "prometheus-typo" of kind PrometheusDatasource, which is not in project "team" (the global datasources could not be checked): create it, or pick another.',
    );
    // team's datasource is not the default, and dev may not read the global default
    await section('No default')
      .getByText('This panel asks for the default datasource of kind PrometheusDatasource')
      .waitFor({ timeout: 2_000 });
    expect(after, 'ms from the panel to its sentence').to.be.below(2_000);
    await w.screenshot('panel-missing-datasource');
  });

  it("warns in the Import preview, by panel, of the datasources the project will not have (the server's /api/validate warnings)", async () => {
    const { page } = w;
    const typo = (await stack.api('GET', '/api/v1/projects/team/dashboards/typo')).body;
    typo.metadata = { name: 'imported-typo' };
    await page.goto('/projects/team/import');
    await page.getByLabel('dashboard text').fill(JSON.stringify(typo));
    await page.getByTestId('import-preview').click();
    const warning = page.getByTestId('missing-datasources');
    await warning.waitFor();
    expect(await warning.getByTestId('missing-datasource').allInnerTexts()).to.deep.equal([
      'Panel “Typo” asks for datasource "prometheus-typo" of kind PrometheusDatasource, which is not in project "team" (the global datasources could not be checked): create it, or name another.',
      'Panel “No default” names no datasource, so it asks for the default datasource of kind PrometheusDatasource, which is not in project "team" (the global datasources could not be checked): make a datasource of that kind the default, or name one.',
    ]);
    expect(await warning.innerText()).to.match(/^2 queries ask for a datasource that team will not have once this is saved:/);
  });
  it('starts a new query on the datasource last queried in the project', async () => {
    const { page } = w;
    await stack.api('POST', '/api/v1/projects/team/datasources', {
      kind: 'Datasource',
      metadata: { name: 'team-second', project: 'team' },
      spec: prometheus(stack.prom.url, false),
    });
    await w.context.clearCookies();
    await page.evaluate(() => localStorage.removeItem('dashplane.explore'));
    await signIn(w, 'dev', 'dev-password');
    const named = () => JSON.parse(new URL(page.url()).searchParams.get('data') ?? '{}').queries?.[0]?.spec.plugin.spec.datasource?.name;
    await page.goto('/explore');
    await waitFor('the first datasource in the URL', async () => named() === 'team-prometheus');
    // the user picks the other datasource in the query editor and runs a query
    await page.getByTestId('explore').getByRole('combobox', { name: 'Prometheus Datasource' }).first().click();
    await page.getByRole('option', { name: /team-second/ }).click();
    await promql(page).click();
    await page.keyboard.type('up');
    await page.getByRole('button', { name: 'Run Query' }).first().click();
    await waitFor('the picked datasource in the URL', async () => named() === 'team-second');
    await page.goto('/');
    await page.getByRole('link', { name: 'Explore', exact: true }).click();
    await page.waitForURL(/\/projects\/team\/explore\?/);
    await waitFor('the last queried datasource in the URL', async () => named() === 'team-second');
  });
});
