import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS_DIR, openPage, type WatchedPage } from './helpers/browser.js';
import { panelSection, signIn, startUiStack, type UiStack } from './helpers/ui-stack.js';
import { skipWithoutCorpus } from './helpers/corpus.js';
import { needsPrograms } from './helpers/programs.js';

interface ScriptLoad {
  /** file name under /assets */
  file: string;
  /** bytes on the wire (brotli when the browser asked for it) */
  transferred: number;
  /** bytes after decoding */
  decoded: number;
}

/** Every script the page loaded so far, from the browser's own resource timing. */
async function scripts(page: Page): Promise<ScriptLoad[]> {
  return page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((e) => new URL(e.name).pathname.endsWith('.js'))
      .map((e) => ({
        file: new URL(e.name).pathname.replace(/^\/assets\//, ''),
        transferred: e.encodedBodySize,
        decoded: e.decodedBodySize,
      })),
  );
}

const sum = (list: ScriptLoad[], field: 'transferred' | 'decoded') => list.reduce((n, s) => n + s[field], 0);
const kb = (n: number) => Math.round(n / 1024);
/** The chart libraries' chunk (ui/vite.config.ts names it) and the dashboard page's chunk. */
const HEAVY = /^(echarts|DashboardPage)-/;
/**
 * Chunks of what only editing (or a rare action) needs, which the dashboard page loads on demand:
 * the edit-mode dialogs, the PromQL editor (CodeMirror) and the query editor, the variable and
 * datasource editors, the custom time range calendar, the download serializer (yaml), the
 * Markdown panel (ui/src/perses/edit-on-demand.tsx, ui/vite.config.ts).
 */
const ON_DEMAND =
  /^(dashboard-editing|PromQLEditor|PrometheusTimeSeriesQueryEditor|EditVariablesButton|EditDatasourcesButton|DateTimeRangePicker|serializeDashboard|MarkdownPanel)-/;

/**
 * Cold loads (a new browser, empty cache) of the sign-in, home, project and dashboard pages: the
 * first three must not load the chart libraries; the figures go to test-artifacts/ui/load.json.
 */
describe('web UI cold load: split bundle, precompressed assets (Chromium)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(120_000);
  let stack: UiStack;
  const figures: Record<string, unknown> = {};

  before(async function () {
    skipWithoutCorpus(this, 'corpus'); // the Perses Demo dashboard
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    await stack.project('perses', 'Perses demo');
    await stack.demo('perses');
  });

  after(async () => {
    writeFileSync(join(ARTIFACTS_DIR, 'load.json'), `${JSON.stringify(figures, null, 2)}\n`);
    console.log('      cold load figures:', JSON.stringify(figures));
    await stack?.stop();
  });

  async function cold(
    path: string,
    ready: (w: WatchedPage) => Promise<unknown>,
    signedIn: boolean,
  ): Promise<{ w: WatchedPage; loaded: ScriptLoad[] }> {
    const w = await openPage(stack.s.url);
    if (signedIn) await signIn(w, 'admin', 'admin-password');
    await w.page.goto(path);
    await ready(w);
    return { w, loaded: await scripts(w.page) };
  }

  for (const [name, path, signedIn, ready] of [
    ['sign-in', '/signin', false, (w: WatchedPage) => w.page.getByRole('heading', { name: 'Sign in to dashplane' }).waitFor()],
    ['home', '/', true, (w: WatchedPage) => w.page.getByTestId('project-row').first().waitFor()],
    ['project', '/projects/perses', true, (w: WatchedPage) => w.page.getByTestId('resource-row').first().waitFor()],
  ] as const) {
    it(`loads the ${name} page without the chart libraries, brotli-compressed`, async () => {
      const { w, loaded } = await cold(path, ready, signedIn);
      try {
        figures[name] = {
          scripts: loaded.length,
          jsTransferredKB: kb(sum(loaded, 'transferred')),
          jsDecodedKB: kb(sum(loaded, 'decoded')),
        };
        expect(loaded.map((s) => s.file).filter((f) => HEAVY.test(f))).to.deep.equal([]);
        // the browser asked for br and got it: far fewer bytes on the wire than decoded
        expect(sum(loaded, 'transferred')).to.be.lessThan(sum(loaded, 'decoded') / 2.5);
        expect(sum(loaded, 'transferred')).to.be.lessThan(250 * 1024);
        await w.screenshot(`load-${name}`);
        expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
      } finally {
        await w.close();
      }
    });
  }

  it('loads the Perses Demo dashboard cold and draws its first panel; records the time', async () => {
    const { w, loaded } = await cold(
      '/projects/perses/dashboards/Demo?var-job=node',
      (x) =>
        // the first panel with its chart drawn, timed in the page (to the animation frame)
        x.page.waitForFunction(() => document.querySelector('section[data-testid="panel"] canvas') !== null, undefined, {
          polling: 'raf',
          timeout: 60_000,
        }),
      true,
    );
    try {
      const firstPanelMs = await w.page.evaluate(() => Math.round(performance.now()));
      figures.dashboard = {
        scripts: loaded.length,
        jsTransferredKB: kb(sum(loaded, 'transferred')),
        jsDecodedKB: kb(sum(loaded, 'decoded')),
        firstPanelMs,
      };
      expect(loaded.map((s) => s.file).filter((f) => HEAVY.test(f))).to.have.length(2);
      await w.screenshot('load-demo');
      expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
    } finally {
      await w.close();
    }
  });

  it('views a dashboard without the code of editing; edit mode and the panel editor load it when used', async () => {
    const { w, loaded } = await cold(
      '/projects/perses/dashboards/Demo?var-job=node',
      (x) =>
        x.page.waitForFunction(() => document.querySelector('section[data-testid="panel"] canvas') !== null, undefined, {
          timeout: 60_000,
        }),
      true,
    );
    try {
      expect(loaded.map((s) => s.file).filter((f) => ON_DEMAND.test(f))).to.deep.equal([]);
      // 3,345 KB decoded when the dashboard page loaded the editors, CodeMirror, yaml, the date pickers and mathjs with it
      expect(sum(loaded, 'decoded')).to.be.lessThan(2500 * 1024);
      const { page } = w;
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      await panelSection(w, 'Single Query').hover();
      await page.getByRole('button', { name: 'edit panel Single Query' }).click();
      // the query editor: PromQL in CodeMirror, holding the panel's query
      await page.locator('.cm-editor').first().waitFor({ timeout: 30_000 });
      const now = (await scripts(page)).map((s) => s.file);
      for (const chunk of ['dashboard-editing', 'PrometheusTimeSeriesQueryEditor', 'PromQLEditor']) {
        expect(
          now.some((f) => f.startsWith(`${chunk}-`)),
          `${chunk} loaded: ${now.join(' ')}`,
        ).to.equal(true);
      }
      await w.screenshot('load-demo-panel-editor');
      expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
    } finally {
      await w.close();
    }
  });
});
