import { expect } from 'chai';
import { join } from 'node:path';
import { AUTH_ENV } from './helpers/auth.js';
import { dashctl, type Run } from './helpers/dashctl.js';
import { startOidcProvider, type TestOidcProvider } from './helpers/oidc-provider.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/** dashctl login against a real OIDC provider (oidc-provider on loopback). */
describe('dashctl login through an OIDC provider', function () {
  this.timeout(60_000);
  let idp: TestOidcProvider;
  let s: TestServer;
  const dir = tempDir('dashctl-oidc-');
  const cfg = join(dir.path, 'config.json');

  before(async () => {
    idp = await startOidcProvider({
      accounts: [{ sub: 'u-dana', preferred_username: 'dana', email: 'dana@corp.example', email_verified: true }],
    });
    s = await startTestServer({
      env: {
        ...AUTH_ENV,
        DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([
          { slug_id: 'corp', name: 'Corp', client_id: idp.clientId, client_secret: idp.clientSecret, issuer: idp.issuer },
        ]),
      },
    });
  });
  after(async () => {
    await s.stop();
    await idp.stop();
    dir.remove();
  });

  const run = (args: string[], onStderr?: (text: string) => void): Promise<Run> => dashctl(cfg, args, { onStderr });

  it('device code: prints the verification URL and user code, waits for approval, then is logged in', async () => {
    let approved = false;
    const done = run(['login', s.url, '--provider', 'corp'], (text) => {
      const code = /code: (\S+)/.exec(text)?.[1];
      if (code && !approved) {
        approved = true;
        void idp.approveDevice(code, 'u-dana');
      }
    });
    const r = await done;
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(/open http:\/\/127\.0\.0\.1:\d+\/device/);
    const who = await run(['whoami']);
    expect(who.code, who.stderr).to.equal(0);
    expect(who.stdout).to.include('dana');
  });

  it('client credentials: a CI job logs in with its own client and acts as that client', async () => {
    const r = await run(['login', s.url, '--provider', 'corp', '--client-id', idp.robotId, '--client-secret', idp.robotSecret]);
    expect(r.code, r.stderr).to.equal(0);
    await waitFor('whoami as the robot', async () => (await run(['whoami'])).stdout.includes(idp.robotId), 10_000);
    const bad = await run(['login', s.url, '--provider', 'corp', '--client-id', idp.robotId, '--client-secret', 'wrong']);
    expect(bad.code).to.not.equal(0);
  });
});
