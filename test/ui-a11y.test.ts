import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PACKAGE_ROOT } from '../src/paths.js';
import { ARTIFACTS_DIR, openPage, type WatchedPage } from './helpers/browser.js';
import { needsPrograms } from './helpers/programs.js';
import { panelSection, signIn, startUiStack, type UiStack } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';

/** axe-core's script, evaluated in the page (through the DevTools protocol: the page's CSP allows no injected script tag). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One element axe-core found failing one rule. */
interface Finding {
  page: string;
  rule: string;
  impact: string;
  target: string;
  html: string;
  summary: string;
}

/**
 * Waits for the page's CSS transitions to end (a menu or dialog fading in is checked as it will
 * stay, not half transparent); endless animations (spinners) do not count.
 */
async function settle(page: Page): Promise<void> {
  await waitFor(
    'the transitions to end',
    () => page.evaluate(() => document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== 'running')),
    10_000,
    50,
  );
}

/** Runs axe-core (every rule of its default set: WCAG 2.x A and AA, and its best practices) on the page as it is. */
async function axe(page: Page, where: string): Promise<Finding[]> {
  await settle(page);
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const r = await (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            o: object,
          ): Promise<{
            violations: {
              id: string;
              impact: string;
              nodes: { target: string[]; html: string; failureSummary: string; impact: string }[];
            }[];
          }>;
        };
      }
    ).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.flatMap((v) =>
      v.nodes.map((n) => ({
        rule: v.id,
        impact: n.impact ?? v.impact,
        target: n.target.join(' '),
        html: n.html.slice(0, 300),
        summary: n.failureSummary,
      })),
    );
  });
  return violations.map((v) => ({ page: where, ...v }));
}

const dashboard = {
  kind: 'Dashboard',
  metadata: { name: 'overview', project: 'shop' },
  spec: {
    display: { name: 'Shop overview' },
    duration: '1h',
    variables: [
      {
        kind: 'ListVariable',
        spec: {
          name: 'job',
          display: { name: 'Job' },
          allowAllValue: true,
          allowMultiple: true,
          defaultValue: ['$__all'],
          plugin: { kind: 'PrometheusLabelValuesVariable', spec: { labelName: 'job' } },
        },
      },
    ],
    panels: {
      about: {
        kind: 'Panel',
        spec: { display: { name: 'About' }, plugin: { kind: 'Markdown', spec: { text: '## The shop\nWhat **runs** where.' } } },
      },
      up: {
        kind: 'Panel',
        spec: {
          display: { name: 'Targets up', description: 'Scrape targets answering.' },
          plugin: { kind: 'TimeSeriesChart', spec: { legend: { position: 'bottom', mode: 'table', values: ['last'] } } },
          queries: [
            {
              kind: 'TimeSeriesQuery',
              spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: 'up{job=~"$job"}', seriesNameFormat: '{{job}}' } } },
            },
          ],
        },
      },
      count: {
        kind: 'Panel',
        spec: {
          display: { name: 'Target count' },
          plugin: { kind: 'StatChart', spec: { calculation: 'last-number' } },
          queries: [{ kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: 'count(up)' } } } }],
        },
      },
    },
    layouts: [
      {
        kind: 'Grid',
        spec: {
          display: { title: 'Targets', collapse: { open: true } },
          items: [
            { x: 0, y: 0, width: 8, height: 6, content: { $ref: '#/spec/panels/about' } },
            { x: 8, y: 0, width: 8, height: 6, content: { $ref: '#/spec/panels/up' } },
            { x: 16, y: 0, width: 8, height: 6, content: { $ref: '#/spec/panels/count' } },
          ],
        },
      },
    ],
  },
};

/**
 * What axe-core still finds in Perses' components and their MUI overlays, each listed with its
 * reason in docs/ui.md ("Accessibility"); anything else, of any impact, fails the sweep.
 */
const KNOWN: { rule: string; where: (f: Finding) => boolean }[] = [
  // Perses' panel titles are h6 (and its query editors' and panel editor's h4) under the page's h1
  { rule: 'heading-order', where: (f) => /Panel-\d+-header-title|^h4$|MuiTypography-h4/.test(f.target) },
  // MUI draws menus, popovers and drawers at the end of the body, outside the main landmark
  { rule: 'region', where: (f) => OVERLAYS.has(f.page) },
  // the select-all checkbox heads the column of Perses' table legend (it has a name, no text)
  { rule: 'empty-table-header', where: (f) => f.html.includes('tabindex="0"') && f.html.includes('style="width: 28px;"') },
  // the dark theme of Perses' CodeMirror editors (panel editor JSON): one token colour at 4.4:1
  { rule: 'color-contrast', where: (f) => /\.ͼ[\w]+/.test(f.target) && f.summary.includes('#282c34') },
];

/** The visits that open an overlay (filled below). */
const OVERLAYS = new Set<string>();

/** A page of the web UI, and what shows it is drawn. */
interface Visit {
  name: string;
  path: string;
  ready(page: Page): Promise<void>;
  /** Then opens something on the page (a dialog, a menu, a drawer) and waits for it. */
  open?(page: Page): Promise<void>;
}

const dialog = (name: string | RegExp) => (page: Page) => page.getByRole('dialog', { name }).waitFor();

const heading = (name: string | RegExp) => (page: Page) =>
  page
    .getByRole('heading', { name, exact: typeof name === 'string' })
    .first()
    .waitFor();
const tabPanel = (tab: string) => async (page: Page) => {
  await page.getByRole('tab', { name: tab, selected: true }).waitFor();
  await page.locator('table, [data-testid="deleted-list"], p').first().waitFor();
  await page.getByRole('progressbar').waitFor({ state: 'detached' });
};
const dashboardReady = async (page: Page) => {
  await page.getByRole('heading', { name: 'Shop overview' }).waitFor();
  for (const t of ['About', 'Targets up', 'Target count']) await panelSection({ page } as WatchedPage, t).waitFor();
  await page.getByRole('progressbar').first().waitFor({ state: 'detached' });
};

const VISITS: Visit[] = [
  { name: 'home', path: '/', ready: async (p) => p.getByTestId('project-row').first().waitFor() },
  ...[
    'Dashboards',
    'Ephemeral dashboards',
    'Playlists',
    'Datasources',
    'Variables',
    'Secrets',
    'Roles',
    'Role bindings',
    'Recently deleted',
  ].map((tab) => ({
    name: `project tab ${tab}`,
    path: `/projects/shop?tab=${{ Dashboards: 'dashboards', 'Ephemeral dashboards': 'ephemeraldashboards', Playlists: 'playlists', Datasources: 'datasources', Variables: 'variables', Secrets: 'secrets', Roles: 'roles', 'Role bindings': 'rolebindings', 'Recently deleted': 'deleted' }[tab]}`,
    ready: tabPanel(tab),
  })),
  { name: 'dashboard', path: '/projects/shop/dashboards/overview', ready: dashboardReady },
  {
    name: 'dashboard in edit mode',
    path: '/projects/shop/dashboards/overview?edit=true',
    ready: async (p) => {
      await dashboardReady(p);
      await p.getByRole('button', { name: 'Save' }).waitFor();
    },
  },
  {
    name: 'JSON/YAML editor',
    path: '/projects/shop/dashboards/overview/edit',
    ready: async (p) => p.locator('.cm-content').first().waitFor(),
  },
  { name: 'history', path: '/projects/shop/dashboards/overview/history', ready: async (p) => p.getByTestId('diff-fold').first().waitFor() },
  {
    name: 'explore',
    path: '/explore',
    ready: async (p) =>
      p
        .getByRole('button', { name: /run query/i })
        .first()
        .waitFor(),
  },
  {
    name: 'project explore',
    path: '/projects/shop/explore',
    ready: async (p) =>
      p
        .getByRole('button', { name: /run query/i })
        .first()
        .waitFor(),
  },
  { name: 'import', path: '/import', ready: heading(/Import/) },
  { name: 'project import', path: '/projects/shop/import', ready: heading(/Import/) },
  {
    name: 'playlist player',
    path: '/projects/shop/playlists/wall/play',
    ready: async (p) => {
      await p.getByTestId('played-dashboard').waitFor();
      await panelSection({ page: p } as WatchedPage, 'Targets up').waitFor();
      await p.getByRole('progressbar').first().waitFor({ state: 'detached' });
    },
  },
  ...['Datasources', 'Variables', 'Secrets', 'Roles', 'Role bindings', 'Users', 'Recently deleted'].map((tab) => ({
    name: `admin tab ${tab}`,
    path: `/admin?tab=${{ Datasources: 'globaldatasources', Variables: 'globalvariables', Secrets: 'globalsecrets', Roles: 'globalroles', 'Role bindings': 'globalrolebindings', Users: 'users', 'Recently deleted': 'deleted' }[tab]}`,
    ready: tabPanel(tab),
  })),
  { name: 'groups, tokens and audit', path: '/admin/access', ready: async (p) => p.getByRole('heading', { name: 'Audit log' }).waitFor() },
  {
    name: 'global datasource editor',
    path: '/global/globaldatasources/central/edit',
    ready: async (p) => p.locator('.cm-content').first().waitFor(),
  },
  { name: 'page not found', path: '/nowhere', ready: heading('Page not found') },
  // dialogs, menus and drawers, ours and Perses'
  {
    name: 'search dialog',
    path: '/',
    ready: async (p) => p.getByTestId('project-row').first().waitFor(),
    open: async (p) => {
      await p.getByRole('button', { name: /^Search/ }).click();
      await dialog('Search')(p);
      await p.keyboard.type('shop');
      await p.getByRole('dialog').getByRole('option').first().waitFor();
    },
  },
  {
    name: 'new datasource form',
    path: '/projects/shop?tab=datasources',
    ready: tabPanel('Datasources'),
    open: async (p) => {
      await p.getByRole('button', { name: 'New datasource' }).click();
      await dialog('New datasource')(p);
    },
  },
  {
    name: 'delete project dialog',
    path: '/projects/shop',
    ready: tabPanel('Dashboards'),
    open: async (p) => {
      await p.getByRole('button', { name: 'Delete project' }).click();
      await p.getByRole('dialog').waitFor();
    },
  },
  {
    name: 'row actions menu',
    path: '/projects/shop',
    ready: tabPanel('Dashboards'),
    open: async (p) => {
      await p.getByRole('button', { name: 'Actions for overview' }).click();
      await p.getByRole('menu').waitFor();
    },
  },
  {
    name: 'share dialog',
    path: '/projects/shop/dashboards/overview',
    ready: dashboardReady,
    open: async (p) => {
      await p.getByRole('button', { name: 'Share' }).click();
      await dialog(/^Share/)(p);
    },
  },
  {
    name: 'time range menu',
    path: '/projects/shop/dashboards/overview',
    ready: dashboardReady,
    open: async (p) => {
      await p.getByRole('combobox', { name: /time range/i }).click();
      await p.getByRole('option', { name: /Last 15 minutes/ }).waitFor();
    },
  },
  {
    name: 'download menu',
    path: '/projects/shop/dashboards/overview',
    ready: dashboardReady,
    open: async (p) => {
      await p.locator('#download-dashboard-button').click();
      await p.getByRole('menuitem', { name: 'JSON' }).first().waitFor();
    },
  },
  {
    name: 'panel full screen',
    path: '/projects/shop/dashboards/overview',
    ready: dashboardReady,
    open: async (p) => {
      await panelSection({ page: p } as WatchedPage, 'Targets up').hover();
      await p.getByRole('button', { name: 'toggle panel Targets up view mode' }).click();
      await p.getByRole('button', { name: 'toggle panel Targets up view mode' }).waitFor();
      await panelSection({ page: p } as WatchedPage, 'About').waitFor({ state: 'hidden' });
    },
  },
  {
    name: 'panel editor',
    path: '/projects/shop/dashboards/overview?edit=true',
    ready: async (p) => {
      await dashboardReady(p);
      await p.getByRole('button', { name: 'Save' }).waitFor();
    },
    open: async (p) => {
      await p.getByRole('button', { name: 'edit panel Targets up' }).click();
      await p.getByRole('heading', { name: /Edit Panel/i }).waitFor();
      await p.locator('.cm-content').first().waitFor();
    },
  },
  {
    name: 'variables editor',
    path: '/projects/shop/dashboards/overview?edit=true',
    ready: async (p) => {
      await dashboardReady(p);
      await p.getByRole('button', { name: 'Save' }).waitFor();
    },
    open: async (p) => {
      await p.getByRole('button', { name: 'Edit variables' }).click();
      await p.getByRole('heading', { name: /Dashboard Variables/i }).waitFor();
    },
  },
];

for (const v of VISITS) if (v.open) OVERLAYS.add(v.name);

/**
 * Accessibility (issue 35, docs/ui.md "Accessibility"): axe-core on every page of the web UI, in
 * the light and the dark colour modes, and a walk through the everyday work by keyboard only.
 */
describe('web UI accessibility (Chromium, axe-core)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(300_000);
  let stack: UiStack;

  before(async function () {
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    await stack.project('shop', 'Shop');
    await stack.api('POST', '/api/v1/projects/shop/dashboards', dashboard);
    // a second version: the history page shows a diff
    const v2 = structuredClone(dashboard);
    v2.spec.duration = '3h';
    await stack.api('PUT', '/api/v1/projects/shop/dashboards/overview', v2);
    // a deleted one: the Recently deleted tab lists it
    await stack.api('POST', '/api/v1/projects/shop/dashboards', {
      ...dashboard,
      metadata: { name: 'old', project: 'shop' },
      spec: { ...dashboard.spec, display: { name: 'Old' } },
    });
    await stack.api('DELETE', '/api/v1/projects/shop/dashboards/old');
    await stack.api('POST', '/api/v1/projects/shop/playlists', {
      kind: 'Playlist',
      metadata: { name: 'wall', project: 'shop' },
      spec: { display: { name: 'Wall' }, interval: '1m', items: [{ dashboard: { name: 'overview' } }] },
    });
    await stack.api('POST', '/api/v1/projects/shop/variables', {
      kind: 'Variable',
      metadata: { name: 'env', project: 'shop' },
      spec: { kind: 'TextVariable', spec: { name: 'env', value: 'prod' } },
    });
    await stack.api('POST', '/api/v1/projects/shop/secrets', {
      kind: 'Secret',
      metadata: { name: 'basic', project: 'shop' },
      spec: { basicAuth: { username: 'u', password: 'p' } },
    });
    await stack.api('POST', '/api/v1/globaldatasources', {
      kind: 'GlobalDatasource',
      metadata: { name: 'central' },
      spec: {
        default: false,
        plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: stack.prom.url } } } },
      },
    });
    await stack.api('POST', '/api/v1/globalvariables', {
      kind: 'GlobalVariable',
      metadata: { name: 'region' },
      spec: { kind: 'TextVariable', spec: { name: 'region', value: 'eu' } },
    });
  });

  after(async () => {
    await stack?.stop();
  });

  it("lists in docs/ui.md each of Perses' violations it lets pass", () => {
    const docs = readFileSync(join(PACKAGE_ROOT, 'docs', 'ui.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Accessibility'));
    expect(section.length, 'docs/ui.md has an "Accessibility" section').to.be.lessThan(docs.length);
    for (const k of KNOWN) expect(section, k.rule).to.include(`\`${k.rule}\``);
  });

  for (const mode of ['light', 'dark'] as const) {
    it(`finds no violation on any page but Perses' listed ones (${mode} mode)`, async () => {
      const w = await openPage(stack.s.url, { colorScheme: mode });
      const findings: Finding[] = [];
      try {
        await w.page.goto('/signin');
        await w.page.getByRole('heading', { name: 'Sign in to dashplane' }).waitFor();
        findings.push(...(await axe(w.page, 'sign-in')));
        await signIn(w, 'admin', 'admin-password');
        for (const v of VISITS) {
          await w.page.goto(v.path);
          try {
            await v.ready(w.page);
            await v.open?.(w.page);
          } catch (e) {
            await w.screenshot(`a11y-${mode}-${v.name.replace(/\W+/g, '-')}`);
            throw new Error(`${v.name} (${v.path}): ${(e as Error).message}`);
          }
          findings.push(...(await axe(w.page, v.name)));
        }
      } finally {
        writeFileSync(join(ARTIFACTS_DIR, `a11y-${mode}.json`), JSON.stringify(findings, null, 2));
        await w.close();
      }
      const bad = findings.filter((f) => !KNOWN.some((k) => k.rule === f.rule && k.where(f)));
      expect(
        bad.map((f) => `${f.page}: ${f.rule} (${f.impact}) ${f.target}\n   ${f.html}\n   ${f.summary.replace(/\n/g, ' ')}`).join('\n'),
      ).to.equal('');
    });
  }

  it("walks by keyboard only: opens a dashboard, changes the time range, opens a panel's actions, edits and saves", async () => {
    const w = await openPage(stack.s.url);
    const { page } = w;
    /** The focused element: its role, its name (as a user hears it, roughly), whether it shows a focus mark. */
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el || el === document.body) return { name: '', role: '', ring: false, opacity: '1' };
        const labelled = el.getAttribute('aria-labelledby');
        const name =
          el.getAttribute('aria-label') ??
          (labelled ? document.getElementById(labelled)?.textContent : undefined) ??
          (el as HTMLInputElement).labels?.[0]?.textContent ??
          el.textContent ??
          '';
        const style = getComputedStyle(el);
        let opacity = 1;
        for (let e: Element | null = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
        return {
          name: name.trim(),
          role: el.getAttribute('role') ?? el.tagName.toLowerCase(),
          ring: style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) >= 2,
          opacity: String(opacity),
        };
      });
    /** Presses Tab until the focus is on what `name` matches (and of `role`, if given; at most `max` times). */
    const tabTo = async (name: RegExp, max = 120, role?: string, key = 'Tab') => {
      const seen: string[] = [];
      for (let i = 0; i < max; i++) {
        await page.keyboard.press(key);
        const f = await focused();
        if (name.test(f.name) && (!role || f.role === role)) return f;
        seen.push(f.name.slice(0, 40));
      }
      throw new Error(`Tab never reached ${name} (${max} presses); it went through: ${seen.join(' | ')}`);
    };
    try {
      await signIn(w, 'admin', 'admin-password');
      await page.goto('/');
      await page.getByTestId('project-row').first().waitFor();
      // home → the project → the dashboard
      await tabTo(/^Shop$/);
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/projects\/shop$/);
      await page.getByRole('link', { name: 'Shop overview' }).waitFor();
      await tabTo(/^Shop overview$/);
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/dashboards\/overview/);
      await dashboardReady(page);
      expect(await page.title()).to.equal('Shop overview · shop · dashplane');
      // our buttons show a focus ring
      const share = await tabTo(/^Share$/);
      expect(share.ring, 'a focus ring on Share').to.equal(true);

      // the time range: opened, chosen and closed by keyboard
      expect(await tabTo(/^Time range: Last 3 hours$/, 120, 'combobox')).to.include({ ring: false }); // MUI marks a focused field by its border
      await page.keyboard.press('Enter');
      await page.getByRole('option', { name: 'Last 15 minutes' }).waitFor();
      await waitFor('an option to hold the focus', async () => (await focused()).role === 'option');
      await page.keyboard.press('Home');
      for (let i = 0; i < 20 && !/Last 15 minutes/.test((await focused()).name); i++) await page.keyboard.press('ArrowDown');
      expect((await focused()).name).to.equal('Last 15 minutes');
      await page.keyboard.press('Enter');
      await waitFor(`the new time range in the URL (${page.url()})`, async () => new URL(page.url()).searchParams.get('start') === '15m');
      await page.getByRole('option').first().waitFor({ state: 'detached' });

      // a panel's actions: reached by Tab, shown once focused; full screen and back
      const full = await tabTo(/^toggle panel Targets up view mode$/);
      expect(full.opacity, 'the focused panel action is shown').to.equal('1');
      expect(
        await page.getByRole('button', { name: 'toggle panel Target count view mode' }).evaluate((el) => getComputedStyle(el).opacity),
        'the actions of another panel stay hidden',
      ).to.equal('0');
      await page.keyboard.press('Enter');
      await panelSection(w, 'About').waitFor({ state: 'hidden' });
      await page.keyboard.press('Enter');
      await panelSection(w, 'About').waitFor();

      // edit mode, rename a panel in its editor, save
      const before = (await stack.api('GET', '/api/v1/projects/shop/dashboards/overview')).body.metadata.version;
      await page.keyboard.press('Shift+Tab');
      await tabTo(/^Edit$/);
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Save', exact: true }).waitFor();
      await tabTo(/^edit panel Targets up$/);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: /Edit Panel/i }).waitFor();
      // Perses' editor may still be drawing its preview, and a late render can take the focus from
      // the field while it is typed into (CI: "Tar", the rest went to the preview's legend): as a
      // person would, look at the field and type again (by keyboard) until it says what was typed
      const name = page.getByRole('textbox', { name: /^Name/ });
      for (let attempt = 1; ; attempt++) {
        if ((await focused()).name.match(/^Name/) === null) await tabTo(/^Name/, 80);
        await page.keyboard.press('ControlOrMeta+A');
        await page.keyboard.type('Targets answering');
        if ((await name.inputValue()) === 'Targets answering') break;
        if (attempt === 3) expect(await name.inputValue(), 'the panel name typed by keyboard').to.equal('Targets answering');
      }
      await tabTo(/^Apply$/, 20, undefined, 'Shift+Tab'); // the editor's buttons are above its fields
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: /Edit Panel/i }).waitFor({ state: 'detached' });
      await panelSection(w, 'Targets answering').waitFor();
      await tabTo(/^Save$/, 60);
      await page.keyboard.press('Enter');
      // the time range changed: Perses asks whether it becomes the default
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      await tabTo(/^Save Changes$/, 20);
      await page.keyboard.press('Enter');
      await page
        .getByTestId('dashboard-version')
        .filter({ hasText: `version ${before + 1}` })
        .waitFor();
      const saved = (await stack.api('GET', '/api/v1/projects/shop/dashboards/overview')).body;
      expect(saved.spec.panels.up.spec.display.name).to.equal('Targets answering');
      expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
    } catch (e) {
      await w.screenshot('a11y-keyboard-walk');
      throw e;
    } finally {
      await w.close();
    }
  });
});
