import { expect } from 'chai';
import { stringify } from 'yaml';
import { bearer, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { setEditorText, editorContent } from './helpers/editor.js';
import type { TestServer } from './helpers/server.js';
import { signIn } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

/** A dashboard of many Markdown panels: a long YAML text. */
function bigDashboard(title: string) {
  const panels: Record<string, unknown> = {};
  const items: unknown[] = [];
  for (let i = 0; i < 30; i++) {
    panels[`p${i}`] = {
      kind: 'Panel',
      spec: { display: { name: `Panel ${i}`, description: `about ${i}` }, plugin: { kind: 'Markdown', spec: { text: `# Panel ${i}` } } },
    };
    items.push({ x: (i % 2) * 12, y: Math.floor(i / 2) * 4, width: 12, height: 4, content: { $ref: `#/spec/panels/p${i}` } });
  }
  return {
    kind: 'Dashboard',
    metadata: { name: 'big', project: 'h' },
    spec: { display: { name: title }, duration: '1h', panels, layouts: [{ kind: 'Grid', spec: { items } }] },
  };
}

/** The same value with the keys of every object in reverse order. */
function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .reverse()
      .map(([k, x]) => [k, reversedKeys(x)]),
  );
}

/** History: a diff that ignores key order and folds what did not change, who and through what on every row, recently deleted with undelete. */
describe('web UI history and recently deleted (Chromium, auth on)', function () {
  needsPrograms('chromium');
  this.timeout(90_000);
  let s: TestServer;
  let admin: Tokens;
  let w: WatchedPage;
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await s.api(method, path, body, { ...bearer(admin), ...headers });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };
  const row = (v: number) => w.page.locator(`[data-testid="version-row"][data-version="${v}"]`);

  before(async () => {
    s = await startAuthServer();
    admin = await loginAdmin(s);
    await api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'h' }, spec: {} });
    await signUp(s, 'eve');
    await signUp(s, 'vic');
    await api('POST', '/api/v1/projects/h/rolebindings', {
      kind: 'RoleBinding',
      metadata: { name: 'eve' },
      spec: { role: 'editor', subjects: [{ kind: 'User', name: 'eve' }] },
    });
    await api('POST', '/api/v1/projects/h/rolebindings', {
      kind: 'RoleBinding',
      metadata: { name: 'vic' },
      spec: { role: 'viewer', subjects: [{ kind: 'User', name: 'vic' }] },
    });
    // version 0 by admin (no manager: api); version 1 by admin through dashctl, every key in another order and one real change
    await api('POST', '/api/v1/projects/h/dashboards', bigDashboard('Big'));
    const v1 = reversedKeys(bigDashboard('Big (renamed)'));
    await api('PUT', '/api/v1/projects/h/dashboards/big', v1, { 'X-Dashplane-Manager': 'dashctl' });
    w = await openPage(s.url);
  });

  after(async () => {
    await w?.close();
    await s?.stop();
  });

  it('saves a version from the editor as eve, through web-ui', async () => {
    const eve = await openPage(s.url);
    try {
      await signIn(eve, 'eve', 'eve-password');
      await eve.page.goto('/projects/h/dashboards/big/edit');
      await waitFor('the text', async () =>
        (
          await editorContent(eve.page)
            .innerText()
            .catch(() => '')
        ).includes('kind: Dashboard'),
      );
      const current = (await api('GET', '/api/v1/projects/h/dashboards/big')).body;
      current.spec.duration = '6h';
      await setEditorText(eve.page, stringify(current));
      await eve.page.getByTestId('save').click();
      // version 1 came through dashctl: the editor asks first
      await eve.page.getByRole('dialog', { name: 'Save over the version from Git?' }).getByRole('button', { name: 'Save anyway' }).click();
      await waitFor('saved', async () =>
        /Saved: version 2/.test(
          await eve.page
            .getByTestId('editor-message')
            .innerText()
            .catch(() => ''),
        ),
      );
    } finally {
      await eve.close();
    }
  });

  it('names the author and the field manager of every version, the current one included', async () => {
    const { page } = w;
    await signIn(w, 'admin', 'admin-password');
    await page.goto('/projects/h/dashboards/big/history');
    await waitFor('three versions', async () => (await page.getByTestId('version-row').count()) === 3);
    await waitFor('the current author', async () => (await row(2).getByTestId('version-by').innerText()) === 'eve');
    const cells = async (v: number) => [
      await row(v).getByTestId('version-by').innerText(),
      await row(v).getByTestId('version-manager').innerText(),
    ];
    expect(await cells(2)).to.deep.equal(['eve', 'web-ui']);
    expect(await cells(1)).to.deep.equal(['admin', 'dashctl']);
    expect(await cells(0)).to.deep.equal(['admin', 'api']);
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('shows one change for one change, whatever the key order, and folds the unchanged lines', async () => {
    const { page } = w;
    // as stored, versions 0 and 1 differ on most lines (every key moved)
    const [a, b] = await Promise.all(
      [0, 1].map(async (v) => stringify((await api('GET', `/api/v1/projects/h/dashboards/big/versions/${v}`)).body).split('\n')),
    );
    expect(a.filter((l, i) => l !== b[i]).length, 'raw YAML lines that differ').to.be.greaterThan(100);
    await page.getByRole('radio', { name: 'compare version 0 on the left' }).check();
    await page.getByRole('radio', { name: 'compare version 1 on the right' }).check();
    await waitFor(
      'the summary',
      async () => (await page.getByTestId('diff-summary').innerText()) === '1 change: 1 line removed, 1 added (key order is ignored).',
    );
    expect(await page.locator('[data-diff="changed"]').count()).to.equal(1);
    const changed = await page.locator('[data-diff="changed"]').innerText();
    expect(changed).to.contain('name: Big').and.to.contain('name: Big (renamed)');
    // unchanged lines are folded, with three lines of context on each side of the change
    const folds = page.getByTestId('diff-fold');
    expect(await folds.count()).to.equal(1); // the 6 lines above the change are all shown; the ~480 below are folded
    expect(Number(/(\d+) unchanged lines/.exec(await folds.innerText())?.[1])).to.be.greaterThan(400);
    expect(await page.locator('[data-diff="same"]').count()).to.equal(9);
    await w.screenshot('history-diff-folded');
    const before = await page.locator('[data-diff="same"]').count();
    await folds.first().click();
    await waitFor('the unfolded lines', async () => (await page.locator('[data-diff="same"]').count()) > before);
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('lists a deleted dashboard under Recently deleted, shows its history, and restores it', async () => {
    const { page } = w;
    await page.goto('/projects/h');
    await page.getByRole('button', { name: 'Actions for big' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Recently deleted').waitFor();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: 'Recently deleted' }).click();
    const deleted = page.locator('[data-testid="deleted-row"][data-name="big"]');
    await deleted.waitFor();
    // by its title, its name beside it
    expect((await deleted.innerText()).split('\t').map((c) => c.trim())).to.include.members([
      'Big (renamed)big',
      'Dashboard',
      '2',
      'eve',
      'web-ui',
    ]);
    await w.screenshot('history-recently-deleted');
    await deleted.getByRole('link', { name: 'History' }).click();
    await page.waitForURL(/\/projects\/h\/dashboards\/big\/history$/);
    await page.getByTestId('deleted-banner').waitFor();
    await waitFor('three versions', async () => (await page.getByTestId('version-row').count()) === 3);
    expect(await page.getByTestId('restore-2').innerText()).to.match(/^restore \(undelete\)$/i);
    await page.goBack();
    await page.getByRole('button', { name: 'Restore Big (renamed)' }).click();
    await page.getByTestId('undeleted').waitFor();
    expect(await page.getByTestId('undeleted').innerText()).to.contain('as version 3');
    const back = (await api('GET', '/api/v1/projects/h/dashboards/big')).body;
    expect(back.metadata.version).to.equal(3);
    expect(back.spec.duration).to.equal('6h');
    await deleted.waitFor({ state: 'detached' });
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('shows a viewer what was deleted, without a restore button', async () => {
    await api('DELETE', '/api/v1/projects/h/dashboards/big');
    const vic = await openPage(s.url);
    try {
      await signIn(vic, 'vic', 'vic-password');
      await vic.page.goto('/projects/h?tab=deleted');
      await vic.page.locator('[data-testid="deleted-row"][data-name="big"]').waitFor();
      expect(await vic.page.getByRole('button', { name: /^Restore / }).count()).to.equal(0);
      expect(vic.errors, vic.errors.join('\n')).to.deep.equal([]);
    } finally {
      await vic.close();
    }
  });

  it('undeletes a global datasource from the administration page', async () => {
    const { page } = w;
    await api('POST', '/api/v1/globaldatasources', {
      kind: 'GlobalDatasource',
      metadata: { name: 'shared' },
      spec: { plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://prom.example:9090' } } },
    });
    await api('DELETE', '/api/v1/globaldatasources/shared');
    await page.goto('/admin?tab=deleted');
    await page.locator('[data-testid="deleted-row"][data-name="shared"]').waitFor();
    expect(
      await page.getByText('You may not manage any global object.').count(),
      'an administrator is not told she may manage nothing',
    ).to.equal(0);
    await page.getByRole('button', { name: 'Restore shared' }).click();
    await page.getByTestId('undeleted').waitFor();
    expect((await api('GET', '/api/v1/globaldatasources/shared')).body.spec.plugin.spec.directUrl).to.equal('http://prom.example:9090');
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });
});
