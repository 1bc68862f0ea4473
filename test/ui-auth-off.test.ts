import { expect } from 'chai';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { needsPrograms } from './helpers/programs.js';

/** The UI as `npm start` serves it: auth off, no sign-in, straight to the projects. */
describe('web UI with authentication off (Chromium)', function () {
  needsPrograms('chromium');
  this.timeout(60_000);
  let s: TestServer;
  let w: WatchedPage;

  before(async function () {
    this.timeout(60_000);
    s = await startTestServer();
    await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'demo' }, spec: { display: { name: 'Demo project' } } });
    w = await openPage(s.url);
  });

  after(async () => {
    await w?.close();
    await s?.stop();
  });

  it('opens on the projects without asking anyone to sign in, with no errors', async () => {
    const { page } = w;
    await page.goto('/');
    await page.getByTestId('project-row').first().waitFor();
    expect(await page.getByTestId('project-row').innerText()).to.contain('Demo project');
    expect(new URL(page.url()).pathname).to.equal('/');
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).to.equal(0);
    await page.getByRole('link', { name: 'Demo project' }).click();
    await page.waitForURL(/\/projects\/demo$/);
    await page.getByText('No dashboards in this project.').waitFor();
    await w.screenshot('auth-off-projects');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('offers no personal API tokens (there are no users), and makes no call that would fail', async () => {
    const { page } = w;
    w.errors.length = 0;
    await page.goto('/admin/access');
    await page.getByText('Authentication is off on this server: there are no users, so no personal API tokens.').waitFor();
    expect(await page.getByRole('button', { name: 'Create token' }).count()).to.equal(0);
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it("shows the project's and the global variables on a dashboard (everything is readable)", async () => {
    const { page } = w;
    const text = (value: string) => ({ kind: 'TextVariable', spec: { value } });
    const created = async (path: string, body: unknown) => expect((await s.api('POST', path, body)).status, path).to.equal(200);
    await created('/api/v1/projects/demo/variables', { kind: 'Variable', metadata: { name: 'env', project: 'demo' }, spec: text('node') });
    await created('/api/v1/globalvariables', { kind: 'GlobalVariable', metadata: { name: 'region' }, spec: text('eu') });
    await created('/api/v1/projects/demo/dashboards', {
      kind: 'Dashboard',
      metadata: { name: 'vars', project: 'demo' },
      spec: { duration: '1h', panels: {}, layouts: [] },
    });
    const lists: string[] = [];
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (/^\/api\/v1\/(projects\/demo\/variables|globalvariables)$/.test(path)) lists.push(path);
    });
    await page.goto('/projects/demo/dashboards/vars');
    expect(await page.getByTestId('variable-env').locator('input').inputValue()).to.equal('node');
    expect(await page.getByTestId('variable-region').locator('input').inputValue()).to.equal('eu');
    expect(lists.sort()).to.deep.equal(['/api/v1/globalvariables', '/api/v1/projects/demo/variables']);
    page.removeAllListeners('request');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('creates a project and a dashboard, stars it, and finds it on the home page (one anonymous profile)', async () => {
    const { page } = w;
    await page.goto('/');
    await page.getByRole('button', { name: 'New project' }).click();
    let dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Display name').fill('Open house');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/projects\/open-house$/);
    await page.getByRole('button', { name: 'New dashboard' }).click();
    dialog = page.getByRole('dialog', { name: 'New dashboard' });
    await dialog.getByLabel('Display name').fill('Lobby');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/projects\/open-house\/dashboards\/lobby/);
    await page.getByRole('button', { name: 'Star', exact: true }).click();
    await page.getByRole('button', { name: 'Unstar' }).waitFor();
    await page.getByRole('link', { name: 'Home' }).click();
    await page.getByTestId('starred-item').first().waitFor();
    expect(await page.getByTestId('starred').innerText()).to.contain('Lobby');
    expect((await s.api('GET', '/api/v1/user/profile')).body.starred.map((r: { name: string }) => r.name)).to.deep.equal(['lobby']);
    await w.screenshot('auth-off-home');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });
});
