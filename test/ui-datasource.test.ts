import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { freePort } from './helpers/process.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { signIn, startUiStack, type UiStack } from './helpers/ui-stack.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

const row = (page: Page, name: string) => page.locator(`[data-testid="resource-row"][data-name="${name}"]`);

/** The datasource form (Prometheus: URL, proxy or direct, allowed endpoints, headers, secret) and Save & test. */
describe('web UI datasource form and Save & test (Chromium, real Prometheus)', function () {
  needsPrograms('chromium', 'prometheus', 'node-exporter');
  this.timeout(120_000);
  let stack: UiStack;
  let w: WatchedPage;

  before(async function () {
    this.timeout(120_000);
    stack = await startUiStack({ auth: true });
    await stack.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'obs' }, spec: {} });
    await stack.api('POST', '/api/v1/projects/obs/secrets', {
      kind: 'Secret',
      metadata: { name: 'prom-basic' },
      spec: { basicAuth: { username: 'u', password: 'p' } },
    });
    w = await openPage(stack.s.url);
    await signIn(w, 'admin', 'admin-password');
  });

  after(async () => {
    await w?.close();
    await stack?.stop();
  });

  it('creates a proxied Prometheus datasource with endpoints and a header, and Save & test shows the Prometheus version', async () => {
    const { page } = w;
    await page.goto('/projects/obs?tab=datasources');
    await page.getByRole('button', { name: 'New datasource' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'New datasource' }).waitFor();
    await dialog.getByLabel('Display name').fill('Main Prometheus');
    await dialog.getByLabel(/^Default PrometheusDatasource/).check();
    await dialog.getByLabel('Prometheus URL').fill(stack.prom.url);
    await dialog.getByRole('button', { name: 'Allow only what Prometheus panels use' }).click();
    expect(await dialog.getByTestId('endpoint-row').count()).to.equal(8);
    await dialog.getByRole('button', { name: 'Add header' }).click();
    await dialog.getByRole('textbox', { name: 'Header' }).fill('X-Scope-OrgID');
    await dialog.getByRole('textbox', { name: 'Value', exact: true }).fill('team-a');
    await dialog.getByRole('button', { name: 'Save & test' }).click();
    const result = dialog.getByTestId('datasource-test');
    await result.waitFor();
    expect(await result.innerText()).to.match(/^Saved and tested: Prometheus 2\.\d+\.\d+.* answered in \d+ ms\.$/);
    await w.screenshot('datasource-save-and-test');
    const stored = (await stack.api('GET', '/api/v1/projects/obs/datasources/main-prometheus')).body;
    expect(stored.spec.default).to.equal(true);
    expect(stored.spec.plugin.spec.proxy.spec.headers).to.deep.equal({ 'X-Scope-OrgID': 'team-a' });
    expect(stored.spec.plugin.spec.proxy.spec.allowedEndpoints).to.deep.include({
      endpointPattern: '/api/v1/status/buildinfo',
      method: 'GET',
    });
    // the dialog now edits what it saved: another Save & test updates it (version 1)
    await dialog.getByLabel('Display name').fill('Main Prometheus (eu)');
    await dialog.getByRole('button', { name: 'Save & test' }).click();
    await waitFor(
      'the second test',
      async () => (await stack.api('GET', '/api/v1/projects/obs/datasources/main-prometheus')).body.metadata.version === 1,
    );
    await dialog.getByRole('button', { name: 'Close' }).click();
    await waitFor('the row with the new title', async () =>
      (
        await row(page, 'main-prometheus')
          .innerText()
          .catch(() => '')
      ).includes('Main Prometheus (eu)'),
    );
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('shows the exact error when Prometheus cannot be reached, and when the proxy refuses the path', async () => {
    const { page } = w;
    const closed = `http://127.0.0.1:${await freePort()}`;
    await page.goto('/projects/obs?tab=datasources');
    await page.getByRole('button', { name: 'Actions for main-prometheus' }).click();
    await page.getByRole('menuitem', { name: 'Edit', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /Edit datasource/ });
    await dialog.getByLabel('Prometheus URL').fill(closed);
    await dialog.getByRole('button', { name: 'Save & test' }).click();
    const result = dialog.getByTestId('datasource-test');
    await result.waitFor();
    // the very message dashplane's proxy answers
    const direct = await stack.s.api('GET', '/proxy/projects/obs/datasources/main-prometheus/api/v1/status/buildinfo', undefined, {
      authorization: `Bearer ${stack.admin!.access_token}`,
    });
    expect(direct.status).to.equal(502);
    expect(await result.innerText()).to.equal(`Saved, but the test failed: 502 Bad Gateway: ${direct.body.message}`);
    await w.screenshot('datasource-test-unreachable');

    // back to the real URL, without the build-info endpoint among the allowed ones (as Perses'
    // own editor lists them): the test asks with a query the endpoints let through
    await dialog.getByLabel('Prometheus URL').fill(stack.prom.url);
    await dialog.getByRole('button', { name: 'Remove endpoint GET /api/v1/status/buildinfo' }).click();
    await dialog.getByRole('button', { name: 'Save & test' }).click();
    await waitFor('the test through a query', async () =>
      /^Saved and tested: Prometheus answered POST \/api\/v1\/query in \d+ ms\.$/.test(await result.innerText()),
    );
    await dialog.getByRole('button', { name: 'Close' }).click();

    // no endpoint a test can use: the proxy's refusal is shown as it answers
    const auth = { authorization: `Bearer ${stack.admin!.access_token}` };
    const current = (await stack.s.api('GET', '/api/v1/projects/obs/datasources/main-prometheus', undefined, auth)).body;
    current.spec.plugin.spec.proxy.spec.allowedEndpoints = [{ endpointPattern: '/api/v1/series', method: 'GET' }];
    expect((await stack.s.api('PUT', '/api/v1/projects/obs/datasources/main-prometheus', current, auth)).status).to.equal(200);
    await page.reload();
    await page.getByRole('button', { name: 'Actions for main-prometheus' }).click();
    await page.getByRole('menuitem', { name: 'Edit', exact: true }).click();
    const again = page.getByRole('dialog', { name: /Edit datasource/ });
    await again.getByRole('button', { name: 'Save & test' }).click();
    const refused = again.getByTestId('datasource-test');
    await waitFor('the 403', async () => /^Saved, but the test failed: 403 Forbidden: /.test(await refused.innerText().catch(() => '')));
    expect(await refused.innerText()).to.contain('/api/v1/status/buildinfo');
    await again.getByRole('button', { name: 'Close' }).click();
    // these failures are the test's answers, shown in the dialog: the console has only the browser's own failed-load lines
    expect(
      w.errors.filter((e) => !/Failed to load resource: the server responded with a status of (502|403)/.test(e)),
      w.errors.join('\n'),
    ).to.deep.equal([]);
  });

  it('names a secret of the project for the proxy to send', async () => {
    const { page } = w;
    w.errors.length = 0;
    await page.goto('/projects/obs?tab=datasources');
    await page.getByRole('button', { name: 'New datasource' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'New datasource' }).waitFor();
    await dialog.getByTestId('name-field').fill('with-auth');
    await dialog.getByLabel('Prometheus URL').fill(stack.prom.url);
    await dialog.getByLabel('Credentials (secret)').click();
    await page.getByRole('option', { name: 'prom-basic' }).click();
    await dialog.getByRole('button', { name: 'Save & test' }).click();
    await dialog.getByTestId('datasource-test').waitFor();
    expect(await dialog.getByTestId('datasource-test').innerText()).to.match(/^Saved and tested: Prometheus 2\./);
    expect((await stack.api('GET', '/api/v1/projects/obs/datasources/with-auth')).body.spec.plugin.spec.proxy.spec.secret).to.equal(
      'prom-basic',
    );
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('says a direct URL serves other clients, not this web UI, and does not blame the datasource in Save & test', async () => {
    const { page } = w;
    w.errors.length = 0;
    await page.goto('/projects/obs?tab=datasources');
    await page.getByRole('button', { name: 'New datasource' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'New datasource' }).waitFor();
    await dialog.getByTestId('name-field').fill('direct-prom');
    expect(await dialog.getByTestId('direct-url-note').innerText()).to.contain('only through its proxy');
    await dialog.getByRole('button', { name: 'Browser calls it directly' }).click();
    await waitFor('the warning', async () => (await dialog.getByTestId('direct-url-note').innerText()).includes("connect-src 'self'"));
    await dialog.getByLabel('Prometheus URL').fill(stack.prom.url);
    await dialog.getByRole('button', { name: 'Save & test' }).click();
    const result = dialog.getByTestId('datasource-test');
    await result.waitFor();
    const text = await result.innerText();
    expect(text).to.match(new RegExp(`^Saved, not tested: this page cannot call ${stack.prom.url.replace(/[.]/g, '\\.')}: `));
    expect(text).to.contain("Content-Security-Policy (connect-src 'self')").and.not.contain('No answer');
    expect((await stack.api('GET', '/api/v1/projects/obs/datasources/direct-prom')).body.spec.plugin.spec.directUrl).to.equal(
      stack.prom.url,
    );
    await w.screenshot('datasource-direct-url');
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });

  it('edits kinds of datasource without a form (no suggested endpoints) as a YAML spec', async () => {
    const { page } = w;
    await page.getByRole('button', { name: 'New datasource' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'New datasource' }).waitFor();
    await dialog.getByTestId('name-field').fill('clickhouse');
    await dialog.getByLabel('Type').click();
    await page.getByRole('option', { name: 'ClickHouseDatasource' }).click();
    expect(await dialog.getByRole('button', { name: 'Save & test' }).count()).to.equal(0);
    await dialog.getByLabel('ClickHouseDatasource spec').fill(`directUrl: http://clickhouse.example:8123\n`);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await row(page, 'clickhouse').waitFor();
    expect((await stack.api('GET', '/api/v1/projects/obs/datasources/clickhouse')).body.spec.plugin).to.deep.equal({
      kind: 'ClickHouseDatasource',
      spec: { directUrl: 'http://clickhouse.example:8123' },
    });
    expect(w.errors, w.errors.join('\n')).to.deep.equal([]);
  });
});
