import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, LOOPBACK_UPSTREAMS, loginAdmin, startAuthServer, type Tokens } from './auth.js';
import type { Locator, Page } from 'playwright-core';
import type { WatchedPage } from './browser.js';
import { CORPUS_ENV, corpusDir } from './corpus.js';
import { startMonitoring } from './monitoring.js';
import type { RunningPrometheus } from './prometheus.js';
import { startTestServer, type ApiResponse, type TestServer } from './server.js';
import { waitFor } from './wait.js';

/** The Perses Demo dashboard (perses/perses dev data) from the Perses corpus (suites using it call skipWithoutCorpus first). */
function demoDashboardFile(): string {
  const dir = corpusDir('corpus');
  if (!dir) throw new Error(`the Perses corpus is missing (set ${CORPUS_ENV}): the Demo dashboard comes from it`);
  return join(dir, 'perses/dev/data/9-dashboard.json');
}

/** A dashplane server (auth on or off) with a real Prometheus scraping a real node exporter. */
export interface UiStack {
  s: TestServer;
  prom: RunningPrometheus;
  /** The admin's tokens (auth on only). */
  admin?: Tokens | undefined;
  /** An API call as the admin (or anonymous with auth off); throws on a status >= 300. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  /** Creates a project with a default Prometheus datasource `prometheus-datasource`. */
  project(name: string, display?: string): Promise<void>;
  /** Creates the Perses Demo dashboard in a project (its local datasource points at our Prometheus). */
  demo(project: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts dashplane next to a Prometheus holding node exporter samples (the run's shared pair, or one of its own). */
export async function startUiStack(opts: { auth: boolean }): Promise<UiStack> {
  const monitoring = await startMonitoring();
  const prom = monitoring.prom;
  const s = opts.auth ? await startAuthServer(LOOPBACK_UPSTREAMS) : await startTestServer();
  const admin = opts.auth ? await loginAdmin(s) : undefined;
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await s.api(method, path, body, { ...(admin ? bearer(admin) : {}), ...headers });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };
  return {
    s,
    prom,
    admin,
    api,
    async project(name, display) {
      await api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name }, spec: display ? { display: { name: display } } : {} });
      await api('POST', `/api/v1/projects/${name}/datasources`, {
        kind: 'Datasource',
        metadata: { name: 'prometheus-datasource', project: name },
        // scrapeInterval 1s (Prometheus here scrapes every second): Perses' minimum step, so the
        // newest step of a short range holds samples right after Prometheus starts
        spec: {
          default: true,
          plugin: { kind: 'PrometheusDatasource', spec: { scrapeInterval: '1s', proxy: { kind: 'HTTPProxy', spec: { url: prom.url } } } },
        },
      });
    },
    async demo(project) {
      const demo = JSON.parse(readFileSync(demoDashboardFile(), 'utf8'))[0];
      demo.metadata.project = project;
      demo.spec.datasources.PrometheusLocal.plugin.spec.proxy.spec.url = prom.url; // was localhost:9090
      demo.spec.datasources.PrometheusLocal.plugin.spec.scrapeInterval = '1s'; // as project() does
      await api('POST', `/api/v1/projects/${project}/dashboards`, demo);
    },
    async stop() {
      await s.stop();
      await monitoring.stop();
    },
  };
}

/** Signs the page's browser context in (the login answer sets the session cookies). */
export async function signIn(w: WatchedPage, login: string, password: string): Promise<void> {
  const r = await w.context.request.post('/api/auth/providers/native/login', { data: { login, password } });
  if (!r.ok()) throw new Error(`login as ${login}: ${r.status()} ${await r.text()}`);
}

/** The dashboard panel titled `title` (Perses' panel section with that heading). */
export function panelSection(w: WatchedPage, title: string) {
  return w.page
    .locator('section[data-testid="panel"]')
    .filter({ has: w.page.getByRole('heading', { name: title, exact: true }) })
    .first();
}

/**
 * Waits until the dashboard panel titled `title` shows data (a number, a chart or table rows
 * rather than "No data"). Right after Prometheus starts, the newest step-aligned window may hold
 * no sample yet: open the page with `refresh=5s` so the panel asks again.
 */
export async function waitForPanelData(w: WatchedPage, title: string, kind: 'chart' | 'stat' | 'table' = 'stat'): Promise<void> {
  const p = panelSection(w, title);
  await waitFor(
    `panel "${title}" to show data`,
    async () => {
      if ((await p.count()) === 0) return false;
      const text = await p.innerText();
      if (/No data/.test(text)) return false;
      if (kind === 'chart') return (await p.locator('canvas').count()) > 0;
      if (kind === 'table') return (await p.getByRole('row').count()) >= 2;
      return /\d/.test(text.replace(title, ''));
    },
    90_000,
    250,
  );
}

/** The row of an object in a resource table (ResourceTable's `resource-row`). */
export function resourceRow(page: Page, name: string): Locator {
  return page.locator(`[data-testid="resource-row"][data-name="${name}"]`);
}

/** Opens an object's ⋮ menu and picks an item. */
export async function rowMenu(page: Page, name: string, item: string): Promise<void> {
  await page
    .getByRole('button', { name: `Actions for ${name}` })
    .first()
    .click();
  await page.getByRole('menuitem', { name: item, exact: true }).click();
}
