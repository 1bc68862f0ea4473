/**
 * No edit is lost when the session ends while editing (issue 35): a second tab of the same
 * browser signs out; the first tab asks to sign in again over the page and its save goes on, or,
 * reloaded, offers its kept draft back after sign-in. For Perses' dashboard editor, the JSON/YAML
 * editor, a form and the Import page.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { parse, stringify } from 'yaml';
import { bearer, loginAdmin, startAuthServer, type Tokens } from './helpers/auth.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { needsPrograms } from './helpers/programs.js';
import { editorContent, setEditorText } from './helpers/editor.js';
import { enterEditMode, renamePanel, saveDashboard } from './helpers/perses-edit.js';
import type { TestServer } from './helpers/server.js';
import { signIn } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';

const DASHBOARD = {
  kind: 'Dashboard',
  metadata: { name: 'notes', project: 'ops' },
  spec: {
    display: { name: 'Notes' },
    duration: '1h',
    panels: { a: { kind: 'Panel', spec: { display: { name: 'Runbook' }, plugin: { kind: 'Markdown', spec: { text: '# Runbook' } } } } },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }],
  },
};

describe('web UI: edits survive the end of the session (Chromium, auth on)', function () {
  needsPrograms('chromium');
  this.timeout(120_000);
  let s: TestServer;
  let admin: Tokens;
  let w: WatchedPage;
  const get = async (path: string) => (await s.api('GET', path, undefined, bearer(admin))).body;
  const dashboardPath = '/api/v1/projects/ops/dashboards/notes';

  /** Another tab of the same browser signs out: the session of both ends. */
  const signOutElsewhere = async () => {
    const other = await w.context.newPage();
    await other.goto('/');
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.waitForURL(/\/signin/);
    await other.close();
  };
  /** Reloads a page whose session ended, signs in on the sign-in page it goes to, and answers the offer of the kept draft. */
  const reloadAndSignIn = async (page: Page) => {
    await page.reload();
    await page.waitForURL(/\/signin\?redirect=/);
    await page.getByLabel('User name').fill('admin');
    await page.getByLabel('Password').fill('admin-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const offer = page.getByTestId('draft-offer');
    await offer.waitFor();
    return offer;
  };
  const reauth = (page: Page) => page.getByRole('dialog', { name: 'Your session ended' });
  /** Signs in again in the dialog over the page. */
  const signInAgain = async (page: Page) => {
    await reauth(page).waitFor();
    expect(await reauth(page).getByLabel('User name').inputValue()).to.equal('admin');
    await reauth(page).getByLabel('Password').fill('admin-password');
    await reauth(page).getByRole('button', { name: 'Sign in' }).click();
    await reauth(page).waitFor({ state: 'detached' });
  };

  before(async () => {
    s = await startAuthServer();
    admin = await loginAdmin(s);
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await s.api(method, path, body, bearer(admin));
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    };
    await api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'ops' }, spec: {} });
    await api('POST', '/api/v1/projects/ops/dashboards', DASHBOARD);
    await api('POST', '/api/v1/projects/ops/datasources', {
      kind: 'Datasource',
      metadata: { name: 'prom', project: 'ops' },
      spec: {
        default: true,
        plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: 'http://127.0.0.1:9' } } } },
      },
    });
    w = await openPage(s.url);
  });

  after(async () => {
    await w?.close();
    await s?.stop();
  });

  beforeEach(async () => {
    await signIn(w, 'admin', 'admin-password');
  });

  it('dashboard editor: the page asks at once to sign in again over it, keeping the edit, which then saves', async () => {
    const { page } = w;
    await page.goto('/projects/ops/dashboards/notes');
    await enterEditMode(page);
    await renamePanel(page, 'Runbook', 'Runbook (edited)');
    await signOutElsewhere();
    // the page learns it at once: the server ends its watch of the dashboard with the session
    await signInAgain(page);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await waitFor('the saved notice', async () =>
      (
        await page
          .getByTestId('update-notice')
          .innerText()
          .catch(() => '')
      ).includes('Saved: version 1.'),
    );
    const stored = await get(dashboardPath);
    expect(stored.spec.panels.a.spec.display.name).to.equal('Runbook (edited)');
    expect(page.url(), 'never left the page').to.match(/\/projects\/ops\/dashboards\/notes/);
  });

  it('dashboard editor: reloaded after the session ended, the page offers the kept edit back after sign-in; restored, it saves', async () => {
    const { page } = w;
    await page.goto('/projects/ops/dashboards/notes');
    await enterEditMode(page);
    await renamePanel(page, 'Runbook (edited)', 'Runbook (kept)');
    await signOutElsewhere();
    const offer = await reloadAndSignIn(page);
    expect(await offer.innerText()).to.match(/You have unsaved changes from .*, made to version 1, kept when this page was left\./);
    await offer.getByRole('button', { name: 'Restore' }).click();
    await panelHeading(page, 'Runbook (kept)').waitFor();
    await saveDashboard(page, 2);
    expect((await get(dashboardPath)).spec.panels.a.spec.display.name).to.equal('Runbook (kept)');
    // saved: nothing is offered any more
    await page.reload();
    await panelHeading(page, 'Runbook (kept)').waitFor();
    expect(await page.getByTestId('draft-offer').count()).to.equal(0);
  });

  it('dashboard editor: an edit kept for an older version says so and names what both changed', async () => {
    const { page } = w;
    await page.goto('/projects/ops/dashboards/notes');
    await enterEditMode(page);
    await renamePanel(page, 'Runbook (kept)', 'Mine');
    // someone saves another title meanwhile: the page shows their version, the edit is offered back
    const theirs = await get(dashboardPath);
    theirs.spec.panels.a.spec.display.name = 'Theirs';
    expect((await s.api('PUT', dashboardPath, theirs, bearer(admin))).status).to.equal(200);
    const offer = page.getByTestId('draft-offer');
    await offer.waitFor();
    expect(await offer.innerText()).to.contain('made to version 2, kept when this page was left; version 3 has been saved since.');
    expect(await offer.innerText()).to.contain(
      'Restoring applies them to version 3; both changed spec.panels.a.spec.display.name: your changes win there.',
    );
    await offer.getByRole('button', { name: 'Discard' }).click();
    await page.reload();
    await panelHeading(page, 'Theirs').waitFor();
    expect(await page.getByTestId('draft-offer').count()).to.equal(0);
  });

  it('JSON/YAML editor: the dialog keeps the text and the save goes on; reloaded, the text is offered back', async () => {
    const { page } = w;
    await page.goto('/projects/ops/dashboards/notes/edit');
    await waitFor('the text', async () =>
      (
        await editorContent(page)
          .innerText()
          .catch(() => '')
      ).includes('kind: Dashboard'),
    );
    const current = await get(dashboardPath);
    current.spec.display.name = 'Notes (YAML)';
    await setEditorText(page, stringify(current));
    await signOutElsewhere();
    await page.getByTestId('save').click();
    await signInAgain(page);
    await waitFor('saved', async () =>
      /Saved: version 4/.test(
        await page
          .getByTestId('editor-message')
          .innerText()
          .catch(() => ''),
      ),
    );
    expect((await get(dashboardPath)).spec.display.name).to.equal('Notes (YAML)');

    current.spec.display.name = 'Notes (kept YAML)';
    await setEditorText(page, stringify(current));
    await signOutElsewhere();
    const offer = await reloadAndSignIn(page);
    expect(await offer.innerText()).to.contain('made to version 4');
    await offer.getByRole('button', { name: 'Restore' }).click();
    await waitFor('the kept text', async () => (await editorContent(page).innerText()).includes('Notes (kept YAML)'));
    await page.getByTestId('save').click();
    await waitFor('saved', async () =>
      /Saved: version 5/.test(
        await page
          .getByTestId('editor-message')
          .innerText()
          .catch(() => ''),
      ),
    );
    expect(parse(stringify((await get(dashboardPath)).spec.display))).to.deep.equal({ name: 'Notes (kept YAML)' });
  });

  it('datasource form: the dialog over the form keeps what was typed, and the save goes on', async () => {
    const { page } = w;
    await page.goto('/projects/ops?tab=datasources');
    await page.getByRole('button', { name: 'Actions for prom' }).click();
    await page.getByRole('menuitem', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('dialog', { name: /Edit datasource/ });
    await form.getByLabel('Prometheus URL').fill('http://127.0.0.1:19090');
    await signOutElsewhere();
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await signInAgain(page);
    await form.waitFor({ state: 'detached' });
    const stored = await get('/api/v1/projects/ops/datasources/prom');
    expect(stored.spec.plugin.spec.proxy.spec.url).to.equal('http://127.0.0.1:19090');
    expect(stored.metadata.version).to.equal(1);
  });
  it('datasource form: reloaded after the session ended, opening the form again offers what was typed', async () => {
    const { page } = w;
    await page.goto('/projects/ops?tab=datasources');
    const edit = async () => {
      await page.getByRole('button', { name: 'Actions for prom' }).click();
      await page.getByRole('menuitem', { name: 'Edit', exact: true }).click();
      return page.getByRole('dialog', { name: /Edit datasource/ });
    };
    await (await edit()).getByLabel('Prometheus URL').fill('http://127.0.0.1:29090');
    await signOutElsewhere();
    await page.reload();
    await page.waitForURL(/\/signin\?redirect=/);
    await page.getByLabel('User name').fill('admin');
    await page.getByLabel('Password').fill('admin-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const form = await edit();
    const offer = form.getByTestId('draft-offer');
    expect(await offer.innerText()).to.contain('made to version 1');
    await offer.getByRole('button', { name: 'Restore' }).click();
    expect(await form.getByLabel('Prometheus URL').inputValue()).to.equal('http://127.0.0.1:29090');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.waitFor({ state: 'detached' });
    expect((await get('/api/v1/projects/ops/datasources/prom')).spec.plugin.spec.proxy.spec.url).to.equal('http://127.0.0.1:29090');
  });

  it('Import: the pasted dashboard is offered back after the session ended and the page was reloaded; restored, it imports', async () => {
    const { page } = w;
    await page.goto('/projects/ops/import');
    const pasted = { ...DASHBOARD, metadata: { name: 'pasted', project: 'ops' }, spec: { ...DASHBOARD.spec, display: { name: 'Pasted' } } };
    await page.getByLabel('dashboard text').fill(JSON.stringify(pasted, null, 2));
    await signOutElsewhere();
    const offer = await reloadAndSignIn(page);
    expect(await offer.innerText()).to.match(/You have unsaved changes from .*, kept when this page was left\./);
    expect(await page.getByLabel('dashboard text').inputValue(), 'nothing restored until asked').to.equal('');
    await offer.getByRole('button', { name: 'Restore' }).click();
    expect(JSON.parse(await page.getByLabel('dashboard text').inputValue())).to.deep.equal(pasted);
    await page.getByTestId('import-preview').click();
    await page.getByTestId('import-preview-dashboard').waitFor();
    await page.getByTestId('import-save').click();
    await page.waitForURL(/\/projects\/ops\/dashboards\/pasted(?:\?|$)/); // the page adds its time range to the query at once
    expect((await get('/api/v1/projects/ops/dashboards/pasted')).spec.display.name).to.equal('Pasted');
    // imported: nothing is kept any more
    expect(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('dashplane.draft:import')))).to.deep.equal([]);
  });
});

function panelHeading(page: Page, title: string) {
  return page.locator('section[data-testid="panel"]').getByRole('heading', { name: title, exact: true });
}
