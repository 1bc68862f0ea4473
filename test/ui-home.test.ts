import { expect } from 'chai';
import { signUp } from './helpers/auth.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { signIn, startUiStack, type UiStack } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';
import { skipWithoutCorpus } from './helpers/corpus.js';
import { needsPrograms } from './helpers/programs.js';

/** Home: search across projects (Ctrl-K anywhere), starred and recently viewed dashboards kept per user on the server. */
describe('web UI home, search and Ctrl-K (Chromium, auth on)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(120_000);
  let stack: UiStack;
  let w: WatchedPage;

  before(async function () {
    skipWithoutCorpus(this, 'corpus'); // the Perses Demo dashboard
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    await stack.project('perses', 'Perses demo');
    await stack.demo('perses');
    await stack.project('ops', 'Operations');
    w = await openPage(stack.s.url);
    await signIn(w, 'admin', 'admin-password');
  });

  after(async () => {
    await w?.close();
    await stack?.stop();
  });

  it('records a viewed dashboard and a star, and shows both on the home page', async () => {
    const { page } = w;
    await page.goto('/');
    await page.getByText('Nothing starred yet').waitFor();
    await page.getByText('Dashboards you open appear here.').waitFor();
    await page.goto('/projects/perses/dashboards/Demo?var-job=node');
    await page.getByRole('heading', { name: 'Demo', exact: true }).waitFor();
    const star = page.getByRole('button', { name: 'Star', exact: true });
    await star.click();
    await page.getByRole('button', { name: 'Unstar' }).waitFor();
    expect(await page.getByRole('button', { name: 'Unstar' }).getAttribute('aria-pressed')).to.equal('true');
    await page.getByRole('link', { name: 'Home' }).click();
    await page.getByTestId('starred-item').first().waitFor();
    expect(await page.getByTestId('starred').innerText())
      .to.contain('Demo')
      .and.to.contain('perses');
    expect(await page.getByTestId('recent').innerText()).to.contain('Demo');
    await w.screenshot('home');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('shows the same starred and recent dashboards in another browser (kept on the server)', async () => {
    const other = await openPage(stack.s.url);
    try {
      await signIn(other, 'admin', 'admin-password');
      await other.page.goto('/');
      await other.page.getByTestId('starred-item').first().waitFor();
      expect(await other.page.getByTestId('starred').innerText()).to.contain('Demo');
      expect(await other.page.getByTestId('recent').innerText()).to.contain('Demo');
      await other.page.getByTestId('starred').getByRole('link', { name: 'Demo' }).click();
      await other.page.waitForURL(/\/projects\/perses\/dashboards\/Demo/);
      expect(other.errors, other.errors.join('\n')).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });

  it('searches across projects by panel title and by query text, and opens a result with the keyboard', async () => {
    const { page } = w;
    await page.goto('/');
    const box = page.getByRole('combobox', { name: 'Search everything' });
    await box.fill('legend example');
    await page.getByTestId('search-hit').first().waitFor();
    expect(await page.getByTestId('search-hit').count()).to.equal(1);
    expect(await page.getByTestId('search-hit').innerText()).to.contain('Demo');
    expect(await page.getByTestId('search-match').innerText()).to.equal('panel title: Legend Example');
    await box.fill('caddy_http_response');
    await waitFor('the query match', async () =>
      /^query: rate\(caddy_http_response/.test(
        await page
          .getByTestId('search-match')
          .first()
          .innerText()
          .catch(() => ''),
      ),
    );
    await box.fill('operations');
    await waitFor('the project hit', async () =>
      (
        await page
          .getByTestId('search-hit')
          .first()
          .innerText()
          .catch(() => '')
      ).includes('Operations'),
    );
    await w.screenshot('home-search');
    await box.press('Enter');
    await page.waitForURL(/\/projects\/ops$/);
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('opens the search with Ctrl-K from any page; arrows move, Enter opens, Escape closes', async () => {
    const { page } = w;
    await page.goto('/projects/ops');
    await page.getByRole('tab', { name: 'Dashboards', exact: true }).waitFor();
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Search' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.keyboard.press('Control+k');
    const box = dialog.getByRole('combobox', { name: 'Search everything' });
    expect(await box.evaluate((el) => el === document.activeElement)).to.equal(true);
    await page.keyboard.type('perses');
    await waitFor('two hits (the project and the dashboard)', async () => (await dialog.getByTestId('search-hit').count()) >= 2);
    const hits = await dialog.getByTestId('search-hit').allInnerTexts();
    const demoIndex = hits.findIndex((t) => t.includes('Dashboard') && t.includes('Demo'));
    expect(demoIndex, hits.join(' | ')).to.be.greaterThan(-1);
    for (let i = 0; i < demoIndex; i++) await page.keyboard.press('ArrowDown');
    expect(await dialog.getByRole('option', { selected: true }).innerText()).to.contain('Demo');
    await w.screenshot('search-dialog');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/projects\/perses\/dashboards\/Demo(?:\?|$)/); // the page adds its time range to the query at once
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: 'Demo', exact: true }).waitFor();
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('shows another user only their own profile and what they may read', async () => {
    await signUp(stack.s, 'newcomer');
    const other = await openPage(stack.s.url);
    try {
      await signIn(other, 'newcomer', 'newcomer-password');
      await other.page.goto('/');
      await other.page.getByText('Nothing starred yet').waitFor();
      await other.page.getByRole('combobox', { name: 'Search everything' }).fill('demo');
      await other.page.getByTestId('search-empty').waitFor();
      expect(await other.page.getByTestId('search-hit').count()).to.equal(0);
      expect(other.errors, other.errors.join('\n')).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });
});
