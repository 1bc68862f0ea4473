import { expect } from 'chai';
import { startAuthServer } from './helpers/auth.js';
import { openPage, type WatchedPage } from './helpers/browser.js';
import { startOidcProvider, type TestOidcProvider } from './helpers/oidc-provider.js';
import type { TestServer } from './helpers/server.js';
import { needsPrograms } from './helpers/programs.js';

/** Signing in to the web UI through a real OpenID Connect provider (oidc-provider on loopback). */
describe('web UI sign-in with an OIDC provider (Chromium)', function () {
  needsPrograms('chromium');
  this.timeout(60_000);
  let idp: TestOidcProvider;
  let s: TestServer;
  let w: WatchedPage;

  before(async function () {
    this.timeout(60_000);
    idp = await startOidcProvider({
      accounts: [{ sub: 'u-dana', preferred_username: 'dana', email: 'dana@corp.example', email_verified: true }],
    });
    s = await startAuthServer({
      DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([
        { slug_id: 'corp', name: 'Corp SSO', client_id: idp.clientId, client_secret: idp.clientSecret, issuer: idp.issuer },
      ]),
    });
    idp.allowRedirectUri(`${s.url}/api/auth/providers/oidc/corp/callback`);
    w = await openPage(s.url);
  });

  after(async () => {
    await w?.close();
    await s?.stop();
    await idp?.stop();
  });

  it('shows one button per provider; the provider login brings the user back signed in, where they were going', async () => {
    const { page } = w;
    await page.goto('/projects/some-project?tab=variables');
    await page.waitForURL(/\/signin\?redirect=/);
    const button = page.getByRole('link', { name: 'Sign in with Corp SSO' });
    await button.waitFor();
    await w.screenshot('oidc-01-signin-with-provider');
    await button.click();
    // the provider's own pages: who, then consent
    await page.waitForURL((u) => u.origin === idp.issuer);
    await page.locator('input[name="login"]').fill('u-dana');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.origin === s.url && u.pathname === '/projects/some-project');
    expect(new URL(page.url()).search).to.equal('?tab=variables');
    await page.getByTestId('current-user').waitFor();
    expect(await page.getByTestId('current-user').innerText()).to.equal('dana');
    await w.screenshot('oidc-02-signed-in');
  });
});
