import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { parse, stringify } from 'yaml';
import { editorContent, editorTopText, setEditorText } from './helpers/editor.js';
import { bearer, LOOPBACK_UPSTREAMS, loginAdmin, startAuthServer, type Tokens } from './helpers/auth.js';
import { openPage, scrollUntilPresent, type WatchedPage } from './helpers/browser.js';
import { corpusDir, skipWithoutCorpus } from './helpers/corpus.js';
import { enterEditMode, renamePanel } from './helpers/perses-edit.js';
import { startNodeExporter, type RunningNodeExporter } from './helpers/node-exporter.js';
import { startPrometheus, type RunningPrometheus } from './helpers/prometheus.js';
import type { TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

/** The suite renders two corpus dashboards; it is skipped (with a note at the end of the run) without the corpus. */
const CORPUS = corpusDir('corpus') ?? '';
const OVERVIEW = join(CORPUS, 'community-mixins/examples/dashboards/perses/prometheus/prometheus-overview.yaml');
const DEMO = join(CORPUS, 'perses/dev/data/9-dashboard.json');

/** A panel of the Perses dashboard by its title (a <section data-testid="panel"> labelled by its header). */
function panel(page: Page, title: string): Locator {
  return page
    .locator('section[data-testid="panel"]')
    .filter({ has: page.getByRole('heading', { name: title, exact: true }) })
    .first();
}

/** Waits for a panel to show data: a chart canvas, table rows or a value, and no "No data". */
async function expectPanelWithData(w: WatchedPage, title: string, kind: 'chart' | 'table' | 'stat'): Promise<void> {
  const p = panel(w.page, title);
  // Perses mounts panels as they come into view: scroll down until this one exists
  await scrollUntilPresent(w.page, p, `panel "${title}" on the page`, 400, 15_000);
  await p.scrollIntoViewIfNeeded();
  try {
    await waitFor(
      `panel "${title}" to show data`,
      async () => {
        const text = await p.innerText();
        if (/No data/.test(text)) return false;
        if (kind === 'chart') return (await p.locator('canvas').count()) > 0;
        if (kind === 'table') return (await p.getByRole('row').count()) >= 2;
        return /\d/.test(text.replace(title, ''));
      },
      // queries end at the last whole step (a minute for some panels): right after Prometheus
      // starts, the newest such window may hold no sample yet; the page refreshes every 5 s
      90_000,
      250,
    );
  } catch (e) {
    const shown = await p.innerText().catch(() => '?');
    await w.screenshot(`failed-${title.replace(/\W+/g, '-')}`);
    throw new Error(
      `${(e as Error).message}; the panel shows ${JSON.stringify(shown)}; console errors: ${w.errors.join(' | ')}; last proxy calls:\n${w.proxyLog.join('\n')}`,
    );
  }
}

describe('web UI in Chromium (auth on, real Prometheus and node exporter)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(180_000);
  let nodeExporter: RunningNodeExporter;
  let prom: RunningPrometheus;
  let s: TestServer;
  let admin: Tokens;
  let w: WatchedPage;
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await s.api(method, path, body, { ...bearer(admin), ...headers });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };

  before(async function () {
    this.timeout(120_000);
    skipWithoutCorpus(this, 'corpus');
    nodeExporter = await startNodeExporter();
    s = await startAuthServer(LOOPBACK_UPSTREAMS);
    // Prometheus scrapes the node exporter and dashplane's own /metrics (examples/monitoring);
    // the Demo's job variable would default to the first job, so its pages say var-job=node
    prom = await startPrometheus({
      scrape: [
        { job: 'node', target: nodeExporter.target },
        { job: 'dashplane', target: new URL(s.url).host },
      ],
    });
    await waitFor(
      'two node exporter samples in Prometheus',
      async () => {
        const r = await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent('count_over_time(node_memory_MemTotal_bytes[1m])')}`);
        const body = (await r.json()) as { data: { result: { value: [number, string] }[] } };
        return Number(body.data.result[0]?.value[1] ?? 0) >= 2;
      },
      20_000,
      250,
    );
    admin = await loginAdmin(s);
    for (const project of ['perses-dev', 'perses']) {
      await api('POST', '/api/v1/projects', {
        kind: 'Project',
        metadata: { name: project },
        spec: { display: { name: project === 'perses' ? 'Perses demo' : 'Perses dev' } },
      });
      await api('POST', `/api/v1/projects/${project}/datasources`, {
        kind: 'Datasource',
        metadata: { name: 'prometheus-datasource', project },
        spec: {
          default: true,
          plugin: { kind: 'PrometheusDatasource', spec: { scrapeInterval: '1s', proxy: { kind: 'HTTPProxy', spec: { url: prom.url } } } },
        },
      });
    }
    await api('POST', '/api/v1/projects/perses-dev/dashboards', parse(readFileSync(OVERVIEW, 'utf8')));
    const demo = JSON.parse(readFileSync(DEMO, 'utf8'))[0];
    demo.spec.datasources.PrometheusLocal.plugin.spec.proxy.spec.url = prom.url; // was localhost:9090
    // Prometheus here scrapes every second: with Perses' minimum step at 1 s (15 s by default) the
    // newest step of a short range holds samples right after Prometheus starts
    demo.spec.datasources.PrometheusLocal.plugin.spec.scrapeInterval = '1s';
    await api('POST', '/api/v1/projects/perses/dashboards', demo);
    w = await openPage(s.url);
  });

  after(async function () {
    this.timeout(30_000);
    await w?.close();
    await s?.stop();
    await prom?.stop();
    await nodeExporter?.stop();
  });

  it('sends a visitor without a session to sign in, and signs in with the native form', async () => {
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

  it('lists projects and searches them', async () => {
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
    await waitFor('the datasource row', async () =>
      (
        await page
          .getByTestId('resource-row')
          .innerText()
          .catch(() => '')
      ).includes('prometheus-datasource'),
    );
    expect(await page.getByTestId('resource-row').innerText()).to.contain('PrometheusDatasource');
    await w.screenshot('03-project-datasources');
  });

  it('renders prometheus-overview (community-mixins) with data from Prometheus through the proxy', async () => {
    const { page } = w;
    w.errors.length = 0;
    // the last 5 minutes, refreshed every 5 s: queries align their end to the step, so right after
    // Prometheus starts the newest aligned window may still be empty
    await page.goto('/projects/perses-dev/dashboards/prometheus-overview?start=5m&refresh=5s');
    await page.getByRole('heading', { name: 'Prometheus / Overview' }).waitFor();
    await expectPanelWithData(w, 'Prometheus Stats', 'table');
    // the version column comes from its own query, which may answer after the table's first rows
    await waitFor(
      'the Prometheus version in "Prometheus Stats"',
      async () => /2\.\d+\.\d+/.test(await panel(page, 'Prometheus Stats').innerText()),
      60_000,
      250,
    );
    await expectPanelWithData(w, 'Target Sync', 'chart');
    await w.screenshot('04-prometheus-overview');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('renders the Perses Demo dashboard: stats, gauges and time series from the node exporter', async () => {
    const { page } = w;
    w.errors.length = 0;
    const listCalls: string[] = [];
    let queries = 0;
    const countCalls = (r: { url(): string }) => {
      const path = new URL(r.url()).pathname;
      if (path === '/api/v1/projects/perses/datasources' || path === '/api/v1/globaldatasources') listCalls.push(path);
      if (path.endsWith('/api/v1/query_range')) queries++;
    };
    page.on('request', countCalls);
    await page.goto('/projects/perses/dashboards/Demo?var-job=node&refresh=5s');
    await page.getByRole('heading', { name: 'Demo', exact: true }).waitFor();
    await waitFor('the first round of panel queries', () => queries >= 10, 30_000);
    page.off('request', countCalls);
    // the panels and variables resolve their datasources from one list call each
    expect(listCalls.filter((p) => p.includes('/projects/')).length, listCalls.join(' ')).to.equal(1);
    expect(listCalls.filter((p) => p === '/api/v1/globaldatasources').length, listCalls.join(' ')).to.be.at.most(1);
    await expectPanelWithData(w, 'RAM Total', 'stat');
    await expectPanelWithData(w, 'Gauge Format Test', 'chart');
    await expectPanelWithData(w, 'Legend Example', 'chart');
    await w.screenshot('05-demo');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });
  it("renders the example dashboard of dashplane's own metrics (examples/monitoring)", async () => {
    const { page } = w;
    const dashboard = parse(readFileSync(join(process.cwd(), 'examples/monitoring/dashplane-dashboard.yaml'), 'utf8'));
    const project = 'dashplane';
    dashboard.metadata.project = project;
    await api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: project }, spec: {} });
    await api('POST', `/api/v1/projects/${project}/datasources`, {
      kind: 'Datasource',
      metadata: { name: 'prometheus', project },
      spec: {
        default: true,
        plugin: { kind: 'PrometheusDatasource', spec: { scrapeInterval: '1s', proxy: { kind: 'HTTPProxy', spec: { url: prom.url } } } },
      },
    });
    await api('POST', `/api/v1/projects/${project}/dashboards`, dashboard);
    w.errors.length = 0;
    await page.goto(`/projects/${project}/dashboards/${dashboard.metadata.name}?start=5m&refresh=5s`);
    await page.getByRole('heading', { name: dashboard.spec.display.name, exact: true }).waitFor();
    await expectPanelWithData(w, 'Requests per second by status', 'chart');
    await expectPanelWithData(w, 'Open watch streams', 'stat'); // this page's own watch stream
    await w.screenshot('06-dashplane-monitoring');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('renders an ephemeral dashboard', async () => {
    const { page } = w;
    const demo = (await api('GET', '/api/v1/projects/perses/dashboards/Demo')).body;
    await api('POST', '/api/v1/projects/perses/ephemeraldashboards', {
      kind: 'EphemeralDashboard',
      metadata: { name: 'incident-42', project: 'perses' },
      spec: { ...demo.spec, display: { name: 'Incident 42' }, ttl: '1h' },
    });
    await page.goto('/projects/perses?tab=ephemeraldashboards');
    await page.getByRole('link', { name: 'Incident 42' }).click();
    await page.waitForURL(/\/projects\/perses\/ephemeraldashboards\/incident-42/);
    await page.goto('/projects/perses/ephemeraldashboards/incident-42?var-job=node&refresh=5s');
    await page.getByRole('heading', { name: 'Incident 42', exact: true }).waitFor();
    await expectPanelWithData(w, 'RAM Total', 'stat');
  });

  it('keeps a changed variable and time range in the URL', async () => {
    const { page } = w;
    await page.goto('/projects/perses/dashboards/Demo?var-job=node');
    await page.getByRole('heading', { name: 'Demo', exact: true }).waitFor();
    await page.waitForURL(/var-job=node/);
    // the job variable: pick "prometheus" instead of "node"
    await page.getByRole('combobox', { name: 'job' }).click();
    await page.getByRole('option', { name: 'prometheus', exact: true }).click();
    await page.waitForURL(/var-job=prometheus/);
    // the time range: last 5 minutes -> last 1 hour
    await page.getByRole('combobox', { name: /^Time range: / }).click();
    await page.getByRole('option', { name: 'Last 1 hour' }).click();
    await page.waitForURL(/start=1h/);
    await w.screenshot('07-demo-variables-time-range');
    // a fresh page from that URL shows the same choices
    const url = page.url();
    await page.goto(url);
    await page.getByRole('heading', { name: 'Demo', exact: true }).waitFor();
    await waitFor(
      'the job variable from the URL',
      async () => (await page.getByRole('combobox', { name: 'job' }).inputValue()) === 'prometheus',
    );
    expect(await page.getByText('Last 1 hour').count()).to.be.greaterThan(0);
  });

  it('shows a validation error at its path and line in the editor, and a save conflict', async () => {
    const { page } = w;
    const path = '/api/v1/projects/perses-dev/dashboards/prometheus-overview';
    await page.goto('/projects/perses-dev/dashboards/prometheus-overview/edit');
    await waitFor('the dashboard text', async () =>
      (
        await editorContent(page)
          .innerText()
          .catch(() => '')
      ).includes('kind: Dashboard'),
    );
    // the editor shows the object as YAML (the same serialisation as here)
    const text = stringify((await api('GET', path)).body);
    expect(await editorTopText(page)).to.contain(text.split('\n').slice(0, 5).join('\n'));
    const broken = text.replace('kind: TimeSeriesChart', 'kind: TimeSeriesChar');
    const line = broken.split('\n').findIndex((l) => l.includes('TimeSeriesChar') && !l.includes('TimeSeriesChart')) + 1;
    await setEditorText(page, broken);
    await page.getByTestId('save').click();
    const problem = page.getByTestId('problem').first();
    await problem.waitFor();
    expect(await problem.getAttribute('data-path')).to.match(/^spec\.panels(\.\w+|\["[^"]+"\])\.spec\.plugin\.kind$/);
    expect(await problem.getAttribute('data-line')).to.equal(String(line));
    expect(await problem.innerText()).to.contain('TimeSeriesChar');
    // the marked line is the one that holds the mistake
    const marked = page.locator(`[data-error-line="${line}"]`);
    await marked.waitFor();
    expect(await marked.count()).to.equal(1);
    expect(await marked.innerText()).to.contain('kind: TimeSeriesChar');
    await w.screenshot('08-editor-validation-error');
    // nothing was stored
    expect((await api('GET', path)).body.metadata.version).to.equal(0);

    // someone else saves in between: the editor says so and keeps the text
    const current = (await api('GET', path)).body;
    current.spec.display.name = 'Prometheus / Overview (theirs)';
    await api('PUT', path, current);
    await setEditorText(page, text.replace('name: Prometheus / Overview', 'name: Prometheus / Overview (mine)'));
    await page.getByTestId('save').click();
    await waitFor('the conflict message', async () =>
      /Someone else saved/.test(
        await page
          .getByTestId('editor-message')
          .innerText()
          .catch(() => ''),
      ),
    );
    expect(await editorTopText(page)).to.contain('(mine)');
    await w.screenshot('09-editor-conflict');
    await page.getByRole('button', { name: 'Load their version' }).click();
    await waitFor('their version in the editor', async () => (await editorTopText(page)).includes('(theirs)'));
    // now the save goes through with the right If-Match
    const theirs = stringify((await api('GET', path)).body);
    await setEditorText(page, theirs.replace('(theirs)', '(mine)'));
    await page.getByTestId('save').click();
    await waitFor('the saved message', async () =>
      /Saved: version 2/.test(
        await page
          .getByTestId('editor-message')
          .innerText()
          .catch(() => ''),
      ),
    );
    expect((await api('GET', path)).body.spec.display.name).to.equal('Prometheus / Overview (mine)');
  });

  it('compares two versions side by side and restores an older one', async () => {
    const { page } = w;
    const path = '/api/v1/projects/perses-dev/dashboards/prometheus-overview';
    await page.goto('/projects/perses-dev/dashboards/prometheus-overview/history');
    await waitFor('three versions', async () => (await page.getByTestId('version-row').count()) === 3);
    await waitFor('the diff', async () =>
      /change/.test(
        await page
          .getByTestId('diff-summary')
          .innerText()
          .catch(() => ''),
      ),
    );
    await waitFor('changed lines in the diff', async () => (await page.locator('[data-diff="changed"]').count()) > 0);
    expect(await page.getByTestId('diff').innerText())
      .to.contain('(theirs)')
      .and.to.contain('(mine)');
    // who wrote each version, through what: the editor's save is the web UI's, the current version has its author
    await waitFor(
      'the managers of the versions',
      async () => (await page.getByTestId('version-manager').allInnerTexts()).join(' ') === 'web-ui api api',
    );
    expect(await page.getByTestId('version-by').allInnerTexts()).to.deep.equal(['admin', 'admin', 'admin']);
    await w.screenshot('10-history-diff');
    await page.getByTestId('restore-0').click();
    await page.waitForURL(/\/dashboards\/prometheus-overview(?:\?|$)/); // the page adds its time range to the query at once
    await page.getByTestId('update-notice').waitFor();
    expect(await page.getByTestId('update-notice').innerText()).to.contain('version 3');
    const restored = (await api('GET', path)).body;
    expect(restored.metadata.version).to.equal(3);
    expect(restored.spec.display.name).to.equal('Prometheus / Overview');
    await page.getByRole('heading', { name: 'Prometheus / Overview', exact: true }).waitFor();
  });

  it('updates an open dashboard by itself when a new version is applied through the API', async () => {
    const { page } = w;
    await page.goto('/projects/perses/dashboards/Demo?var-job=node&refresh=5s');
    await page.getByRole('heading', { name: 'Demo', exact: true }).waitFor();
    await expectPanelWithData(w, 'RAM Total', 'stat');
    const demo = (await api('GET', '/api/v1/projects/perses/dashboards/Demo')).body;
    demo.spec.display = { name: 'Demo, applied from Git' };
    await api('PUT', '/api/v1/projects/perses/dashboards/Demo', demo);
    await page.getByRole('heading', { name: 'Demo, applied from Git', exact: true }).waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('update-notice').innerText()).to.contain('new version');
    expect(await page.getByTestId('dashboard-version').innerText()).to.equal(`version ${demo.metadata.version + 1}`);
    await expectPanelWithData(w, 'RAM Total', 'stat');
    await w.screenshot('11-live-update');
  });

  it("saves from Perses' own edit mode with If-Match", async () => {
    const { page } = w;
    const before = (await api('GET', '/api/v1/projects/perses/dashboards/Demo')).body.metadata.version;
    await page.goto('/projects/perses/dashboards/Demo?var-job=node');
    await page.getByRole('heading', { name: 'Demo, applied from Git', exact: true }).waitFor();
    await enterEditMode(page);
    // an edit: a save that changes nothing makes no version (the three-way merge gives back the stored document)
    await renamePanel(page, 'RAM Used', 'RAM in use');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // Perses asks whether to keep the current variable values / time range as the defaults
    const confirm = page.getByRole('button', { name: 'Save Changes' });
    await waitFor(
      'the save confirmation or the saved notice',
      async () => (await confirm.count()) > 0 || (await page.getByTestId('update-notice').count()) > 0,
    );
    if ((await confirm.count()) > 0) await confirm.click();
    await waitFor('the saved notice', async () =>
      /Saved: version/.test(
        await page
          .getByTestId('update-notice')
          .innerText()
          .catch(() => ''),
      ),
    ).catch(async (e) => {
      await w.screenshot('failed-edit-mode-save');
      throw new Error(
        `${(e as Error).message}; the page says: ${(await page.locator('#root').innerText()).slice(0, 600)}; errors: ${w.errors.join(' | ')}`,
      );
    });
    const after = (await api('GET', '/api/v1/projects/perses/dashboards/Demo')).body;
    expect(after.metadata.version).to.equal(before + 1);
    expect(after.spec.display.name).to.equal('Demo, applied from Git');
    expect(after.spec.panels.statRAM.spec.display.name).to.equal('RAM in use');
    expect(await page.getByTestId('dashboard-version').innerText()).to.equal(`version ${before + 1}`);
  });

  it('signs out, and the session no longer works', async () => {
    const { page, context } = w;
    await page.goto('/');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin/);
    const cookies = await context.cookies();
    expect(cookies.filter((c) => c.name.startsWith('jwt'))).to.deep.equal([]);
    await page.goto('/projects/perses');
    await page.waitForURL(/\/signin\?redirect=/);
  });

  it('signs up a new user, who sees no project until granted one', async () => {
    const { page } = w;
    await page.goto('/signin');
    // a failed sign-in first: its message must not follow to the sign-up form
    await page.getByLabel('User name').fill('newcomer');
    await page.getByLabel('Password').fill('not-yet-a-user');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('wrong login or password').waitFor();
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    expect(await page.getByText('wrong login or password').count(), "the sign-in form's error is gone").to.equal(0);
    await page.getByLabel('User name').fill('newcomer');
    await page.getByLabel('Password').fill('newcomer-password');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    expect(await page.getByTestId('current-user').innerText()).to.equal('newcomer');
    await page.getByText('No projects yet').waitFor();
    expect((await s.api('GET', '/api/v1/users/newcomer', undefined, bearer(admin))).status).to.equal(200);
  });
});
