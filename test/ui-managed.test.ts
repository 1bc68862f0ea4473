import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { bearer, loginAdmin, startAuthServer, type Tokens } from './helpers/auth.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { dashctl, show } from './helpers/dashctl.js';
import { editorContent, setEditorText } from './helpers/editor.js';
import { renamePanel } from './helpers/perses-edit.js';
import { dashboard as provisioned, project, writeResources } from './helpers/provisioning.js';
import { tempDir, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

const dashboard = (title: string) => ({
  kind: 'Dashboard',
  metadata: { name: 'from-git' },
  spec: {
    display: { name: title },
    duration: '1h',
    panels: { a: { kind: 'Panel', spec: { display: { name: 'Notes' }, plugin: { kind: 'Markdown', spec: { text: `# ${title}` } } } } },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }],
  },
});

/** A dashboard applied with dashctl: a banner says so, and saving over it asks first. */
describe('web UI: managed from Git (Chromium, real dashctl)', function () {
  needsPrograms('chromium');
  this.timeout(120_000);
  let s: TestServer;
  let admin: Tokens;
  let w: WatchedPage;
  const dir = tempDir('dashplane-git-');
  const file = join(dir.path, 'dashboard.yaml');
  const apply = async (title: string, force = false) => {
    writeFileSync(file, stringify(dashboard(title)));
    const r = await dashctl(
      join(dir.path, 'dashctl.json'),
      ['apply', '-f', file, '--create-project', ...(force ? ['--force-conflicts'] : [])],
      {
        env: { DASHCTL_URL: s.url, DASHCTL_TOKEN: admin.access_token, DASHCTL_PROJECT: 'git' },
      },
    );
    expect(r.code, show(r)).to.equal(0);
  };
  const stored = async () => (await s.api('GET', '/api/v1/projects/git/dashboards/from-git', undefined, bearer(admin))).body;
  const banner = () => w.page.getByTestId('managed-banner');
  /** The JSON/YAML editor of a managed object, its banner and its text shown. */
  const openEditor = async (url: string) => {
    await w.page.goto(url);
    await banner().waitFor();
    await waitFor('the text', async () =>
      (
        await editorContent(w.page)
          .innerText()
          .catch(() => '')
      ).includes('kind: Dashboard'),
    );
  };

  before(async () => {
    writeResources(join(dir.path, 'provisioning'), 'prov.yaml', [project('prov'), provisioned('prov', 'provisioned', 'Provisioned')]);
    s = await startAuthServer({ DASHPLANE_PROVISIONING_FOLDERS: JSON.stringify([join(dir.path, 'provisioning')]) });
    admin = await loginAdmin(s);
    await apply('From Git');
    w = await openPage(s.url);
    await signIn(w, 'admin', 'admin-password');
  });

  after(async () => {
    await w?.close();
    await s?.stop();
    dir.remove();
  });

  it('says on the dashboard that it is managed from Git, by whom and through dashctl', async () => {
    const { page } = w;
    await page.goto('/projects/git/dashboards/from-git');
    await banner().waitFor();
    expect(await banner().innerText()).to.match(
      /^Managed from Git by admin through dashctl \(version 0, .*\): a save here will be overwritten by the next forced apply \(a plain apply stops on the conflict\)/,
    );
    await w.screenshot('managed-banner');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it("asks before Perses' edit mode changes it; Cancel keeps the view, Edit anyway saves through web-ui", async () => {
    const { page } = w;
    const dialog = page.getByRole('dialog', { name: 'Edit the version from Git?' });
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await dialog.waitFor();
    expect(await dialog.innerText()).to.contain('admin applied version 0 of this dashboard through dashctl');
    await w.screenshot('managed-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Save', exact: true }).count(), 'still in view mode').to.equal(0);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await dialog.getByRole('button', { name: 'Edit anyway' }).click();
    // a save stores only a change: make one
    await renamePanel(page, 'Notes', 'Notes (edited)');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const perses = page.getByRole('button', { name: 'Save Changes' });
    await waitFor(
      'the save confirmation or the saved notice',
      async () => (await perses.count()) > 0 || (await page.getByTestId('update-notice').count()) > 0,
    );
    if ((await perses.count()) > 0) await perses.click();
    await waitFor('the saved notice', async () =>
      /Saved: version 1/.test(
        await page
          .getByTestId('update-notice')
          .innerText()
          .catch(() => ''),
      ),
    );
    expect((await stored()).metadata.version).to.equal(1);
    // the web UI wrote the current version now: no banner
    await banner().waitFor({ state: 'detached' });
    const managers = (await s.api('GET', '/api/v1/projects/git/dashboards/from-git/managers', undefined, bearer(admin))).body;
    expect(managers[0]).to.deep.include({ version: 1, manager: 'web-ui', updatedBy: 'admin' });
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('shows the banner again as soon as the next (forced) apply arrives, on the open page', async () => {
    await apply('From Git, again', true);
    await w.page
      .getByRole('navigation', { name: 'breadcrumb' })
      .getByRole('heading', { name: 'From Git, again', exact: true })
      .waitFor({ timeout: 15_000 });
    await banner().waitFor();
    expect(await banner().innerText()).to.contain('version 2');
  });

  it('asks before the JSON/YAML editor saves over it too', async () => {
    const { page } = w;
    w.errors.length = 0;
    await openEditor('/projects/git/dashboards/from-git/edit');
    const current = await stored();
    current.spec.display.name = 'Edited in the UI';
    await setEditorText(page, stringify(current));
    await page.getByTestId('save').click();
    const dialog = page.getByRole('dialog', { name: 'Save over the version from Git?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Save anyway' }).click();
    await waitFor('saved', async () =>
      /Saved: version 3/.test(
        await page
          .getByTestId('editor-message')
          .innerText()
          .catch(() => ''),
      ),
    );
    expect((await stored()).spec.display.name).to.equal('Edited in the UI');
    await banner().waitFor({ state: 'detached' });
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it("says on a provisioned dashboard that the server's provisioning manages it, in its own words; the editor asks before saving over it, and Cancel saves nothing", async () => {
    const { page } = w;
    w.errors.length = 0;
    const path = '/api/v1/projects/prov/dashboards/provisioned';
    await waitFor('the provisioned dashboard', async () => (await s.api('GET', path, undefined, bearer(admin))).status === 200);
    await page.goto('/projects/prov/dashboards/provisioned');
    await banner().waitFor();
    expect(await banner().innerText()).to.match(
      /^Provisioned by the server from its provisioning files \(version 0, .*\): a save here is kept, but provisioning then stops updating this dashboard and reports the conflict until its file holds the same change\. Change this dashboard in its provisioning file instead\.$/,
    );
    await w.screenshot('provisioned-banner');
    await openEditor('/projects/prov/dashboards/provisioned/edit');
    const current = (await s.api('GET', path, undefined, bearer(admin))).body;
    current.spec.display.name = 'Edited in the UI';
    await setEditorText(page, stringify(current));
    await page.getByTestId('save').click();
    const dialog = page.getByRole('dialog', { name: 'Save over the provisioned version?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).to.contain(
      "The server provisioned version 0 of this dashboard from a file. Your save becomes the current version, but the file does not have it: provisioning stops updating this dashboard and reports the conflict until the file holds your change (deleting this dashboard brings back the file's version).",
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await s.api('GET', path, undefined, bearer(admin))).body.metadata.version, 'nothing saved').to.equal(0);
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });
});
