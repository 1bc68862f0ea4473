/**
 * Perses compatibility beyond Perses' own API tests (those are replayed in
 * test/perses-e2e-*.test.ts), with auth on: what real Perses resources and clients send (empty
 * dashboards, older metadata spellings, variable names), the 401 of every malformed credential
 * in Perses' words, a list under a missing project after the permission check, and a
 * dashboard's own datasource named with a space proxied while bad names never reach the upstream.
 */
import { expect } from 'chai';
import http from 'node:http';
import { rawRequest } from './helpers/raw-request.js';
import type { AddressInfo } from 'node:net';
import { bearer, login, LOOPBACK_UPSTREAMS, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import type { TestServer } from './helpers/server.js';

describe('Perses compatibility beyond its own API tests (auth on)', function () {
  this.timeout(60_000);
  let s: TestServer;
  let admin: Tokens;
  let auth: Record<string, string>;
  const variable = (project: string, name: string) => ({
    kind: 'Variable',
    metadata: { name, project },
    spec: { kind: 'TextVariable', spec: { value: 'v' } },
  });

  before(async () => {
    s = await startAuthServer(LOOPBACK_UPSTREAMS);
    admin = await loginAdmin(s);
    auth = bearer(admin);
    expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'perses' }, spec: {} }, auth)).status).to.equal(
      200,
    );
    expect((await s.api('POST', '/api/v1/projects/perses/variables', variable('perses', 'target'), auth)).status).to.equal(200);
  });
  after(() => s?.stop());

  it("a dashboard without panels or layouts (an SDK's empty dashboard, or Perses' own answer with them null) is accepted as an empty one", async () => {
    const empty = await s.api(
      'POST',
      '/api/v1/projects/perses/dashboards',
      { kind: 'Dashboard', metadata: { name: 'empty', project: 'perses' }, spec: {} },
      auth,
    );
    expect(empty.status, empty.text).to.equal(200);
    expect(empty.body.spec).to.deep.equal({ duration: '1h', panels: {}, layouts: [] });
    const nulls = await s.api(
      'PUT',
      '/api/v1/projects/perses/dashboards/empty',
      { kind: 'Dashboard', metadata: { name: 'empty', project: 'perses' }, spec: { duration: '5m', panels: null, layouts: null } },
      auth,
    );
    expect(nulls.status, nulls.text).to.equal(200);
    expect(nulls.body.spec).to.deep.equal({ duration: '5m', panels: {}, layouts: [] });
    const checked = await s.api(
      'POST',
      '/api/validate/dashboards',
      { kind: 'Dashboard', metadata: { name: 'x', project: 'perses' }, spec: { duration: '5m' } },
      auth,
    );
    expect(checked.status, checked.text).to.equal(200);
    const ephemeral = await s.api(
      'POST',
      '/api/v1/projects/perses/ephemeraldashboards',
      { kind: 'EphemeralDashboard', metadata: { name: 'brief' }, spec: { ttl: '1h' } },
      auth,
    );
    expect(ephemeral.status, ephemeral.text).to.equal(200);
    expect(ephemeral.body.spec).to.deep.equal({ ttl: '1h', duration: '1h', panels: {}, layouts: [] });
  });

  it('metadata spelled as older Perses exports spell it (created_at, updated_at) is server-owned and ignored, like createdAt', async () => {
    const old = {
      kind: 'Dashboard',
      metadata: { name: 'exported', project: 'perses', created_at: '2023-05-02T10:00:00Z', updated_at: '2023-05-02T10:00:00Z', version: 7 },
      spec: {},
    };
    const r = await s.api('POST', '/api/v1/projects/perses/dashboards', old, auth);
    expect(r.status, r.text).to.equal(200);
    expect(Object.keys(r.body.metadata).sort()).to.deep.equal(['createdAt', 'name', 'project', 'updatedAt', 'version']);
    expect(r.body.metadata.version).to.equal(0);
    // an unknown field is still refused, naming it
    const labels = await s.api(
      'POST',
      '/api/v1/projects',
      { kind: 'Project', metadata: { name: 'labelled', labels: { team: 'x' } }, spec: {} },
      auth,
    );
    expect(labels.status).to.equal(400);
    expect(labels.body.details.map((d: { path: string }) => d.path)).to.deep.equal(['metadata.labels']);
  });

  it("a Variable's name is checked as a variable name, as Perses does: not digits alone, at most one '-' or '.', no builtin prefix __", async () => {
    const make = (kind: string, name: string) => ({
      kind,
      metadata: { name, ...(kind === 'Variable' ? { project: 'perses' } : {}) },
      spec: { kind: 'TextVariable', spec: { value: 'v' } },
    });
    for (const [kind, path] of [
      ['Variable', '/api/v1/projects/perses/variables'],
      ['GlobalVariable', '/api/v1/globalvariables'],
      ['Variable', '/api/validate/variables'],
    ]) {
      for (const name of ['sdk-var-1', '123', '__x', 'a.b-c']) {
        const r = await s.api('POST', path, make(kind, name), auth);
        expect(r.status, `${path} ${name}`).to.equal(400);
        expect(r.body.message, `${path} ${name}`).to.include(`variable name '${name}'`);
        expect(r.body.details.map((d: { path: string }) => d.path)).to.deep.equal(['metadata.name']);
      }
    }
    for (const name of ['job', 'env_2', 'a-b', '_1']) {
      const r = await s.api('POST', '/api/v1/globalvariables', make('GlobalVariable', name), auth);
      expect(r.status, `${name}: ${r.text}`).to.equal(200);
    }
  });

  it('a list under a project that does not exist is a 400 naming it, after the permission check: a user who may not read there gets the same 403 for an existing and a missing project', async () => {
    const missing = await rawRequest(s, 'GET', '/api/v1/projects/not-existing-project/variables', auth);
    expect(missing.status).to.equal(400);
    expect(missing.body.message).to.equal('metadata.project "not-existing-project" doesn\'t exist');
    await signUp(s, 'outsider');
    const outsider = bearer(await login(s, 'outsider'));
    const forbidden = await rawRequest(s, 'GET', '/api/v1/projects/not-existing-project/variables', outsider);
    const existing = await rawRequest(s, 'GET', '/api/v1/projects/perses/variables', outsider);
    expect([forbidden.status, existing.status]).to.deep.equal([403, 403]);
    expect(forbidden.body.message).to.equal(existing.body.message.replace('perses', 'not-existing-project'));
    expect((await rawRequest(s, 'GET', '/api/v1/projects/not-existing-project/variables')).status, 'anonymous').to.equal(401);
  });

  it('a request without credentials, or with a malformed Authorization header or half the cookies, is a 401 whose message is exactly Perses\' "missing or malformed jwt" (its Go client matches it), the help in details', async () => {
    for (const [headers, where, help] of [
      [{}, 'Authorization', 'sign in first'],
      [{ authorization: 'Basic YWRtaW46YWRtaW4=' }, 'Authorization', 'must be "Bearer <access token>"'],
      [{ cookie: 'jwtPayload=abc' }, 'Cookie', 'jwtPayload and jwtSignature'],
    ] as const) {
      const r = await rawRequest(s, 'GET', '/api/v1/projects', headers);
      expect(r.status, where).to.equal(401);
      expect(r.body.message, JSON.stringify(headers)).to.equal('missing or malformed jwt');
      expect(r.body.details, JSON.stringify(headers)).to.have.length(1);
      expect(r.body.details[0].path).to.equal(where);
      expect(r.body.details[0].message).to.include(help);
    }
  });

  it('a dashboard\'s own datasource named with a space ("Victoria Metrics", as in Perses\' test dashboard) is proxied', async () => {
    const seen: string[] = [];
    const upstream = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end('{"status":"success","data":{}}');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
      const dash = {
        kind: 'Dashboard',
        metadata: { name: 'myDashboard', project: 'perses' },
        spec: {
          display: { name: 'd' },
          duration: '1h',
          datasources: {
            'Victoria Metrics': {
              default: true,
              plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url } } } },
            },
          },
          panels: {},
          layouts: [],
        },
      };
      expect((await s.api('POST', '/api/v1/projects/perses/dashboards', dash, auth)).status).to.equal(200);
      const r = await rawRequest(
        s,
        'GET',
        '/proxy/projects/perses/dashboards/myDashboard/datasources/Victoria%20Metrics/api/v1/status/config',
        auth,
      );
      expect(r.status).to.equal(200);
      expect(seen).to.deep.equal(['/api/v1/status/config']);
      for (const bad of ['..', '%2e%2e', 'a%2Fb', 'a%00b']) {
        expect(
          (await rawRequest(s, 'GET', `/proxy/projects/perses/dashboards/myDashboard/datasources/${bad}/api/v1/status/config`, auth))
            .status,
          bad,
        ).to.equal(400);
      }
      expect(seen, 'nothing else reached the upstream').to.have.length(1);
    } finally {
      upstream.close();
    }
  });
});
