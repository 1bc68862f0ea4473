/**
 * A save from Perses' edit mode changes exactly what the user changed (issue 35): imported Grafana
 * dashboards edited in Chromium, each save compared with the version before it as the server
 * stores them (GET .../versions/N). Perses rewrites a dashboard as it loads it (packed grid rows,
 * a list default unwrapped, links dropped, its own key order); none of that may reach the store.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { needsPrograms } from './helpers/programs.js';
import { parse as parseYaml } from 'yaml';
import { skipWithoutCorpus } from './helpers/corpus.js';
import { GRAFANA_CORPUS } from './helpers/grafana-corpus.js';
import { enterEditMode, renamePanel, saveDashboard } from './helpers/perses-edit.js';
import { changedPaths } from '../ui/src/minimal-save.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

type Json = any;
interface Box {
  i: string;
  x: number;
  y: number;
  w: number;
  h: number;
}
const rgl = createRequire(import.meta.url)('react-grid-layout/build/utils') as {
  compact(l: Box[], type: 'vertical', cols: number): Box[];
  correctBounds(l: Box[], b: { cols: number }): Box[];
};
/** Where Perses' grid shows a group's items (react-grid-layout's packing, 24 columns). */
const shown = (group: Json): Box[] =>
  rgl.compact(
    rgl.correctBounds(
      group.spec.items.map((it: Json) => ({ i: it.content.$ref, x: it.x, y: it.y, w: it.width, h: it.height })),
      { cols: 24 },
    ),
    'vertical',
    24,
  );

const FIXTURE = join(process.cwd(), 'test/data/grafana/mysql-overview-save.json');
/** Real dashboards from the corpus: links and list defaults (haproxy), two rows (processes), a layout repeat (MongoDB). */
const GRAFANA_FILES = [
  'rfmoz__grafana-dashboards__prometheus_haproxy.json',
  'percona__grafana-dashboards__dashboards_OS_Processes_Details.json',
  'percona__grafana-dashboards__dashboards_MongoDB_MongoDB_Collections_Overview.json',
];

/** Perses-native dashboards: the Demo (short stat panels, collapsed rows, its own datasource), a node-exporter and a Kubernetes mixin. */
const PERSES_FILES = [
  'perses/dev/data/9-dashboard.json',
  'community-mixins/examples/dashboards/perses/node-exporter/node-exporter-nodes.yaml',
  'community-mixins/examples/dashboards/perses/kubernetes/kubernetes-cluster-resources-overview.yaml',
];

describe('web UI: a save from the dashboard editor stores only the edit (Chromium, imported and applied dashboards)', function () {
  needsPrograms('chromium');
  this.timeout(180_000);
  let s: TestServer;
  let w: WatchedPage;
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await s.api(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const base = (name: string) => `/api/v1/projects/imports/dashboards/${name}`;
  const version = async (name: string, v: number) => {
    const { metadata: _m, ...rest } = await api('GET', `${base(name)}/versions/${v}`);
    return rest;
  };
  /** Imports a Grafana dashboard as the Import page does (POST /api/migrate, then create). */
  const importGrafana = async (name: string, grafana: Json, adjust: (d: Json) => void = () => undefined) => {
    const migrated = await api('POST', '/api/migrate?project=imports', { grafanaDashboard: grafana });
    migrated.metadata = { name, project: 'imports' };
    adjust(migrated);
    await api('POST', '/api/v1/projects/imports/dashboards', migrated);
    return migrated;
  };
  const open = async (name: string) => {
    await w.page.goto(`/projects/imports/dashboards/${name}`);
    await w.page.getByTestId('dashboard-toolbar').waitFor();
  };
  /** In edit mode, gives a variable another display label with Perses' variable editor. */
  const relabelVariable = async (variable: string, label: string) => {
    const { page } = w;
    await enterEditMode(page);
    await page.getByRole('button', { name: 'Edit variables' }).click();
    const table = page.getByRole('table', { name: 'table of variables' });
    const row = table.getByRole('row').filter({ hasText: variable }).first();
    await row.getByRole('button').nth(2).click(); // up, down, edit, delete
    await page.getByRole('textbox', { name: 'Display Label' }).fill(label);
    await page.getByRole('button', { name: 'Apply', exact: true }).first().click();
    await table.waitFor();
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await table.waitFor({ state: 'detached' });
  };

  before(async () => {
    s = await startTestServer();
    await api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'imports' }, spec: {} });
    // a default Prometheus that answers nothing: the panels' data does not matter here
    await api('POST', '/api/v1/projects/imports/datasources', {
      kind: 'Datasource',
      metadata: { name: 'prometheus', project: 'imports' },
      spec: {
        default: true,
        plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: 'http://127.0.0.1:9' } } } },
      },
    });
    w = await openPage(s.url);
  });

  after(async () => {
    await w?.close();
    await s?.stop();
  });

  describe('the MySQL dashboard of test/data (always run)', () => {
    const name = 'mysql';
    before(async () => {
      // as a dashctl apply of its YAML leaves it: the list default in a list, which Perses unwraps
      await importGrafana(name, JSON.parse(readFileSync(FIXTURE, 'utf8')), (d) => {
        d.spec.variables[0].spec.defaultValue = ['$__all'];
      });
    });

    it('renames one panel: the new version differs from the previous one in that title only', async () => {
      await open(name);
      await enterEditMode(w.page);
      await renamePanel(w.page, 'Uptime', 'MySQL Uptime');
      await saveDashboard(w.page, 1);
      expect(changedPaths(await version(name, 0), await version(name, 1))).to.deep.equal(['spec.panels.0_0.spec.display.name']);
      const stored = await version(name, 1);
      expect(stored.spec.variables[0].spec.defaultValue, 'the stored list default').to.deep.equal(['$__all']);
      expect(stored.spec.links, 'links, which Perses drops').to.have.length(1);
      expect(stored.spec.layouts[0].spec.items[0].y, 'rows as stored (Perses packs them to 0)').to.equal(1);
      // the history page agrees: one change
      await w.page.goto(`/projects/imports/dashboards/${name}/history`);
      await w.page.getByRole('radio', { name: 'compare version 0 on the left' }).check();
      await w.page.getByRole('radio', { name: 'compare version 1 on the right' }).check();
      await waitFor('the summary', async () =>
        (await w.page.getByTestId('diff-summary').innerText()).startsWith('1 change: 1 line removed, 1 added'),
      );
    });

    it('moves one panel into the free place beside it: only its column changes, in the stored rows', async () => {
      await open(name);
      await enterEditMode(w.page);
      const handle = w.page.getByRole('button', { name: 'move panel MySQL Thread Activity', exact: true });
      const from = (await handle.boundingBox())!;
      const grid = (await w.page.locator('.react-grid-layout').first().boundingBox())!;
      await w.page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await w.page.mouse.down();
      await w.page.mouse.move(from.x + from.width / 2 + grid.width / 2, from.y + from.height / 2, { steps: 12 });
      await w.page.mouse.up();
      await saveDashboard(w.page, 2);
      const [before, after] = [await version(name, 1), await version(name, 2)];
      expect(changedPaths(before, after)).to.deep.equal(['spec.layouts[0].spec.items[3].x']);
      expect(after.spec.layouts[0].spec.items[3]).to.deep.include({ x: 12, y: 9 });
    });

    it("changes a variable's label: only that label changes, its list default stays as stored", async () => {
      await open(name);
      await relabelVariable('instance', 'MySQL instance');
      await saveDashboard(w.page, 3);
      const [before, after] = [await version(name, 2), await version(name, 3)];
      expect(changedPaths(before, after)).to.deep.equal(['spec.variables[0].spec.display.name']);
      expect(after.spec.variables[0].spec.defaultValue).to.deep.equal(['$__all']);
    });

    it('adds a panel: the new panel and its grid item, nothing else', async () => {
      await open(name);
      await enterEditMode(w.page);
      await w.page.getByRole('button', { name: 'Add panel' }).first().click();
      await w.page.getByRole('textbox', { name: 'Name' }).fill('MySQL Notes');
      await w.page.getByRole('combobox', { name: 'Type' }).first().click();
      await w.page.getByRole('option', { name: 'Markdown', exact: true }).click();
      await w.page.getByRole('button', { name: 'Add', exact: true }).click();
      await w.page.getByRole('textbox', { name: 'Name' }).waitFor({ state: 'detached' });
      await saveDashboard(w.page, 4);
      const [before, after] = [await version(name, 3), await version(name, 4)];
      const changed = changedPaths(before, after);
      const newKey = Object.keys(after.spec.panels).find((k) => !(k in before.spec.panels))!;
      expect(after.spec.panels[newKey].spec.display.name).to.equal('MySQL Notes');
      expect(changed.filter((p) => !p.startsWith(`spec.panels.${newKey}`))).to.deep.equal([
        `spec.layouts[0].spec.items[${before.spec.layouts[0].spec.items.length}]`,
      ]);
      expect(w.errors.filter((e) => !/Failed to load resource|proxy/.test(e))).to.deep.equal([]);
    });
  });

  describe('real dashboards of the Grafana corpus', () => {
    before(function () {
      skipWithoutCorpus(this, 'corpus-grafana');
      for (const f of GRAFANA_FILES) expect(existsSync(join(GRAFANA_CORPUS, 'dashboards', f)), `${f} in the corpus`).to.equal(true);
    });

    for (const [k, file] of GRAFANA_FILES.entries()) {
      it(`${file}: renaming its first panel changes that title only`, async () => {
        const name = `corpus-${k}`;
        const imported = await importGrafana(name, JSON.parse(readFileSync(join(GRAFANA_CORPUS, 'dashboards', file), 'utf8')));
        const firstRef = imported.spec.layouts[0].spec.items[0].content.$ref.split('/').pop();
        const title = imported.spec.panels[firstRef].spec.display.name;
        await open(name);
        await enterEditMode(w.page);
        await renamePanel(w.page, title, `${title} (renamed)`);
        await saveDashboard(w.page, 1);
        expect(changedPaths(await version(name, 0), await version(name, 1))).to.deep.equal([`spec.panels.${firstRef}.spec.display.name`]);
      });
    }

    it(`${GRAFANA_FILES[0]}: changing a variable's label changes that label only (its absent default stays absent)`, async () => {
      const name = 'corpus-0';
      await open(name);
      const before = await version(name, 1);
      await relabelVariable(before.spec.variables[0].spec.name, 'Host name');
      await saveDashboard(w.page, 2);
      expect(changedPaths(before, await version(name, 2))).to.deep.equal(['spec.variables[0].spec.display.name']);
    });

    it(`${GRAFANA_FILES[1]}: moving a panel changes only the positions of the panels the grid shows elsewhere`, async () => {
      const name = 'corpus-1';
      await open(name);
      await enterEditMode(w.page);
      const before = await version(name, 1);
      const firstRef = before.spec.layouts[0].spec.items[0].content.$ref.split('/').pop();
      const handle = w.page.getByRole('button', { name: `move panel ${before.spec.panels[firstRef].spec.display.name}`, exact: true });
      const from = (await handle.boundingBox())!;
      // one panel height down: it swaps rows with the panels under it
      const panelHeight = (await w.page.locator('.react-grid-item').first().boundingBox())!.height;
      await w.page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await w.page.mouse.down();
      await w.page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 + panelHeight * 1.2, { steps: 12 });
      await w.page.mouse.up();
      await saveDashboard(w.page, 2);
      const after = await version(name, 2);
      const changed = changedPaths(before, after);
      expect(changed.length, 'something moved').to.be.greaterThan(0);
      for (const p of changed) expect(p).to.match(/^spec\.layouts\[0\]\.spec\.items\[\d+\]\.[xy]$/);
      // a stored position changed exactly where the grid shows the panel elsewhere
      const [was, is] = [shown(before.spec.layouts[0]), shown(after.spec.layouts[0])];
      before.spec.layouts[0].spec.items.forEach((_it: Json, i: number) => {
        const moved = was[i].x !== is[i].x || was[i].y !== is[i].y;
        expect(
          changed.some((p) => p.startsWith(`spec.layouts[0].spec.items[${i}].`)),
          `item ${i}`,
        ).to.equal(moved);
      });
    });
  });
  describe('real dashboards of the Perses corpus (as dashctl apply stores them)', () => {
    let dir: string;
    /** A Perses dashboard of the corpus, stored as it is (apart from its name and project), the way dashctl apply stores it. */
    const load = (file: string): Json => {
      const text = readFileSync(join(dir, file), 'utf8');
      const doc = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
      return Array.isArray(doc) ? doc[0] : doc;
    };
    before(function () {
      dir = skipWithoutCorpus(this, 'corpus');
    });

    for (const [k, file] of PERSES_FILES.entries()) {
      it(`${file}: renaming the first panel of its first group changes that title only`, async () => {
        const name = `perses-${k}`;
        const doc = load(file);
        doc.metadata = { name, project: 'imports' };
        await api('POST', '/api/v1/projects/imports/dashboards', doc);
        const stored = await version(name, 0);
        const firstRef = stored.spec.layouts[0].spec.items[0].content.$ref.split('/').pop();
        const title = stored.spec.panels[firstRef].spec.display.name;
        await open(name);
        await enterEditMode(w.page);
        await renamePanel(w.page, title, `${title} (renamed)`);
        await saveDashboard(w.page, 1);
        expect(changedPaths(stored, await version(name, 1))).to.deep.equal([`spec.panels.${firstRef}.spec.display.name`]);
      });
    }

    it(`${PERSES_FILES[1]}: changing a variable's label changes that label only`, async () => {
      const name = 'perses-1';
      await open(name);
      const before = await version(name, 1);
      await relabelVariable(before.spec.variables[0].spec.name, 'Node');
      await saveDashboard(w.page, 2);
      expect(changedPaths(before, await version(name, 2))).to.deep.equal(['spec.variables[0].spec.display.name']);
    });
  });
});
