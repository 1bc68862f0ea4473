import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { startUiStack, type UiStack } from './helpers/ui-stack.js';
import { needsPrograms } from './helpers/programs.js';

const markdown = (title: string, text: string) => ({
  kind: 'Panel',
  spec: { display: { name: title }, plugin: { kind: 'Markdown', spec: { text } } },
});

/** Two panels and a variable, nothing that needs data: what a link carries is what is checked. */
const DASHBOARD = {
  kind: 'Dashboard',
  metadata: { name: 'shared', project: 'share' },
  spec: {
    display: { name: 'Shared board' },
    duration: '1h',
    variables: [{ kind: 'ListVariable', spec: { name: 'env', plugin: { kind: 'StaticListVariable', spec: { values: ['a', 'b'] } } } }],
    panels: { first: markdown('First panel', 'one in $env'), second: markdown('Second panel', 'two in $env') },
    layouts: [
      {
        kind: 'Grid',
        spec: {
          items: [
            { x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/first' } },
            { x: 12, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/second' } },
          ],
        },
      },
    ],
  },
};

const heading = (page: Page, title: string) => page.getByRole('heading', { name: title, exact: true });

/** Share (a link to what is shown) and kiosk mode (no app chrome) on a dashboard page, in Chromium. */
describe('web UI: share a dashboard, kiosk mode (Chromium)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(120_000);
  let stack: UiStack;
  let w: WatchedPage;
  let page: Page;

  before(async function () {
    this.timeout(120_000);
    stack = await startUiStack({ auth: false });
    await stack.project('share');
    await stack.api('POST', '/api/v1/projects/share/dashboards', DASHBOARD);
    w = await openPage(stack.s.url);
    page = w.page;
    await w.context.grantPermissions(['clipboard-read', 'clipboard-write']);
  });

  after(async () => {
    await w?.close();
    await stack?.stop();
  });

  it('Share: the link holds the time range, refresh and variables; "absolute" makes two instants; one panel in Perses\' view-panel form; copied from the keyboard', async () => {
    const base = `${stack.s.url}/projects/share/dashboards/shared`;
    await page.goto('/projects/share/dashboards/shared?start=3h&refresh=30s&var-env=b&edit=false');
    await heading(page, 'Second panel').waitFor();
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Share “Shared board”' });
    const link = dialog.getByTestId('share-link');
    // the link field has the focus, its text selected
    expect(
      await link.evaluate(
        (e) => e === document.activeElement && (e as HTMLInputElement).selectionEnd === (e as HTMLInputElement).value.length,
      ),
    ).to.equal(true);
    expect(await link.inputValue()).to.equal(`${base}?start=3h&refresh=30s&var-env=b`);

    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    const absolute = new URL(await link.inputValue());
    const [start, end] = [Number(absolute.searchParams.get('start')), Number(absolute.searchParams.get('end'))];
    expect(end - start).to.equal(3 * 3600_000);
    expect(Math.abs(end - Date.now())).to.be.below(60_000);
    expect(absolute.searchParams.get('var-env')).to.equal('b');

    await dialog.getByRole('combobox', { name: 'Panel' }).click();
    await page.getByRole('option', { name: 'Second panel' }).click();
    expect(new URL(await link.inputValue()).searchParams.get('viewPanelRef')).to.equal('{"ref":"second"}');
    await dialog.getByRole('button', { name: 'Copy link' }).focus();
    await page.keyboard.press('Enter');
    await dialog.getByTestId('share-copied').filter({ hasText: 'Link copied.' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).to.equal(await link.inputValue());
    await page.keyboard.press('Escape');

    // Perses' own "view panel" button writes the same form
    await page.goto('/projects/share/dashboards/shared?start=1h&refresh=0s');
    await heading(page, 'Second panel').hover();
    await page.getByRole('button', { name: 'toggle panel Second panel view mode' }).click();
    await page.waitForURL(/viewPanelRef=/);
    expect(new URL(page.url()).searchParams.get('viewPanelRef')).to.equal('{"ref":"second"}');

    // the copied link shows that panel alone, the same instants and the same variable value
    await page.goto(copied);
    await heading(page, 'Second panel').waitFor();
    expect(await heading(page, 'First panel').isVisible()).to.equal(false);
    expect(await page.getByRole('combobox', { name: 'env' }).inputValue()).to.equal('b');
    expect(new URL(page.url()).searchParams.get('start')).to.equal(String(start));
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('Kiosk: ?kiosk hides the app bar, the page header and the toolbar; Escape brings them back, the time range and variables kept; the kiosk button enters it', async () => {
    await page.goto('/projects/share/dashboards/shared?start=3h&refresh=0s&var-env=b&kiosk');
    await heading(page, 'First panel').waitFor();
    expect(await page.getByRole('banner').isVisible()).to.equal(false);
    expect(await page.getByRole('navigation', { name: 'breadcrumb' }).isVisible()).to.equal(false);
    expect(await page.getByTestId('dashboard-toolbar').isVisible()).to.equal(false);
    expect(await page.getByRole('combobox', { name: 'env' }).isVisible()).to.equal(false);
    await w.screenshot('share-01-kiosk');

    await page.keyboard.press('Escape');
    await page.getByRole('banner').waitFor();
    const url = new URL(page.url());
    expect(url.searchParams.has('kiosk')).to.equal(false);
    expect([url.searchParams.get('start'), url.searchParams.get('var-env')]).to.deep.equal(['3h', 'b']);
    expect(await page.getByRole('combobox', { name: 'env' }).inputValue()).to.equal('b');

    await page.getByRole('button', { name: 'kiosk mode' }).click();
    await page.getByRole('banner').waitFor({ state: 'hidden' });
    expect(new URL(page.url()).searchParams.has('kiosk')).to.equal(true);
    expect(await heading(page, 'Second panel').isVisible()).to.equal(true);
  });
});
