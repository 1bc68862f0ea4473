/**
 * P9: the web UI, cold (a new headless Chromium, empty cache) against dashplane with auth on and a
 * real Prometheus scraping a real node exporter:
 *  - JS transferred on the first load of the sign-in page: <= 300 KB compressed
 *    (reference: the same scripts decoded, so the ratio is the compression)
 *  - JS transferred on the first load of the Perses Demo dashboard (context)
 *  - navigation to the first panel drawn (a chart canvas in a panel) on the Demo dashboard:
 *    <= 1.5 s, median of RUNS cold loads (reference: the page's first contentful paint)
 * Needs Debian's chromium, prometheus and prometheus-node-exporter (.ci/run installs them) and the
 * Perses corpus for the Demo dashboard, found as the tests find it (test/helpers/corpus.ts).
 */
import type { Page } from 'playwright-core';
import { openPage, type WatchedPage } from '../test/helpers/browser.js';
import { signIn, startUiStack } from '../test/helpers/ui-stack.js';
import { median, report, type Figure } from './lib.js';

const RUNS = Number(process.env.BENCH_P9_RUNS ?? 5);
const KB = 1024;

interface Loaded {
  transferred: number;
  decoded: number;
  scripts: number;
}

/** The scripts the page loaded so far, from the browser's resource timing (bytes on the wire and decoded). */
async function scripts(page: Page): Promise<Loaded> {
  const list = await page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((e) => new URL(e.name).pathname.endsWith('.js'))
      .map((e) => ({ transferred: e.encodedBodySize, decoded: e.decodedBodySize })),
  );
  return { transferred: list.reduce((n, s) => n + s.transferred, 0), decoded: list.reduce((n, s) => n + s.decoded, 0), scripts: list.length };
}

/** Milliseconds from navigation start to the first contentful paint of the page. */
const firstPaint = (page: Page) => page.evaluate(() => Math.round(performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime ?? Number.NaN));

export async function run(): Promise<Figure[]> {
  const stack = await startUiStack({ auth: true });
  const pages: WatchedPage[] = [];
  const open = async () => {
    const w = await openPage(stack.s.url);
    pages.push(w);
    return w;
  };
  try {
    await stack.project('perses', 'Perses demo');
    await stack.demo('perses');

    const signin = await open();
    await signin.page.goto('/signin');
    await signin.page.getByRole('heading', { name: 'Sign in to dashplane' }).waitFor();
    const signinJs = await scripts(signin.page);
    await signin.close();

    const panelMs: number[] = [];
    const paintMs: number[] = [];
    let demoJs: Loaded | undefined;
    for (let i = 0; i < RUNS; i++) {
      const w = await open();
      await signIn(w, 'admin', 'admin-password');
      await w.page.goto('/projects/perses/dashboards/Demo?var-job=node');
      // timed in the page, to the animation frame where a panel's chart canvas first exists
      await w.page.waitForFunction(() => document.querySelector('section[data-testid="panel"] canvas') !== null, undefined, { polling: 'raf', timeout: 60_000 });
      panelMs.push(await w.page.evaluate(() => Math.round(performance.now())));
      paintMs.push(await firstPaint(w.page));
      demoJs ??= await scripts(w.page);
      if (w.errors.length) throw new Error(`the Demo dashboard logged errors:\n${w.errors.join('\n')}`);
      await w.close();
    }
    console.log(`first panel, ${RUNS} cold loads: ${panelMs.join(', ')} ms; first contentful paint: ${paintMs.join(', ')} ms`);
    const panel = median(panelMs);
    const paint = median(paintMs);
    return [
      report({
        id: 'P9',
        what: `sign-in page, cold: JS transferred (${signinJs.scripts} scripts)`,
        value: signinJs.transferred / KB,
        unit: 'KB',
        refWhat: 'the same JS decoded',
        reference: signinJs.decoded / KB,
        ratio: signinJs.transferred / signinJs.decoded,
        target: '<= 300 KB',
        pass: signinJs.transferred <= 300 * KB,
      }),
      report({
        id: 'P9',
        what: `context: Perses Demo dashboard, cold: JS transferred (${demoJs!.scripts} scripts)`,
        value: demoJs!.transferred / KB,
        unit: 'KB',
        refWhat: 'the same JS decoded',
        reference: demoJs!.decoded / KB,
        ratio: demoJs!.transferred / demoJs!.decoded,
        target: '-',
        pass: 'context',
      }),
      report({
        id: 'P9',
        what: `Demo dashboard, cold: navigation to first panel, median of ${RUNS}`,
        value: panel,
        unit: 'ms',
        refWhat: 'first contentful paint',
        reference: paint,
        ratio: panel / paint,
        target: '<= 1,500 ms',
        pass: panel <= 1500,
      }),
    ];
  } finally {
    for (const w of pages) await w.close().catch(() => undefined);
    await stack.stop();
  }
}
