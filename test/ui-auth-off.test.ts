import { expect } from 'chai';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** The UI as `npm start` serves it: auth off, no sign-in, straight to the projects. */
describe('web UI with authentication off (Chromium)', function () {
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
});
