import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { resourceRow, rowMenu, signIn, startUiStack, type UiStack } from './helpers/ui-stack.js';
import { needsPrograms } from './helpers/programs.js';

/** A dashboard of one Markdown panel (nothing to query: the player is what is checked). */
const dashboard = (name: string, title: string, tags: string[] = []) => ({
  kind: 'Dashboard',
  metadata: { name, project: 'wall', tags },
  spec: {
    display: { name: title },
    duration: '1h',
    panels: {
      text: {
        kind: 'Panel',
        spec: { display: { name: `${title} panel` }, plugin: { kind: 'Markdown', spec: { text: `This is ${title}` } } },
      },
    },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/text' } }] } }],
  },
});

/** The name of the dashboard the player shows. */
const playing = (page: Page) => page.getByTestId('played-dashboard').getAttribute('data-name');

/** Waits until the player shows `name`, and says how long that took. */
async function waitForPlaying(page: Page, name: string, timeoutMs = 20_000): Promise<number> {
  const from = Date.now();
  await page.locator(`[data-testid="played-dashboard"][data-name="${name}"]`).waitFor({ timeout: timeoutMs });
  await page
    .getByRole('heading', { name: / panel$/ })
    .first()
    .waitFor();
  return Date.now() - from;
}

/** Playlists (docs/ui.md): made with their form in a project's Playlists tab, played full screen in kiosk mode. */
describe('web UI: playlists (Chromium, auth on)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(180_000);
  let stack: UiStack;
  let w: WatchedPage;
  let page: Page;

  before(async function () {
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    await stack.project('wall', 'Wall');
    for (const d of [dashboard('beta', 'Beta', ['tv']), dashboard('alpha', 'Alpha', ['tv']), dashboard('gamma', 'Gamma')])
      await stack.api('POST', '/api/v1/projects/wall/dashboards', d);
    w = await openPage(stack.s.url);
    page = w.page;
    await signIn(w, 'admin', 'admin-password');
  });

  after(async () => {
    await w?.close();
    await stack?.stop();
  });

  it("is made with its form in the project's Playlists tab: a tag, a dashboard, their order", async () => {
    await page.goto('/projects/wall');
    await page.getByRole('tab', { name: 'Playlists' }).click();
    await page.getByRole('button', { name: 'New playlist' }).click();
    const dialog = page.getByRole('dialog', { name: 'New playlist' });
    await dialog.getByLabel('Display name').fill('Lobby');
    await dialog.getByLabel('Interval').fill('5s');
    await dialog.getByRole('button', { name: 'Add a dashboard' }).click();
    await dialog.getByRole('combobox', { name: 'Dashboard' }).click();
    await page.getByRole('option', { name: 'Gamma' }).click();
    await dialog.getByRole('button', { name: 'Add a tag' }).click();
    expect(await dialog.getByLabel('Every dashboard tagged').inputValue()).to.equal('tv');
    await dialog.getByRole('button', { name: 'move tag tv up' }).click();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'detached' });
    const stored = (await stack.api('GET', '/api/v1/projects/wall/playlists/lobby')).body.spec;
    expect(stored).to.deep.equal({ display: { name: 'Lobby' }, interval: '5s', items: [{ tag: 'tv' }, { dashboard: { name: 'gamma' } }] });
    expect(await resourceRow(page, 'lobby').innerText()).to.include('2 items, each shown 5s');
  });

  it("Play shows it in kiosk mode, each dashboard for the interval (a tag's by title); Space pauses, ← → and the bar step; Escape leaves kiosk; Stop goes back", async () => {
    await page.goto('/projects/wall?tab=playlists');
    await page.getByRole('link', { name: 'Play lobby' }).click();
    await page.waitForURL(/\/projects\/wall\/playlists\/lobby\/play\?kiosk$/);
    await waitForPlaying(page, 'alpha');
    expect(await page.getByRole('banner').isVisible()).to.equal(false);
    expect(await page.getByTestId('dashboard-toolbar').isVisible()).to.equal(false);
    expect(await page.getByTestId('player-position').innerText()).to.equal('1 of 3 · every 5s');
    await w.screenshot('playlists-01-playing');
    // the interval: Beta comes after about 5 s, by itself
    const took = await waitForPlaying(page, 'beta');
    expect(took).to.be.within(3000, 15_000);

    await page.keyboard.press('Space');
    await page.getByTestId('player-position').filter({ hasText: 'paused' }).waitFor();
    await page.keyboard.press('ArrowRight');
    await waitForPlaying(page, 'gamma');
    await page.keyboard.press('ArrowRight');
    await waitForPlaying(page, 'alpha');
    await page.keyboard.press('ArrowLeft');
    await waitForPlaying(page, 'gamma');
    expect(await playing(page)).to.equal('gamma');
    expect(await page.getByTestId('player-position').innerText()).to.equal('3 of 3 · every 5s · paused');
    // each dashboard starts from its own time range: nothing of the last one's is left in the URL
    expect(new URL(page.url()).searchParams.get('start')).to.equal('1h');

    await page.mouse.move(200, 200);
    const bar = page.getByRole('toolbar', { name: 'playlist' });
    await bar.getByRole('button', { name: 'next dashboard' }).click();
    await waitForPlaying(page, 'alpha');
    await bar.getByRole('button', { name: 'play', exact: true }).click();
    expect(await page.getByTestId('player-position').innerText()).to.equal('1 of 3 · every 5s');
    // Space on the focused bar button is that button's press, not a second toggle
    await page.keyboard.press('Space');
    await page.getByTestId('player-position').filter({ hasText: 'paused' }).waitFor();
    await page.keyboard.press('Space');
    expect(await page.getByTestId('player-position').innerText()).to.equal('1 of 3 · every 5s');
    await waitForPlaying(page, 'beta');

    await page.keyboard.press('Escape');
    await page.getByRole('banner').waitFor();
    expect(new URL(page.url()).searchParams.has('kiosk')).to.equal(false);
    await bar.getByRole('button', { name: 'stop the playlist' }).click();
    await page.waitForURL(/\/projects\/wall\?tab=playlists$/);
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('skips a dashboard that no longer exists and says so; a playlist with nothing to play says why', async () => {
    await stack.api('POST', '/api/v1/projects/wall/playlists', {
      kind: 'Playlist',
      metadata: { name: 'gaps' },
      spec: { interval: '1m', items: [{ dashboard: { name: 'gone' } }, { dashboard: { name: 'gamma' } }] },
    });
    await page.goto('/projects/wall/playlists/gaps/play');
    await waitForPlaying(page, 'gamma');
    const position = page.getByTestId('player-position');
    expect(await position.innerText()).to.equal('1 of 1 · every 1m · 1 skipped');
    await stack.api('POST', '/api/v1/projects/wall/playlists', {
      kind: 'Playlist',
      metadata: { name: 'empty' },
      spec: { interval: '1m', items: [{ tag: 'none' }, { dashboard: { name: 'gone' } }] },
    });
    await page.goto('/projects/wall/playlists/empty/play');
    const alert = await page.getByTestId('player-empty').innerText();
    expect(alert).to.equal(
      'Nothing to play in “empty”: the dashboards tagged "none" in wall: there are none; dashboard wall/gone: it does not exist',
    );
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('deleting a dashboard warns that the playlists naming it will skip it', async () => {
    await page.goto('/projects/wall');
    await rowMenu(page, 'gamma', 'Delete');
    const dialog = page.getByRole('dialog');
    await dialog.getByText('playlists show it').waitFor();
    expect(await dialog.getByTestId('delete-consequences').innerText()).to.include(
      '2 playlists show it and will skip it: “gaps”, “lobby”.',
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });
});
