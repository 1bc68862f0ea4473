import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { requireProgram } from './programs.js';
import { waitFor } from './wait.js';

/** Where screenshots go (kept by CI as test artifacts; ignored by git). */
export const ARTIFACTS_DIR = join(PACKAGE_ROOT, 'test-artifacts', 'ui');

async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    // Debian's chromium (installed by .ci/run); never a downloaded browser. $CHROMIUM_BIN overrides.
    executablePath: requireProgram('chromium'),
    headless: true,
    // this machine has no network beyond loopback: keep Chromium from calling home
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/**
 * The process's Chromium, launched at its first page and kept for the next ones (a mocha worker runs
 * many files): a page gets a browser context of its own (cookies, storage, cache, as a new
 * browser's), and launching a browser per page cost 0.5-1 s each time. Launched again if it went
 * away; Playwright kills it when the process exits.
 */
let shared: Promise<Browser> | undefined;

function sharedBrowser(): Promise<Browser> {
  if (!shared) {
    const launching = launchBrowser();
    shared = launching;
    const forget = () => {
      if (shared === launching) shared = undefined;
    };
    launching.then((b) => b.on('disconnected', forget), forget);
  }
  return shared;
}

/** A page in its own browser context of the process's headless Chromium that records console errors, page errors and proxy calls. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** console errors and page errors seen so far */
  errors: string[];
  /** the last datasource proxy exchanges (method, path, form body, status, answer start), for failure messages */
  proxyLog: string[];
  /**
   * Saves a screenshot of the view as test-artifacts/ui/<name>.png (not the full page: drawing a
   * long dashboard whole took up to 30 s of a loaded machine's time; a test scrolls to what matters).
   */
  screenshot(name: string): Promise<string>;
  /** Closes the page and its browser context. */
  close(): Promise<void>;
}

/** Options of the page's browser context: the OS colour scheme it reports, its viewport. */
export interface PageOptions {
  colorScheme?: 'light' | 'dark';
  viewport?: { width: number; height: number };
}

export async function openPage(baseURL: string, opts: PageOptions = {}): Promise<WatchedPage> {
  const browser = await sharedBrowser();
  const context = await browser.newContext({
    baseURL,
    viewport: opts.viewport ?? { width: 1400, height: 900 },
    colorScheme: opts.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  const proxyLog: string[] = [];
  page.on('response', async (r) => {
    const url = new URL(r.url());
    if (!url.pathname.startsWith('/proxy/')) return;
    const answer = await r.text().catch(() => '');
    proxyLog.push(
      `${r.request().method()} ${url.pathname}${url.search} ${r.request().postData() ?? ''} -> ${r.status()} ${answer.slice(0, 200)}`,
    );
    if (proxyLog.length > 20) proxyLog.shift();
  });
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return {
    page,
    context,
    errors,
    proxyLog,
    async screenshot(name) {
      const path = join(ARTIFACTS_DIR, `${name}.png`);
      await page.screenshot({ path });
      return path;
    },
    close: () => context.close(),
  };
}

/**
 * Scrolls the page down in steps of `stepPx` until `target` exists, within `timeoutMs`: pages
 * that draw only what is near the view (Perses panels, Swagger UI sections) create it on the way.
 */
export async function scrollUntilPresent(page: Page, target: Locator, what: string, stepPx: number, timeoutMs: number): Promise<void> {
  await waitFor(
    what,
    async () => {
      if ((await target.count()) > 0) return true;
      await page.mouse.wheel(0, stepPx);
      return false;
    },
    timeoutMs,
    50,
  );
}
