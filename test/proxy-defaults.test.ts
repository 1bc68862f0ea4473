/**
 * Safe defaults against server-side request forgery: out of the box the proxy refuses the
 * link-local and cloud metadata addresses where instances get their credentials, whatever form
 * the URL takes; an operator can allow them by setting proxy.denied_networks; and a server whose
 * configuration lets strangers sign up and create projects says so when it starts.
 */
import { expect } from 'chai';
import { AUTH_ENV } from './helpers/auth.js';
import { spawnServer, stopChild } from './helpers/process.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';

const METADATA_URLS = [
  'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'http://169.254.169.254.',
  'http://2852039166/', // 169.254.169.254 as one number
  'http://0xa9fea9fe/',
  'http://[::ffff:169.254.169.254]/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://100.100.100.200/latest/meta-data/',
  'http://168.63.129.16/machine?comp=goalstate',
  'http://[fe80::1]/',
  'http://169.254.1.1:9090/',
];

const datasource = (name: string, url: string) => ({
  kind: 'Datasource',
  metadata: { name, project: 'p' },
  spec: { default: false, plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url } } } } },
});

describe('SSRF defaults: cloud metadata and link-local addresses are denied out of the box', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} })).status).to.equal(200);
  });
  after(() => s?.stop());

  METADATA_URLS.forEach((url, i) => {
    it(`${url}: the proxy answers 403 naming proxy.denied_networks`, async () => {
      const save = await s.api('POST', '/api/v1/projects/p/datasources', datasource(`m${i}`, url));
      expect(save.status, save.text).to.equal(200);
      const r = await s.api('GET', `/proxy/projects/p/datasources/m${i}/api/v1/query?query=up`);
      expect(r.status, r.text).to.equal(403);
      expect(r.body.message).to.contain('proxy.denied_networks');
    });
  });

  it('an operator who sets proxy.denied_networks decides: with [] the proxy tries to connect', async () => {
    const open = await startTestServer({ env: { DASHPLANE_PROXY_DENIED_NETWORKS: '[]', DASHPLANE_PROXY_TIMEOUT: '1s' } });
    try {
      await open.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} });
      expect((await open.api('POST', '/api/v1/projects/p/datasources', datasource('meta', 'http://169.254.169.254:9/'))).status).to.equal(
        200,
      );
      const r = await open.api('GET', '/proxy/projects/p/datasources/meta/x');
      // whatever the network answers (502, 504, or a firewall's own refusal), it is not our denylist
      expect(r.text, r.text).not.to.contain('proxy.denied_networks');
      expect(r.status).to.be.at.least(400);
    } finally {
      await open.stop();
    }
  });
});

describe('an open installation says so when it starts', function () {
  this.timeout(60_000);
  const started = async (env: Record<string, string>) => {
    const dir = tempDir();
    const srv = await spawnServer({ dataDir: dir.path, env });
    try {
      await fetch(`${srv.url}/api/v1/health`);
      return srv.output();
    } finally {
      await stopChild(srv.child);
      dir.remove();
    }
  };

  it('auth on, sign-up open, guests may create projects (the defaults): a warning naming the settings that close it', async () => {
    const out = await started(AUTH_ENV);
    const line = out.split('\n').find((l) => l.includes('open installation'));
    expect(line, out).to.be.a('string');
    expect(JSON.parse(line!).level).to.equal(40); // pino's warn
    expect(line).to.contain('disable_sign_up').and.to.contain('guest_permissions').and.to.contain('proxy.denied_networks');
  });

  it('no warning with sign-up closed, or when guests may not create projects', async () => {
    expect(await started({ ...AUTH_ENV, DASHPLANE_SECURITY_AUTHENTICATION_DISABLE_SIGN_UP: 'true' })).not.to.contain('open installation');
    expect(await started({ ...AUTH_ENV, DASHPLANE_SECURITY_AUTHORIZATION_GUEST_PERMISSIONS: '[]' })).not.to.contain('open installation');
  });

  it('GRANT-02: sign-up open beside an identity provider: a warning saying provider users are created before roles are granted to them (none with sign-up closed)', async () => {
    const provider = {
      DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([
        { slug_id: 'corp', name: 'Corp', client_id: 'c', client_secret: 's', issuer: 'http://127.0.0.1:9' },
      ]),
    };
    const out = await started({ ...AUTH_ENV, ...provider });
    const line = out.split('\n').find((l) => l.includes('native sign-up is open beside identity providers'));
    expect(line, out).to.be.a('string');
    expect(JSON.parse(line!).level).to.equal(40);
    expect(line).to.contain('oauthProviders').and.to.contain('disable_sign_up');
    expect(await started({ ...AUTH_ENV, ...provider, DASHPLANE_SECURITY_AUTHENTICATION_DISABLE_SIGN_UP: 'true' })).not.to.contain(
      'beside identity providers',
    );
    expect(await started(AUTH_ENV)).not.to.contain('beside identity providers');
  });
});
