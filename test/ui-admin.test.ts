import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signUp } from './helpers/auth.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { signIn, startUiStack, type UiStack } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

const row = (page: Page, name: string) => page.locator(`[data-testid="resource-row"][data-name="${name}"]`);
const dialogTitled = async (page: Page, title: string | RegExp) => {
  const d = page.getByRole('dialog');
  await d.getByRole('heading', { name: title }).waitFor();
  return d;
};

/** Administration: global datasources, variables, secrets, roles, bindings and users, with forms, for those allowed. */
describe('web UI administration (Chromium, auth on)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(120_000);
  let stack: UiStack;
  let w: WatchedPage;
  const login = (name: string, password: string) => stack.s.api('POST', '/api/auth/providers/native/login', { login: name, password });

  before(async function () {
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    w = await openPage(stack.s.url);
    await signIn(w, 'admin', 'admin-password');
  });

  after(async () => {
    await w?.close();
    await stack?.stop();
  });

  it('shows the administration page to an administrator, a tab per global kind', async () => {
    const { page } = w;
    await page.goto('/');
    await page.getByRole('link', { name: 'Admin' }).click();
    await page.waitForURL(/\/admin$/);
    const tabs = ['Datasources', 'Variables', 'Secrets', 'Roles', 'Role bindings', 'Users', 'Recently deleted'];
    // the page draws its tabs once the caller's permissions have loaded
    await page.getByRole('tab', { name: 'Recently deleted' }).waitFor();
    expect(await page.getByRole('tab').allInnerTexts()).to.deep.equal(tabs);
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('creates a global datasource with the form and tests it', async () => {
    const { page } = w;
    await page.getByRole('button', { name: 'New global datasource' }).click();
    const dialog = await dialogTitled(page, 'New global datasource');
    await dialog.getByLabel('Display name').fill('Shared Prometheus');
    await dialog.getByLabel('Prometheus URL').fill(stack.prom.url);
    await dialog.getByRole('button', { name: 'Save & test' }).click();
    await dialog.getByTestId('datasource-test').waitFor();
    expect(await dialog.getByTestId('datasource-test').innerText()).to.match(/^Saved and tested: Prometheus 2\./);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await row(page, 'shared-prometheus').waitFor();
    await w.screenshot('admin-global-datasources');
    // a global object comes back from the administration page, not from a project
    await page.getByRole('button', { name: 'Actions for shared-prometheus' }).click();
    await page.getByRole('menuitem', { name: 'Delete', exact: true }).click();
    const confirm = await dialogTitled(page, /Delete global datasource/);
    await waitFor('the consequences', async () =>
      (await confirm.getByTestId('delete-consequences').innerText()).includes('history is kept'),
    );
    expect(await confirm.getByTestId('delete-consequences').innerText())
      .to.contain('Administration → “Recently deleted”')
      .and.not.contain('in the project');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('creates a global list variable, a global secret and a global role bound to a user', async () => {
    const { page } = w;
    await page.getByRole('tab', { name: 'Variables' }).click();
    await page.getByRole('button', { name: 'New global variable' }).click();
    let dialog = await dialogTitled(page, 'New global variable');
    await dialog.getByTestId('name-field').fill('region');
    await dialog.getByRole('button', { name: 'List' }).click();
    await dialog.getByLabel('Values (comma-separated)').fill('eu, us');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await row(page, 'region').waitFor();
    expect((await stack.api('GET', '/api/v1/globalvariables/region')).body.spec).to.deep.equal({
      kind: 'ListVariable',
      spec: { plugin: { kind: 'StaticListVariable', spec: { values: ['eu', 'us'] } } },
    });

    await page.getByRole('tab', { name: 'Secrets' }).click();
    await page.getByRole('button', { name: 'New global secret' }).click();
    dialog = await dialogTitled(page, 'New global secret');
    await dialog.getByTestId('name-field').fill('token');
    await dialog.getByRole('button', { name: 'Bearer token' }).click();
    await dialog.getByLabel('Token').fill('t0ken');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await row(page, 'token').waitFor();
    expect((await stack.api('GET', '/api/v1/globalsecrets/token')).body.spec.authorization).to.deep.equal({
      type: 'Bearer',
      credentials: '<secret>',
    });

    await signUp(stack.s, 'auditor');
    await page.getByRole('tab', { name: 'Roles', exact: true }).click();
    await page.getByRole('button', { name: 'New global role' }).click();
    dialog = await dialogTitled(page, 'New global role');
    await dialog.getByTestId('name-field').fill('auditor');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await row(page, 'auditor').waitFor();
    await page.getByRole('tab', { name: 'Role bindings' }).click();
    await page.getByRole('button', { name: 'New global role binding' }).click();
    dialog = await dialogTitled(page, 'New global role binding');
    await dialog.getByTestId('name-field').fill('auditors');
    await dialog.getByLabel('Role').click();
    await page.getByRole('option', { name: 'auditor', exact: true }).click();
    await dialog.getByLabel('Users').click();
    await page.getByRole('option', { name: 'auditor' }).click();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await row(page, 'auditors').waitFor();
    expect((await stack.api('GET', '/api/v1/globalrolebindings/auditors')).body.spec).to.deep.equal({
      role: 'auditor',
      subjects: [{ kind: 'User', name: 'auditor' }],
    });
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('creates a user, resets their password, and deletes them', async () => {
    const { page } = w;
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'New user' }).click();
    let dialog = await dialogTitled(page, 'New user');
    await dialog.getByTestId('name-field').fill('carol');
    await dialog.getByLabel('First name').fill('Carol');
    await dialog.getByLabel('Password').fill('first-password');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await row(page, 'carol').waitFor();
    expect((await login('carol', 'first-password')).status).to.equal(200);

    await page.getByRole('button', { name: 'Actions for carol' }).click();
    await page.getByRole('menuitem', { name: 'Edit or reset password' }).click();
    dialog = await dialogTitled(page, /Edit user/);
    await dialog.getByLabel('New password').fill('second-password');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await login('carol', 'first-password')).status).to.equal(400);
    expect((await login('carol', 'second-password')).status).to.equal(200);
    // editing her name without typing a password keeps it
    await page.getByRole('button', { name: 'Actions for carol' }).click();
    await page.getByRole('menuitem', { name: 'Edit or reset password' }).click();
    dialog = await dialogTitled(page, /Edit user/);
    await dialog.getByLabel('Last name').fill('Jones');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await login('carol', 'second-password')).status).to.equal(200);

    await page.getByRole('button', { name: 'Actions for carol' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    dialog = await dialogTitled(page, /Delete user/);
    await waitFor('the consequences', async () => (await dialog.getByTestId('delete-consequences').innerText()).includes('sessions end'));
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await row(page, 'carol').waitFor({ state: 'detached' });
    expect((await login('carol', 'second-password')).status).to.equal(400);
    await w.screenshot('admin-users');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('shows no administration to a user without global permissions, and no failing calls', async () => {
    await signUp(stack.s, 'plain');
    const other = await openPage(stack.s.url);
    try {
      await signIn(other, 'plain', 'plain-password');
      await other.page.goto('/');
      await other.page.getByText('No projects yet').waitFor();
      expect(await other.page.getByRole('link', { name: 'Admin' }).count()).to.equal(0);
      await other.page.goto('/admin');
      await other.page.getByText('You may not manage any global object.').waitFor();
      expect(other.errors, other.errors.join('\n')).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });

  it('shows the auditor (global read) the tabs without any button to change them', async () => {
    const other = await openPage(stack.s.url);
    try {
      await signIn(other, 'auditor', 'auditor-password');
      await other.page.goto('/admin');
      await other.page.getByRole('tab', { name: 'Datasources' }).waitFor();
      await row(other.page, 'shared-prometheus').waitFor();
      expect(await other.page.getByRole('button', { name: /^New / }).count()).to.equal(0);
      await other.page.getByRole('button', { name: 'Actions for shared-prometheus' }).click();
      await other.page.getByRole('menuitem').first().waitFor();
      expect(await other.page.getByRole('menuitem').allInnerTexts()).to.deep.equal(['History', 'View JSON/YAML']);
      expect(other.errors, other.errors.join('\n')).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });
});
