import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { corpusDashboards, hasGrafanaCorpus, NO_CORPUS } from './helpers/grafana-corpus.js';
import { panelSection, signIn, startUiStack, waitForPanelData, type UiStack, resourceRow, rowMenu } from './helpers/ui-stack.js';
import { needsPrograms } from './helpers/programs.js';
import { waitFor } from './helpers/wait.js';

/** A Grafana dashboard of the corpus with five stat panels 2 grid rows high and a `$ds_prometheus` datasource variable. */
const BSD = 'rfmoz__grafana-dashboards__prometheus_node-exporter-bsd.json';

/** A dashboard with a multi-value variable (a default of two values) and one without a default. */
const VARIABLES_DASHBOARD = {
  kind: 'Dashboard',
  metadata: { name: 'hosts', project: 'fixes' },
  spec: {
    display: { name: 'Hosts' },
    duration: '1h',
    variables: [
      {
        kind: 'ListVariable',
        spec: {
          name: 'host',
          allowMultiple: true,
          defaultValue: ['b', 'a'],
          plugin: { kind: 'StaticListVariable', spec: { values: ['a', 'b', 'c'] } },
        },
      },
      { kind: 'ListVariable', spec: { name: 'zone', plugin: { kind: 'StaticListVariable', spec: { values: ['eu', 'us'] } } } },
    ],
    panels: {
      note: { kind: 'Panel', spec: { display: { name: 'Note' }, plugin: { kind: 'Markdown', spec: { text: 'hosts $host in $zone' } } } },
    },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 6, height: 4, content: { $ref: '#/spec/panels/note' } }] } }],
  },
};

/** Enters Perses' edit mode and presses Save (Perses then asks about defaults, or saves). */
async function editAndSave(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
}

/**
 * The small items of issue 35, each in Chromium against a real server (and a real Prometheus for
 * the imported dashboard): short panels, the datasource picker, the Save dialog, titles in the
 * delete dialog and Recently deleted, the datasource list, Move to folder, Import's JSON errors,
 * the home page's layout.
 */
describe('web UI: small fixes of issue 35 (Chromium, auth on, real Prometheus)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(180_000);
  let stack: UiStack;
  let w: WatchedPage;
  /** The name the bsd dashboard was imported under (its Grafana uid). */
  let bsd = '';

  before(async function () {
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    await stack.project('fixes', 'Fixes');
    await stack.api('POST', '/api/v1/projects/fixes/dashboards', VARIABLES_DASHBOARD);
    w = await openPage(stack.s.url);
    await signIn(w, 'admin', 'admin-password');
    if (hasGrafanaCorpus()) {
      const grafana = corpusDashboards().find((d) => d.file === BSD)!.json;
      const migrated = (await stack.api('POST', '/api/migrate?project=fixes', { grafanaDashboard: grafana })).body;
      bsd = migrated.metadata.name;
      await stack.api('POST', '/api/v1/projects/fixes/dashboards', migrated);
    }
  });

  after(async () => {
    await w?.close();
    await stack?.stop();
  });

  describe('an imported Grafana dashboard (corpus)', () => {
    before(function () {
      if (!hasGrafanaCorpus()) {
        console.log(`      ${NO_CORPUS}`);
        this.skip();
      }
    });

    it('a stat panel 2 grid rows high (Grafana h: 2) shows its value in a readable font, not clipped: its header is compact', async () => {
      const { page } = w;
      await page.goto(`/projects/fixes/dashboards/${bsd}?start=5m&refresh=5s`);
      for (const title of ['Uptime', 'CPU Cores']) {
        await waitForPanelData(w, title);
        await panelSection(w, title).locator('figure h3').waitFor();
        const box = await panelSection(w, title).evaluate((section) => {
          const value = section.querySelector('figure h3') as HTMLElement;
          const figure = section.querySelector('figure')!.getBoundingClientRect();
          const v = value.getBoundingClientRect();
          return {
            font: Number.parseFloat(getComputedStyle(value).fontSize),
            panel: section.getBoundingClientRect().height,
            top: v.top - figure.top,
            bottom: figure.bottom - v.bottom,
          };
        });
        expect(box.panel, title).to.be.below(80);
        // under Perses' 47 px header the value was drawn at 16 px; with the compact one, at 35 px
        expect(box.font, `${title}: ${JSON.stringify(box)}`).to.be.at.least(28);
        expect(Math.min(box.top, box.bottom), `${title} clipped: ${JSON.stringify(box)}`).to.be.at.least(-1);
      }
      await w.screenshot('small-fixes-01-short-stats');
    });

    it('a migrated $datasource variable is a picker of the project datasources: picking another sends the panels, the variables and Explore there', async () => {
      await stack.api('POST', '/api/v1/projects/fixes/datasources', {
        kind: 'Datasource',
        metadata: { name: 'second-prometheus' },
        spec: {
          plugin: {
            kind: 'PrometheusDatasource',
            spec: { scrapeInterval: '1s', proxy: { kind: 'HTTPProxy', spec: { url: stack.prom.url } } },
          },
        },
      });
      const { page } = w;
      const asked: string[] = [];
      page.on('request', (r) => {
        const m = /\/proxy\/projects\/fixes\/datasources\/([^/]+)\/api\/v1\/(query_range|query|label\/[^/]+\/values|series)/.exec(
          new URL(r.url()).pathname,
        );
        if (m) asked.push(`${m[1]} ${m[2]}`);
      });
      await page.goto(`/projects/fixes/dashboards/${bsd}?start=5m&refresh=0s`);
      await waitForPanelData(w, 'Uptime');
      expect(asked.filter((a) => a.startsWith('prometheus-datasource ')).length).to.be.above(0);
      expect(asked.filter((a) => a.startsWith('second-prometheus '))).to.deep.equal([]);
      // the Grafana variable's label, "datasource"
      const picker = page.getByRole('combobox', { name: 'datasource', exact: true });
      await picker.click();
      const options = await page.getByRole('option').allInnerTexts();
      expect(options).to.include.members(['prometheus-datasource', 'second-prometheus']);
      await page.getByRole('option', { name: 'second-prometheus', exact: true }).click();
      await page.waitForURL(/var-ds_prometheus=second-prometheus/);
      await waitFor(
        'the panels and the job variable to ask the second datasource',
        () => asked.some((a) => a === 'second-prometheus query_range') && asked.some((a) => a.startsWith('second-prometheus label/job')),
        60_000,
        100,
      );
      await waitForPanelData(w, 'Uptime');
      // Explore, from the panel, gets the datasource picked (it has no such variable)
      const cpu = panelSection(w, 'CPU');
      await cpu.getByRole('heading', { name: 'CPU', exact: true }).hover();
      const href = await cpu.getByRole('link', { name: 'Explore CPU' }).getAttribute('href');
      const explored = JSON.parse(new URL(href!, stack.s.url).searchParams.get('data')!).queries[0].spec.plugin.spec;
      expect(explored.datasource).to.deep.equal({ kind: 'PrometheusDatasource', name: 'second-prometheus' });
      expect(explored.query).not.to.match(/\$(node|job)\b/);
      expect(
        w.errors.filter((e) => !e.includes('the server responded with a status of')),
        w.errors.join('\n'),
      ).to.deep.equal([]);
    });
  });

  it('Save with nothing changed saves without asking; asked about defaults, no box is ticked, and only what differs is offered', async () => {
    const { page } = w;
    await page.goto('/projects/fixes/dashboards/hosts');
    await page.getByTestId('dashboard-version').filter({ hasText: 'version 0' }).waitFor();
    // Perses counted the multi-value variable as changed (lists compared by identity) and asked, both boxes ticked;
    // now it saves without asking, and a save that changes nothing makes no version
    await editAndSave(page);
    await page.getByTestId('update-notice').filter({ hasText: 'Nothing changed: version 0 stays as it was.' }).waitFor();
    expect(await page.getByRole('dialog').count()).to.equal(0);

    await page.goto('/projects/fixes/dashboards/hosts?start=6h&var-host=a&var-host=b');
    await editAndSave(page);
    const dialog = page.getByRole('dialog', { name: 'Save Dashboard' });
    const timeBox = dialog.getByRole('checkbox', { name: /time range/ });
    const variablesBox = dialog.getByRole('checkbox', { name: /variable values/ });
    expect(await timeBox.isChecked()).to.equal(false);
    expect(await timeBox.isEnabled()).to.equal(true);
    // the same two hosts in another order are no change
    expect(await variablesBox.isChecked()).to.equal(false);
    expect(await variablesBox.isEnabled()).to.equal(false);
    expect(await dialog.innerText()).to.include('none changed');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();

    await page.goto('/projects/fixes/dashboards/hosts?start=1h&var-host=c&var-zone=us');
    await editAndSave(page);
    expect(await variablesBox.isChecked()).to.equal(false);
    expect(await variablesBox.isEnabled()).to.equal(true);
    expect(await dialog.innerText()).to.include('(host, zone)');
    await variablesBox.check();
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByTestId('dashboard-version').filter({ hasText: 'version 1' }).waitFor();
    const saved = (await stack.api('GET', '/api/v1/projects/fixes/dashboards/hosts')).body.spec;
    expect(saved.duration).to.equal('1h');
    expect(saved.variables.map((v: { spec: { defaultValue?: unknown } }) => v.spec.defaultValue)).to.deep.equal([['c'], 'us']);
  });

  it('the delete dialog and Recently deleted name a dashboard by its title, its name beside it', async () => {
    await stack.api('POST', '/api/v1/projects/fixes/dashboards', {
      kind: 'Dashboard',
      metadata: { name: 'T512JVH7z' },
      spec: { display: { name: 'Node Exporter BSD' }, duration: '1h', panels: {}, layouts: [] },
    });
    const { page } = w;
    await page.goto('/projects/fixes');
    await rowMenu(page, 'T512JVH7z', 'Delete');
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByRole('heading').innerText()).to.equal('Delete dashboard “Node Exporter BSD” (T512JVH7z)?');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await resourceRow(page, 'T512JVH7z').waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: 'Recently deleted' }).click();
    const deleted = page.locator('[data-testid="deleted-row"][data-name="T512JVH7z"]');
    const name = deleted.getByRole('cell').first();
    expect(await name.innerText()).to.match(/^Node Exporter BSD/);
    expect(await name.locator('.MuiTypography-caption').innerText()).to.equal('T512JVH7z');
    expect(await deleted.getByRole('button', { name: 'Restore Node Exporter BSD' }).count()).to.equal(1);
  });

  it("the datasource list shows each datasource's URL and which one is the default", async () => {
    const { page } = w;
    await page.goto('/projects/fixes?tab=datasources');
    await resourceRow(page, 'prometheus-datasource').waitFor();
    const cells = await resourceRow(page, 'prometheus-datasource').getByRole('cell').allInnerTexts();
    expect(cells).to.include(`${stack.prom.url} (through the proxy)`);
    expect(cells).to.include('default');
    const headers = await page.getByRole('table', { name: 'datasources' }).getByRole('columnheader').allInnerTexts();
    expect(headers).to.include.members(['URL', 'Default']);
  });

  it('Move to folder with no folder chosen cannot be pressed, and says why', async () => {
    await stack.api('POST', '/api/v1/projects/fixes/folders', {
      kind: 'Folder',
      metadata: { name: 'ops' },
      spec: { display: { name: 'Operations' }, items: [] },
    });
    const { page } = w;
    await page.goto('/projects/fixes');
    await rowMenu(page, 'hosts', 'Move to folder');
    const dialog = page.getByRole('dialog', { name: 'Move “hosts” to a folder' });
    expect(await dialog.getByRole('button', { name: 'Move' }).isDisabled()).to.equal(true);
    expect(await dialog.innerText()).to.include('It is in no folder: choose the folder to move it to.');
    await dialog.getByRole('combobox', { name: 'Folder' }).click();
    await page.getByRole('option', { name: 'Operations' }).click();
    await dialog.getByRole('button', { name: 'Move' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await stack.api('GET', '/api/v1/projects/fixes/folders/ops')).body.spec.items).to.deep.equal([
      { kind: 'Dashboard', name: 'hosts' },
    ]);
  });

  it("broken JSON pasted into Import is told in JSON's words, with its line and column", async () => {
    const { page } = w;
    await page.goto('/projects/fixes/import');
    await page.getByLabel('dashboard text').fill('{\n  "title": "x",\n  "panels": [}\n}');
    await page.getByTestId('import-preview').click();
    const error = await page.getByTestId('error').innerText();
    expect(error).to.equal('The text is not valid JSON: unexpected "}" at line 3, column 14.');
    expect(error).not.to.match(/YAML|flow|collection|mapping/i);
  });

  it('the home page does not move when the user\'s permissions arrive ("New project" shows with the list)', async () => {
    const fresh = await openPage(stack.s.url);
    try {
      await signIn(fresh, 'admin', 'admin-password');
      // every position the first project's row takes, from its first frame on
      await fresh.page.addInitScript(() => {
        const w = window as unknown as { tops: number[] };
        w.tops = [];
        const watch = () => {
          const top = document.querySelector('[data-testid="project-row"]')?.getBoundingClientRect().top;
          if (top !== undefined && w.tops[w.tops.length - 1] !== top) w.tops.push(top);
          requestAnimationFrame(watch);
        };
        requestAnimationFrame(watch);
      });
      // the permissions answer after the list of projects, as they can on a busy server
      const listed = fresh.page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/projects');
      await fresh.page.route('**/api/v1/users/admin/permissions', async (route) => {
        const answer = await route.fetch();
        await listed;
        await route.fulfill({ response: answer });
      });
      await fresh.page.goto('/');
      await fresh.page.getByRole('button', { name: 'New project' }).waitFor();
      await fresh.page.getByTestId('starred').or(fresh.page.getByText('Nothing starred yet')).first().waitFor();
      const tops = await fresh.page.evaluate(() => (window as unknown as { tops: number[] }).tops);
      expect(tops, 'the first project row moved').to.have.length(1);
    } finally {
      await fresh.close();
    }
  });
});
