import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { signIn, startUiStack, waitForPanelData, type UiStack } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';
import { skipWithoutCorpus } from './helpers/corpus.js';
import { needsPrograms } from './helpers/programs.js';

/** Relative luminance (0 black .. 1 white) of a CSS rgb() colour. */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? ['0', '0', '0']).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours. */
function contrast(a: string, b: string): number {
  const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (l1 + 0.05) / (l2 + 0.05);
}

/**
 * An element's text colour and the colour behind it, as the eye sees them: its translucent
 * backgrounds (a hovered row's tint) and its ancestors' composited down to the first opaque one.
 */
const seenColours = (l: Locator) =>
  l.evaluate((el) => {
    const parse = (c: string) => {
      const m = (c.match(/[\d.]+/g) ?? ['0', '0', '0', '0']).map(Number);
      return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
    };
    const layers: number[][] = [];
    for (let e: Element | null = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] === 1) break;
    }
    let bg = [255, 255, 255];
    for (const c of layers.reverse()) bg = bg.map((v, i) => c[i] * c[3] + v * (1 - c[3]));
    const f = parse(getComputedStyle(el).color);
    const fg = bg.map((v, i) => f[i] * f[3] + v * (1 - f[3]));
    return { fg: `rgb(${fg.join(', ')})`, bg: `rgb(${bg.join(', ')})` };
  });

const bodyColours = (page: Page) =>
  page.evaluate(() => ({ bg: getComputedStyle(document.body).backgroundColor, fg: getComputedStyle(document.body).color }));

/** Dark mode: the OS preference by default, a toggle remembered per user on the server, Perses components following. */
describe('web UI dark mode (Chromium)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(120_000);
  let stack: UiStack;

  before(async function () {
    skipWithoutCorpus(this, 'corpus'); // the Perses Demo dashboard
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    await stack.project('perses', 'Perses demo');
    await stack.demo('perses');
  });

  after(async () => {
    await stack?.stop();
  });

  it('follows the operating system when the user has not chosen, on the sign-in page too', async () => {
    for (const scheme of ['dark', 'light'] as const) {
      const w = await openPage(stack.s.url, { colorScheme: scheme });
      try {
        await w.page.goto('/signin');
        await w.page.getByRole('heading', { name: 'Sign in to dashplane' }).waitFor();
        const { bg, fg } = await bodyColours(w.page);
        if (scheme === 'dark') expect(luminance(bg), bg).to.be.lessThan(0.05);
        else expect(luminance(bg), bg).to.be.greaterThan(0.8);
        expect(contrast(bg, fg), `${fg} on ${bg}`).to.be.greaterThan(7);
        await w.screenshot(`theme-signin-${scheme}`);
        expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
      } finally {
        await w.close();
      }
    }
  });

  it("switches to dark from the app bar, keeps it in the user's profile, and renders Perses dashboards dark", async () => {
    let w: WatchedPage | undefined = await openPage(stack.s.url, { colorScheme: 'light' });
    try {
      await signIn(w, 'admin', 'admin-password');
      await w.page.goto('/');
      await w.page.getByTestId('project-row').first().waitFor();
      expect(luminance((await bodyColours(w.page)).bg)).to.be.greaterThan(0.8);
      await w.page.getByRole('button', { name: 'Colour scheme' }).click();
      await w.page.getByRole('menuitemradio', { name: 'Dark' }).click();
      await waitFor('a dark page', async () => luminance((await bodyColours(w!.page)).bg) < 0.05);
      await waitFor(
        'the preference on the server',
        async () => (await stack.api('GET', '/api/v1/user/profile')).body.preferences.theme === 'dark',
      );
      await w.screenshot('theme-home-dark');
      expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
    } finally {
      await w.close();
    }
    // another browser, whose OS says light: the user's choice wins once signed in
    w = await openPage(stack.s.url, { colorScheme: 'light' });
    try {
      await signIn(w, 'admin', 'admin-password');
      await w.page.goto('/projects/perses/dashboards/Demo?var-job=node&refresh=5s');
      await w.page.getByRole('heading', { name: 'Demo', exact: true }).waitFor();
      await waitFor('a dark page', async () => luminance((await bodyColours(w!.page)).bg) < 0.05);
      const panel = w.page.locator('section[data-testid="panel"]').first();
      await panel.waitFor();
      const panelBg = await panel.evaluate((el) => {
        // the panel's own background, or the nearest ancestor's that is not transparent
        for (let e: Element | null = el; e; e = e.parentElement) {
          const c = getComputedStyle(e).backgroundColor;
          if (c && c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c;
        }
        return '';
      });
      expect(luminance(panelBg), panelBg).to.be.lessThan(0.1);
      const heading = await w.page.getByRole('heading', { name: 'Demo', exact: true }).evaluate((el) => getComputedStyle(el).color);
      expect(contrast(heading, (await bodyColours(w.page)).bg)).to.be.greaterThan(4.5);
      await waitForPanelData(w, 'RAM Total');
      await waitForPanelData(w, 'Legend Example', 'chart');
      await w.screenshot('theme-demo-dark');
      // back to the system's choice
      await w.page.getByRole('button', { name: 'Colour scheme' }).click();
      await w.page.getByRole('menuitemradio', { name: 'Same as the system' }).click();
      await waitFor('a light page', async () => luminance((await bodyColours(w!.page)).bg) > 0.8);
      await waitFor(
        'no preference on the server',
        async () => (await stack.api('GET', '/api/v1/user/profile')).body.preferences.theme === undefined,
      );
      expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
    } finally {
      await w.close();
    }
  });

  it('keeps buttons and small links at WCAG AA contrast (4.5:1) in both modes', async () => {
    // a second version of the Demo, so its history page shows a diff with folded lines
    const demo = (await stack.api('GET', '/api/v1/projects/perses/dashboards/Demo')).body;
    demo.spec.duration = demo.spec.duration === '2h' ? '3h' : '2h';
    await stack.api('PUT', '/api/v1/projects/perses/dashboards/Demo', demo);
    for (const scheme of ['light', 'dark'] as const) {
      const w = await openPage(stack.s.url, { colorScheme: scheme });
      try {
        await signIn(w, 'admin', 'admin-password');
        const check = async (what: string, l: Locator) => {
          await l.waitFor();
          const { fg, bg } = await seenColours(l);
          expect(contrast(fg, bg), `${scheme}: ${what}: ${fg} on ${bg}`).to.be.at.least(4.5);
        };
        await w.page.goto('/');
        await check('New project', w.page.getByRole('button', { name: 'New project' }));
        await w.page.goto('/projects/perses');
        await check('New dashboard', w.page.getByRole('button', { name: 'New dashboard' }));
        await check('Delete project', w.page.getByRole('button', { name: 'Delete project' }));
        await w.page.goto('/admin');
        await check('New global datasource', w.page.getByRole('button', { name: 'New global datasource' }));
        await w.page.goto('/projects/perses/dashboards/Demo/history');
        await check('unchanged lines', w.page.getByTestId('diff-fold').first());
        expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
      } finally {
        await w.close();
      }
    }
  });
});
