import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { editorContent, setEditorText } from './helpers/editor.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

const TEXT = `kind: Dashboard
metadata:
  name: d
  project: p
spec:
  display:
    name: D
  duration: 1h
  panels:
    cpu:
      kind: Panel
      spec:
        display:
          name: CPU
        plugin:
          kind: TimeSeriesChart
          spec:
            legend:
              position: bottom
  layouts:
    - kind: Grid
      spec:
        items:
          - x: 0
            y: 0
            width: 12
            height: 6
            content:
              $ref: "#/spec/panels/cpu"
`;

/** Puts the cursor at the end of a 1-based line. */
async function endOfLine(page: Page, line: number): Promise<void> {
  await editorContent(page).click();
  await page.keyboard.press('Control+Home');
  for (let i = 1; i < line; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
}

const completions = (page: Page) => page.locator('.cm-tooltip-autocomplete li');

/** The resource editor: CodeMirror with highlighting, folding, brackets, and completion and hover from the server's schemas. */
describe('web UI resource editor (Chromium, CodeMirror + JSON Schema)', function () {
  needsPrograms('chromium');
  this.timeout(60_000);
  let s: TestServer;
  let w: WatchedPage;

  before(async () => {
    s = await startTestServer();
    await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} });
    const r = await s.api('POST', '/api/v1/projects/p/dashboards', {
      kind: 'Dashboard',
      metadata: { name: 'd' },
      spec: { display: { name: 'D' }, duration: '1h', panels: {}, layouts: [] },
    });
    expect(r.status, r.text).to.equal(200);
    w = await openPage(s.url);
  });

  after(async () => {
    await w?.close();
    await s?.stop();
  });

  it('highlights YAML and labels the editor for screen readers', async () => {
    const { page } = w;
    await page.goto('/projects/p/dashboards/d/edit');
    await waitFor('the text', async () =>
      (
        await editorContent(page)
          .innerText()
          .catch(() => '')
      ).includes('kind: Dashboard'),
    );
    await setEditorText(page, TEXT);
    expect(await editorContent(page).getAttribute('aria-label')).to.equal('Dashboard d as YAML');
    const first = page.locator('.cm-line').first();
    // CodeMirror highlights when its parser gets idle time: on a loaded machine, after the text is set
    await first
      .locator('span', { hasText: /^kind$/ })
      .first()
      .waitFor();
    const plain = await first.evaluate((e) => getComputedStyle(e).color);
    const colours = await first.locator('span').evaluateAll((spans) => spans.map((e) => `${e.textContent}=${getComputedStyle(e).color}`));
    // the key is drawn in its own colour, not the text's
    const key = colours.find((c) => c.startsWith('kind='));
    expect(key, colours.join(' ')).to.not.equal(undefined);
    expect(key!.split('=')[1]).to.not.equal(plain);
  });

  it("completes keys from the kind's schema, with their descriptions", async () => {
    const { page } = w;
    await endOfLine(page, 8); // "  duration: 1h"
    await page.keyboard.press('Enter');
    await page.keyboard.type('refre');
    const option = completions(page).filter({ hasText: 'refreshInterval' });
    await option.waitFor();
    await page.locator('.cm-completionInfo').filter({ hasText: 'A duration such as' }).waitFor();
    await w.screenshot('editor-completion');
    await option.click();
    await page.keyboard.type('30s');
    expect(await editorContent(page).innerText()).to.contain('  refreshInterval: 30s');
  });

  it("completes inside a plugin spec from the plugin's schema, keys and enumerated values", async () => {
    const { page } = w;
    await endOfLine(page, 20); // "              position: bottom" (one line was added above)
    await page.keyboard.press('Enter');
    await page.keyboard.type('mo');
    await completions(page).filter({ hasText: /^mode/ }).waitFor();
    expect(await completions(page).allInnerTexts()).to.satisfy(
      (l: string[]) => l.some((t) => t.startsWith('mode')) && !l.some((t) => t.startsWith('position')),
    );
    await completions(page).filter({ hasText: /^mode/ }).click();
    await page.keyboard.press('Control+Space');
    await waitFor(
      'the allowed values',
      async () => (await completions(page).allInnerTexts()).map((t) => t.trim()).join(',') === 'list,table',
    );
    await page.keyboard.type('ta');
    await waitFor('only "table" left', async () => (await completions(page).allInnerTexts()).map((t) => t.trim()).join(',') === 'table');
    // a click (Enter is ignored for a moment after the list changes, so fast typing is not taken as a choice)
    await completions(page).filter({ hasText: 'table' }).click();
    await page.getByTestId('save').click();
    await waitFor('the saved message', async () =>
      /Saved: version 1/.test(
        await page
          .getByTestId('editor-message')
          .innerText()
          .catch(() => ''),
      ),
    ).catch(async (e) => {
      await w.screenshot('failed-editor-save');
      throw new Error(
        `${(e as Error).message}: ${await page
          .getByTestId('editor-message')
          .innerText()
          .catch(() => '')} ${await editorContent(page).innerText()}`,
      );
    });
    const saved = (await s.api('GET', '/api/v1/projects/p/dashboards/d')).body;
    expect(saved.spec.refreshInterval).to.equal('30s');
    expect(saved.spec.panels.cpu.spec.plugin.spec.legend).to.deep.equal({ position: 'bottom', mode: 'table' });
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('explains a field when its key is hovered', async () => {
    const { page } = w;
    await page.goto('/projects/p/dashboards/d/edit');
    const line = page.locator('.cm-line').filter({ hasText: /^ {2}duration: 1h$/ });
    await line.waitFor();
    await line.hover({ position: { x: 40, y: 6 } });
    const tip = page.locator('.cm-schema-hover');
    await tip.waitFor();
    expect(await tip.innerText())
      .to.contain('duration: string')
      .and.to.contain('A duration such as');
    await w.screenshot('editor-hover');
  });

  it('folds a block, and matches brackets in JSON', async () => {
    const { page } = w;
    const panels = page.locator('.cm-line').filter({ hasText: /^ {2}panels:$/ });
    await panels.click();
    await page.keyboard.press('Control+Shift+BracketLeft');
    await page.locator('.cm-foldPlaceholder').waitFor();
    expect(await page.locator('.cm-line').filter({ hasText: 'kind: TimeSeriesChart' }).count()).to.equal(0);
    await page.getByRole('button', { name: 'JSON' }).click();
    await waitFor('the JSON text', async () => (await editorContent(page).innerText()).startsWith('{'));
    expect(await editorContent(page).getAttribute('aria-label')).to.equal('Dashboard d as JSON');
    await editorContent(page).click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowRight'); // just after the opening brace
    await page.locator('.cm-matchingBracket').first().waitFor();
    // completion works on JSON too
    const metadata = page.locator('.cm-line').filter({ hasText: /^ {2}"metadata": \{$/ });
    await metadata.click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('"ta');
    await completions(page).filter({ hasText: 'tags' }).click();
    expect(await page.locator('.cm-activeLine').innerText()).to.equal('    "tags": ');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });
});
