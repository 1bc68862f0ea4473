import { expect } from 'chai';
import type { Request } from 'playwright-core';
import { signUp } from './helpers/auth.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { signIn, startUiStack, type UiStack } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

const text = (name: string, value: string) => ({ kind: 'TextVariable', spec: { name, value } });

/**
 * A dashboard whose one query uses a project variable (env), a global one (factor) and one that
 * the dashboard defines too (shadow), as does the project: the dashboard's own wins.
 */
const QUERY = 'up{job="$env"} * $factor * $shadow';
const dashboard = {
  kind: 'Dashboard',
  metadata: { name: 'scoped', project: 'perses' },
  spec: {
    display: { name: 'Scoped variables' },
    duration: '5m',
    variables: [text('shadow', '1')],
    panels: {
      a: {
        kind: 'Panel',
        spec: {
          display: { name: 'Up' },
          plugin: { kind: 'TimeSeriesChart', spec: {} },
          queries: [{ kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: QUERY } } } }],
        },
      },
    },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 6, content: { $ref: '#/spec/panels/a' } }] } }],
  },
};

/** The `query` of every range query the page sent through the datasource proxy, and the variable list calls it made. */
function record(w: WatchedPage): { queries: string[]; lists: string[] } {
  const seen = { queries: [] as string[], lists: [] as string[] };
  w.page.on('request', (r: Request) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/proxy/') && url.pathname.endsWith('/api/v1/query_range')) {
      const q = new URLSearchParams(r.postData() ?? '').get('query') ?? url.searchParams.get('query');
      if (q) seen.queries.push(q);
    }
    if (/^\/api\/v1\/(projects\/[^/]+\/variables|globalvariables)$/.test(url.pathname) && r.method() === 'GET')
      seen.lists.push(url.pathname);
  });
  return seen;
}

async function waitForQuery(seen: { queries: string[] }, w: WatchedPage): Promise<string> {
  await waitFor(`a range query through the proxy (seen: ${w.proxyLog.join(' | ')})`, async () => seen.queries.length > 0, 60_000, 100);
  return seen.queries[0];
}

/** Issue 9/18: a project's Variables and the GlobalVariables reach its dashboards, as in Perses' own UI. */
describe('web UI: project and global variables in dashboards (Chromium, real Prometheus)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(180_000);
  let stack: UiStack;

  before(async function () {
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    await stack.project('perses', 'Perses demo');
    await stack.api('POST', '/api/v1/projects/perses/variables', {
      kind: 'Variable',
      metadata: { name: 'env', project: 'perses' },
      spec: text('env', 'node'),
    });
    await stack.api('POST', '/api/v1/projects/perses/variables', {
      kind: 'Variable',
      metadata: { name: 'shadow', project: 'perses' },
      spec: text('shadow', '1000'),
    });
    // a global of the same name as a project variable: the project's wins
    await stack.api('POST', '/api/v1/globalvariables', {
      kind: 'GlobalVariable',
      metadata: { name: 'env' },
      spec: text('env', 'prometheus'),
    });
    // named by the object only (no spec.name), as Perses accepts it
    await stack.api('POST', '/api/v1/globalvariables', {
      kind: 'GlobalVariable',
      metadata: { name: 'factor' },
      spec: { kind: 'TextVariable', spec: { value: '7' } },
    });
    await stack.api('POST', '/api/v1/projects/perses/dashboards', dashboard);
    // a user who may read the project's dashboards, datasources and variables, but no global variable
    await signUp(stack.s, 'viewer');
    await stack.api('POST', '/api/v1/projects/perses/roles', {
      kind: 'Role',
      metadata: { name: 'reader' },
      spec: { permissions: [{ actions: ['read'], scopes: ['Dashboard', 'Datasource', 'Variable'] }] },
    });
    await stack.api('POST', '/api/v1/projects/perses/rolebindings', {
      kind: 'RoleBinding',
      metadata: { name: 'reader' },
      spec: { role: 'reader', subjects: [{ kind: 'User', name: 'viewer' }] },
    });
  });

  after(async () => {
    await stack?.stop();
  });

  it('substitutes project and global values into the proxied query (project over global, dashboard over both), one list call per scope, and shows them in the variable bar', async () => {
    const w = await openPage(stack.s.url);
    try {
      await signIn(w, 'admin', 'admin-password');
      const seen = record(w);
      await w.page.goto('/projects/perses/dashboards/scoped');
      expect(await waitForQuery(seen, w)).to.equal('up{job="node"} * 7 * 1');
      const bar = (name: string) => w.page.locator(`[data-testid="variable-${name}"]:visible`);
      await bar('factor').waitFor();
      expect(await bar('env').count(), 'env once: the global one is overridden').to.equal(1);
      expect(await bar('shadow').count(), "shadow once: the dashboard's own").to.equal(1);
      expect(await bar('env').locator('input').inputValue()).to.equal('node');
      expect(await bar('factor').locator('input').inputValue()).to.equal('7');
      expect(seen.lists.sort()).to.deep.equal(['/api/v1/globalvariables', '/api/v1/projects/perses/variables']);
      await w.screenshot('variables-scoped');

      // edit mode: Perses' variable editor lists them by source, project before global
      await w.page.getByRole('button', { name: 'Edit' }).click();
      await w.page.getByRole('button', { name: 'Edit variables' }).click();
      const dialog = w.page.getByTestId('variable-editor');
      await dialog.getByText('Global Variables').waitFor();
      const shown = await dialog.innerText();
      expect(shown.indexOf('Project Variables'), shown).to.be.within(0, shown.indexOf('Global Variables'));
      expect(shown, "the dashboard's shadow is marked as overriding the project's").to.match(/shadow\s*\(overriding\)/);
      await w.screenshot('variables-editor');
      expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
    } finally {
      await w.close();
    }
  });

  it('makes no call for a kind the user may not read, and a failed list leaves the dashboard working', async () => {
    const w = await openPage(stack.s.url);
    try {
      await signIn(w, 'viewer', 'viewer-password');
      let seen = record(w);
      await w.page.goto('/projects/perses/dashboards/scoped');
      expect(await waitForQuery(seen, w), 'no global variables for this user').to.equal('up{job="node"} * $factor * 1');
      expect(seen.lists).to.deep.equal(['/api/v1/projects/perses/variables']);

      // the admin again, with the global list failing: the project's variables still apply
      await w.context.clearCookies();
      await signIn(w, 'admin', 'admin-password');
      await w.page.route('**/api/v1/globalvariables', (route) =>
        route.fulfill({ status: 503, contentType: 'application/json', body: '{"message":"store unavailable","reason":"Unavailable"}' }),
      );
      w.page.removeAllListeners('request');
      seen = record(w);
      await w.page.goto('/projects/perses/dashboards/scoped?refresh=0s');
      expect(await waitForQuery(seen, w)).to.equal('up{job="node"} * $factor * 1');
      expect(await w.page.getByTestId('external-variables-error').innerText()).to.include('global scope variables: store unavailable');
    } finally {
      await w.close();
    }
  });
});
