/**
 * The security checklist's rows tried with malformed shapes instead of well-formed attacks: every
 * field of every kind's body, the login and refresh bodies, auth headers and cookies, query
 * parameters, If-Match, path names and version numbers get nulls, booleans, numbers, arrays,
 * objects, empty, huge, NUL, traversal and wildcard values. Whatever the answer, it is a 4xx with
 * a message, never a 5xx, a hang or a crash; the server runs in its own process so a crash shows.
 */
import { expect } from 'chai';
import { AUTH_ENV } from './helpers/auth.js';
import { spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { readResponse, tempDir } from './helpers/server.js';

const BAD: unknown[] = [
  null,
  true,
  7,
  -1,
  1.5,
  1e308,
  '',
  ' ',
  'x'.repeat(10_000),
  '\u0000',
  '../x',
  '*',
  '%2e%2e',
  [],
  ['a'],
  [['a']],
  {},
  { a: 1 },
  [null],
  [1, 2],
  'a\nb',
  '<secret>',
];

const KINDS: [string, string, boolean][] = [
  ['projects', 'Project', false],
  ['dashboards', 'Dashboard', true],
  ['datasources', 'Datasource', true],
  ['secrets', 'Secret', true],
  ['variables', 'Variable', true],
  ['folders', 'Folder', true],
  ['roles', 'Role', true],
  ['rolebindings', 'RoleBinding', true],
  ['ephemeraldashboards', 'EphemeralDashboard', true],
  ['globaldatasources', 'GlobalDatasource', false],
  ['globalsecrets', 'GlobalSecret', false],
  ['globalvariables', 'GlobalVariable', false],
  ['globalroles', 'GlobalRole', false],
  ['globalrolebindings', 'GlobalRoleBinding', false],
  ['users', 'User', false],
];

describe('malformed shapes on every input: 4xx with a message, never a 5xx or a crash', function () {
  this.timeout(300_000);
  let dir: ReturnType<typeof tempDir>;
  let srv: ServerProcess;
  let admin: Record<string, string>;
  let bob: Record<string, string>;
  const problems: string[] = [];

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { ...headers }, signal: AbortSignal.timeout(15_000) };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    let r;
    try {
      r = await readResponse(await fetch(srv.url + path, init));
    } catch (e) {
      problems.push(`${method} ${path}: ${(e as Error).message}`);
      return undefined;
    }
    const ok = r.status < 500 || (path.startsWith('/proxy/') && [502, 503, 504].includes(r.status));
    if (!ok)
      problems.push(
        `${r.status} ${method} ${path} ${JSON.stringify(body)?.slice(0, 120)} ${JSON.stringify(headers).slice(0, 80)} -> ${r.text.slice(0, 160)}`,
      );
    if (r.status >= 400 && !(r.body as { message?: unknown } | undefined)?.message && r.status !== 404 && !path.startsWith('/proxy/'))
      problems.push(`${r.status} without a message: ${method} ${path}`);
    return r;
  };
  const token = async (login: string, password: string) => {
    const r = await call('POST', '/api/auth/providers/native/login', { login, password });
    return { authorization: `Bearer ${(r!.body as { access_token: string }).access_token}` };
  };

  before(async () => {
    dir = tempDir();
    srv = await spawnServer({ dataDir: dir.path, env: AUTH_ENV });
    admin = await token('admin', 'admin-password');
    await call('POST', '/api/v1/users', {
      kind: 'User',
      metadata: { name: 'bob' },
      spec: { nativeProvider: { password: 'bob-password' } },
    });
    bob = await token('bob', 'bob-password');
    await call('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} }, admin);
  });
  afterEach(() => {
    expect(srv.child.exitCode, srv.output().slice(-2000)).to.equal(null);
    const found = problems.splice(0);
    expect(found, found.join('\n')).to.deep.equal([]);
  });
  after(async () => {
    if (srv) await stopChild(srv.child);
    dir?.remove();
  });

  it('login, refresh and sign-up bodies', async () => {
    for (const v of BAD) {
      await call('POST', '/api/auth/providers/native/login', { login: v, password: v });
      await call('POST', '/api/auth/providers/native/login', { login: 'admin', password: v });
      await call('POST', '/api/auth/providers/native/login', v);
      await call('POST', '/api/auth/refresh', { refresh_token: v });
      await call('POST', '/api/v1/users', {
        kind: 'User',
        metadata: { name: 'u' },
        spec: { nativeProvider: { password: v }, oauthProviders: v },
      });
      await call('PUT', '/api/v1/users/bob', { kind: 'User', metadata: { name: 'bob' }, spec: { nativeProvider: { password: v } } }, bob);
      await call('GET', `/api/v1/users/${encodeURIComponent(String(v))}/permissions`, undefined, bob);
    }
  });

  it('authorization headers and cookies', async () => {
    const [h, p, sig] = admin.authorization.slice(7).split('.');
    const sets: Record<string, string>[] = [
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: 'Basic eDp5' },
      { authorization: 'Bearer a.b.c' },
      { authorization: `Bearer ${'a'.repeat(8000)}` },
      { authorization: `Bearer ${h}.${p}` },
      { cookie: 'jwtPayload=a; jwtSignature=b' },
      { cookie: 'jwtRefreshToken=%E0%A4%A' },
      { cookie: '=;=;;' },
    ];
    for (const headers of sets) {
      const r = await call('GET', '/api/v1/projects', undefined, headers);
      expect(r?.status, JSON.stringify(headers)).to.equal(401);
      await call('POST', '/api/auth/refresh', undefined, headers);
    }
    // a repeated cookie: the first one counts (as browsers order them, most specific path first)
    const twice = await call('GET', '/api/v1/projects', undefined, { cookie: `jwtPayload=x; jwtPayload=${h}.${p}; jwtSignature=${sig}` });
    expect(twice?.status).to.equal(401);
  });

  for (const [plural, kind, inProject] of KINDS) {
    it(`${kind}: bodies, query parameters, If-Match, names and versions`, async () => {
      const base = inProject ? `/api/v1/projects/p/${plural}` : `/api/v1/${plural}`;
      for (const v of BAD) {
        const bodies = [
          v,
          { kind: v, metadata: { name: 'x' }, spec: {} },
          { kind, metadata: v, spec: {} },
          { kind, metadata: { name: v }, spec: {} },
          { kind, metadata: { name: 'x', project: v }, spec: {} },
          { kind, metadata: { name: 'x', tags: v }, spec: {} },
          { kind, metadata: { name: 'x', tags: [v] }, spec: {} },
          { kind, metadata: { name: 'x' }, spec: v },
        ];
        for (const body of bodies) {
          await call('POST', base, body, admin);
          await call('POST', `${base}?dryRun=true`, body, bob);
          await call('PUT', `${base}/x`, body, admin);
        }
      }
      for (const q of [
        '?name=a&name=b',
        '?limit=-1',
        '?limit=abc',
        '?limit=1e9',
        '?continue=zzz',
        `?continue=${encodeURIComponent('{"a":1}')}`,
        '?metadata_only=maybe',
        '?watch=maybe',
        '?watch=true&since=-1',
        '?watch=true&since=abc',
        '?watch=true&since=1e400',
        '?kind=a&kind=b',
        '?default=x',
        '?dryRun=x',
        '?project=a&project=b',
        `?limit=1&continue=${'A'.repeat(5000)}`,
      ]) {
        await call('GET', base + q, undefined, admin);
      }
      for (const ifMatch of ['"x"', '*', '"1", "2"', 'W/"1"', '', '"-1"', `"${'9'.repeat(40)}"`]) {
        await call('PUT', `${base}/x`, { kind, metadata: { name: 'x' }, spec: {} }, { ...admin, 'if-match': ifMatch });
        await call('DELETE', `${base}/x`, undefined, { ...admin, 'if-match': ifMatch });
      }
      for (const n of ['%00', '%2e%2e', '..', '%2F', 'a%2Fb', '%E0%A4%A', 'x'.repeat(1000), '%', '%%', '-1', '1e3', '0x10']) {
        await call('GET', `${base}/${n}`, undefined, admin);
        await call('DELETE', `${base}/${n}`, undefined, admin);
        await call('GET', `${base}/${n}/versions`, undefined, admin);
        await call('GET', `${base}/x/versions/${n}`, undefined, admin);
        await call('POST', `${base}/x/versions/${n}/restore`, undefined, admin);
      }
    });
  }

  it('the fields that grant, name secrets or hold durations', async () => {
    for (const v of BAD) {
      await call(
        'POST',
        '/api/v1/projects/p/roles',
        { kind: 'Role', metadata: { name: 'r' }, spec: { permissions: [{ actions: v, scopes: v }] } },
        admin,
      );
      await call(
        'POST',
        '/api/v1/projects/p/rolebindings',
        { kind: 'RoleBinding', metadata: { name: 'rb' }, spec: { role: v, subjects: v } },
        admin,
      );
      await call(
        'POST',
        '/api/v1/projects/p/rolebindings',
        { kind: 'RoleBinding', metadata: { name: 'rb' }, spec: { role: 'viewer', subjects: [{ kind: v, name: v }] } },
        admin,
      );
      await call(
        'POST',
        '/api/v1/projects/p/secrets',
        { kind: 'Secret', metadata: { name: 's' }, spec: { basicAuth: { username: v, password: v } } },
        admin,
      );
      await call(
        'POST',
        '/api/v1/projects/p/secrets',
        { kind: 'Secret', metadata: { name: 's' }, spec: { tlsConfig: { ca: v, caFile: v, insecureSkipVerify: v } } },
        admin,
      );
      await call(
        'POST',
        '/api/v1/projects/p/dashboards',
        {
          kind: 'Dashboard',
          metadata: { name: 'd' },
          spec: { duration: v, refreshInterval: v, panels: v, layouts: v, variables: v, datasources: v },
        },
        admin,
      );
      await call(
        'POST',
        '/api/v1/projects/p/ephemeraldashboards',
        { kind: 'EphemeralDashboard', metadata: { name: 'e' }, spec: { ttl: v, duration: '1h', panels: {}, layouts: [] } },
        admin,
      );
      await call('POST', '/api/validate/dashboards', v);
      await call('POST', '/api/validate/datasources', v);
      await call('POST', '/proxy/unsaved/projects/p/datasources', v, admin);
      await call(
        'POST',
        '/proxy/unsaved/projects/p/datasources',
        {
          method: 'GET',
          spec: {
            plugin: {
              kind: 'PrometheusDatasource',
              spec: { proxy: { kind: 'HTTPProxy', spec: { url: v, secret: v, headers: v, allowedEndpoints: v } } },
            },
          },
          body: v,
        },
        admin,
      );
    }
    const health = await call('GET', '/api/v1/health');
    expect(health?.status).to.equal(200);
  });
});
