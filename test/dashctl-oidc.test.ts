import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { AUTH_ENV } from './helpers/auth.js';
import { startOidcProvider, type TestOidcProvider } from './helpers/oidc-provider.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const BIN = join(PACKAGE_ROOT, 'dist', 'cli', 'bin', 'dashctl.js');

/** dashctl login against a real OIDC provider (oidc-provider on loopback). */
describe('dashctl login through an OIDC provider', function () {
  this.timeout(60_000);
  let idp: TestOidcProvider;
  let s: TestServer;
  const dir = tempDir('dashctl-oidc-');
  const cfg = join(dir.path, 'config.json');

  before(async () => {
    idp = await startOidcProvider({ accounts: [{ sub: 'u-dana', preferred_username: 'dana', email: 'dana@corp.example', email_verified: true }] });
    s = await startTestServer({
      env: {
        ...AUTH_ENV,
        DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([{ slug_id: 'corp', name: 'Corp', client_id: idp.clientId, client_secret: idp.clientSecret, issuer: idp.issuer }]),
      },
    });
  });
  after(async () => {
    await s.stop();
    await idp.stop();
    dir.remove();
  });

  function run(args: string[], onStderr?: (text: string) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, DASHCTL_CONFIG: cfg, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => {
        stderr += b.toString();
        onStderr?.(stderr);
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

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
