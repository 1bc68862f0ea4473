import { expect } from 'chai';
import { bearer, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import type { TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

/** The admin page of the web UI (issue 20): groups, service accounts, API tokens with a one-time display, the audit log. */
describe('web UI: teams, tokens and audit page (Chromium)', function () {
  needsPrograms('chromium');
  this.timeout(120_000);
  let s: TestServer;
  let w: WatchedPage;

  before(async () => {
    s = await startAuthServer();
    const admin = bearer(await loginAdmin(s));
    const post = async (path: string, body: unknown) => expect((await s.api('POST', path, body, admin)).status, path).to.equal(200);
    // a group lists users that exist
    for (const name of ['alice', 'bob']) await signUp(s, name);
    await post('/api/v1/groups', { kind: 'Group', metadata: { name: 'sre' }, spec: { members: ['alice', 'bob'] } });
    await post('/api/v1/globalserviceaccounts', { kind: 'GlobalServiceAccount', metadata: { name: 'backup' }, spec: {} });
    w = await openPage(s.url);
    await w.page.goto('/signin?redirect=/admin/access');
    await w.page.getByLabel('User name').fill('admin');
    await w.page.getByLabel('Password').fill('admin-password');
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    await w.page.getByRole('heading', { name: 'Teams, tokens and audit' }).waitFor();
    w.errors.length = 0; // the 401s of the page asking who is signed in before the sign-in
  });
  after(async () => {
    await w?.close();
    await s?.stop();
  });

  it('shows groups and service accounts; creates a token shown once, which works, then revokes it; shows the audit log with filters', async () => {
    const { page } = w;
    await page.getByRole('table', { name: 'groups' }).getByRole('cell', { name: 'alice, bob' }).waitFor();
    await page.getByRole('table', { name: 'service accounts' }).getByRole('cell', { name: 'backup' }).waitFor();
    await page.getByLabel('Token name').fill('from-the-ui');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = await page.getByTestId('new-token').locator('code').innerText();
    expect(shown).to.match(/^dp_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect((await s.api('GET', '/api/v1/user/whoami', undefined, bearer(shown))).status).to.equal(200);
    const row = page.getByRole('table', { name: 'tokens' }).getByRole('row').filter({ hasText: 'from-the-ui' });
    await row.waitFor();
    expect(await row.innerText(), 'the list never shows the secret').to.not.include(shown.slice(20));
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await s.api('GET', '/api/v1/user/whoami', undefined, bearer(shown))).status).to.equal(401);
    const audit = page.getByRole('table', { name: 'audit log' });
    await page.getByLabel('Kind').fill('Group');
    await waitFor('the audit log filtered to groups', async () => (await audit.getByRole('row').count()) === 2, 10_000, 100);
    expect(await audit.innerText())
      .to.include('Group/sre')
      .and.include('admin');
    expect(w.errors, 'no console or page errors').to.deep.equal([]);
  });

  it('tells a refused token until the next call, and keeps Create token off while its call runs', async () => {
    const { page } = w;
    const create = page.getByRole('button', { name: 'Create token' });
    const refusal = page.getByRole('alert').filter({ hasText: 'must be a positive duration' });
    await page.getByLabel('Token name').fill('held');
    await page.getByLabel('Expires in').fill('soon');
    await create.click();
    await refusal.waitFor();
    expect(await page.getByLabel('Token name').inputValue(), 'a refused name stays in its field').to.equal('held');
    // hold the next creation's request until the page has been looked at
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let asked = false;
    await page.route('**/api/v1/user/tokens', async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      asked = true;
      await held;
      return route.fallback();
    });
    try {
      const before = await page.getByTestId('new-token').locator('code').innerText();
      await page.getByLabel('Expires in').fill('1h');
      await create.click();
      await waitFor('the creation under way', async () => asked);
      // the request is held, so the button is off while it runs (the page may draw that a moment after sending)
      await waitFor('Create token off while its call runs', () => create.isDisabled());
      expect(await refusal.count(), 'the refusal is dropped as the next call starts').to.equal(0);
      release();
      await waitFor('the new token shown', async () => (await page.getByTestId('new-token').locator('code').innerText()) !== before);
      await page.getByRole('table', { name: 'tokens' }).getByRole('row').filter({ hasText: 'held' }).waitFor();
    } finally {
      release();
      await page.unroute('**/api/v1/user/tokens');
    }
    // the browser logs the refusal's 400 itself
    const others = w.errors.filter((e) => !/Failed to load resource: the server responded with a status of 400/.test(e));
    expect(others, 'no other console or page errors').to.deep.equal([]);
  });
});
