/**
 * GitOps you can trust, over HTTP: a PUT that changes nothing, sent with X-Dashplane-Skip-Unchanged
 * (as dashctl and the web UI do), is no write (X-Dashplane-Unchanged); without it, it is a write
 * like any other, as Perses clients expect,
 * and every write names its field manager (X-Dashplane-Manager or ?fieldManager=), shown in
 * .../versions and .../managers.
 */
import { expect } from 'chai';
import { bearer, login, signUp, startAuthServer } from './helpers/auth.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { WatchStream } from './helpers/watch.js';

const panel = { kind: 'Panel', spec: { display: { name: 'p' }, plugin: { kind: 'Markdown', spec: { text: 'hi' } } } };
const dash = (title: string, tags = ['b', 'a']) => ({
  kind: 'Dashboard',
  metadata: { name: 'd', tags },
  spec: {
    display: { name: title },
    panels: { a: panel },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }],
  },
});
const secret = (password: string) => ({ kind: 'Secret', metadata: { name: 's' }, spec: { basicAuth: { username: 'u', password } } });

async function ok(r: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const res = await r;
  expect(res.status, res.text).to.equal(status);
  return res;
}

describe('unchanged writes and field managers (HTTP)', function () {
  this.timeout(30_000);
  let s: TestServer;
  const base = '/api/v1/projects/g/dashboards';
  const manager = (m: string) => ({ 'x-dashplane-manager': m });
  const skip = { 'x-dashplane-skip-unchanged': 'true' };

  before(async () => {
    s = await startTestServer();
    await ok(s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'g' }, spec: {} }));
  });
  after(() => s?.stop());

  it('a PUT of the stored content answers X-Dashplane-Unchanged: same version and updatedAt, no history entry, no watch event; dryRun answers the same', async () => {
    const created = await ok(s.api('POST', base, dash('T'), manager('dashctl')));
    const watch = await WatchStream.must(`${s.url}${base}?watch=true`);
    try {
      await watch.waitForEvent('the initial ADDED', (e) => e.type === 'ADDED');
      for (const path of [`${base}/d`, `${base}/d?dryRun=true`]) {
        // tags in another order, older form (no duration), server metadata of the client's own
        const same = await ok(
          s.api(
            'PUT',
            path,
            { ...dash('T', ['a', 'b', 'a']), metadata: { name: 'd', tags: ['a', 'b'], version: 7, updatedAt: '2000-01-01T00:00:00Z' } },
            { ...manager('web-ui'), ...skip },
          ),
        );
        expect(same.headers.get('x-dashplane-unchanged'), path).to.equal('true');
        expect(same.headers.get('etag'), path).to.equal('"0"');
        expect(same.body, path).to.deep.equal(created.body);
      }
      expect((await ok(s.api('GET', `${base}/d/versions`))).body).to.deep.equal([]);
      const real = await ok(s.api('PUT', `${base}/d`, dash('T2'), manager('web-ui')));
      const first = await watch.waitForEvent('the first MODIFIED', (e) => e.type === 'MODIFIED');
      expect(first.object!.spec.display.name, 'the first change seen is the real PUT').to.equal('T2');
      expect(real.headers.get('x-dashplane-unchanged')).to.equal(null);
      expect(real.body.metadata.version).to.equal(1);
      expect(first.object!.metadata.version).to.equal(1);
      expect(watch.changes().filter((e) => e.type === 'MODIFIED')).to.have.length(1);
    } finally {
      await watch.close();
    }
  });

  it('a stale If-Match on a PUT that would change nothing is still 412', async () => {
    await ok(s.api('POST', base, { ...dash('T'), metadata: { name: 'im' } }));
    await ok(s.api('PUT', `${base}/im`, { ...dash('T2'), metadata: { name: 'im' } }));
    const r = await ok(s.api('PUT', `${base}/im`, { ...dash('T2'), metadata: { name: 'im' } }, { 'if-match': '"0"' }), 412);
    expect(r.body.message).to.include('version 1, not 0');
    const same = await ok(s.api('PUT', `${base}/im`, { ...dash('T2'), metadata: { name: 'im' } }, { 'if-match': '"1"', ...skip }));
    expect(same.headers.get('x-dashplane-unchanged')).to.equal('true');
  });

  it('a Secret: the same password (or "<secret>") is unchanged, a new password is a change; no value in any answer', async () => {
    const path = '/api/v1/projects/g/secrets';
    await ok(s.api('POST', path, secret('pw-1')));
    for (const body of [secret('pw-1'), secret('<secret>')]) {
      for (const q of ['?dryRun=true', '']) {
        const r = await ok(s.api('PUT', `${path}/s${q}`, body, skip));
        expect(r.headers.get('x-dashplane-unchanged'), `${body.spec.basicAuth.password}${q}`).to.equal('true');
        expect(r.text).to.not.include('pw-1');
      }
    }
    for (const q of ['?dryRun=true', '']) {
      const r = await ok(s.api('PUT', `${path}/s${q}`, secret('pw-2'), skip));
      expect(r.headers.get('x-dashplane-unchanged'), q).to.equal(null);
    }
    expect((await ok(s.api('GET', `${path}/s`))).body.metadata.version).to.equal(1);
  });

  it('the manager is recorded with each write: header or ?fieldManager= (default "api"), shown in .../versions and .../managers; restore records "restore"', async () => {
    const b = (t: string) => ({ ...dash(t), metadata: { name: 'm' } });
    await ok(s.api('POST', base, b('v0'), manager('dashctl')));
    await ok(s.api('PUT', `${base}/m?fieldManager=web-ui`, b('v1')));
    await ok(s.api('PUT', `${base}/m`, b('v2'), { ...manager('web-ui'), 'content-type': 'application/json' }));
    await ok(s.api('PUT', `${base}/m`, b('v3')));
    const versions = (await ok(s.api('GET', `${base}/m/versions`))).body as {
      version: number;
      manager: string;
      updatedBy: string;
      updatedAt: string;
    }[];
    expect(versions.map((v) => [v.version, v.manager, v.updatedBy])).to.deep.equal([
      [2, 'web-ui', 'anonymous'],
      [1, 'web-ui', 'anonymous'],
      [0, 'dashctl', 'anonymous'],
    ]);
    const managers = (await ok(s.api('GET', `${base}/m/managers`))).body;
    expect(managers.map((m: any) => [m.version, m.manager])).to.deep.equal([
      [3, 'api'],
      [2, 'web-ui'],
      [0, 'dashctl'],
    ]);
    const current = (await ok(s.api('GET', `${base}/m`))).body;
    expect(managers[0], 'the current version, with its author').to.deep.equal({
      version: 3,
      updatedAt: current.metadata.updatedAt,
      updatedBy: 'anonymous',
      manager: 'api',
    });
    const restored = await ok(s.api('POST', `${base}/m/versions/0/restore`, undefined, manager('dashctl')));
    expect(restored.body.metadata.version).to.equal(4);
    expect((await ok(s.api('GET', `${base}/m/managers`))).body[0]).to.deep.include({ version: 4, manager: 'restore' });
    const again = await ok(s.api('POST', `${base}/m/versions/4/restore`, undefined, skip));
    expect(again.headers.get('x-dashplane-unchanged'), 'restoring the current content').to.equal('true');
    expect(again.body.metadata.version).to.equal(4);
    // the Perses UI's header on a request without a body
    const plain = await ok(s.api('POST', `${base}/m/versions/4/restore`, undefined, { 'content-type': 'application/json' }));
    expect(plain.headers.get('x-dashplane-unchanged'), 'without the header, a restore is a new version').to.equal(null);
    expect(plain.body.metadata.version).to.equal(5);
    // every kind has managers, with or without history
    expect((await ok(s.api('GET', '/api/v1/projects/g/secrets/s/managers'))).body[0]).to.deep.include({ version: 1, manager: 'api' });
    expect((await s.api('GET', `${base}/nothing/managers`)).status).to.equal(404);
  });

  it('a manager that is not a short token, or two that disagree, is a 400 naming the field and the fix', async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      [
        `${base}/d`,
        manager('my tool'),
        /X-Dashplane-Manager header must name the client making the write as a short token .* e\.g\. "dashctl"/,
      ],
      [`${base}/d?fieldManager=${'x'.repeat(65)}`, {}, /query parameter "fieldManager" must name the client/],
      [
        `${base}/d?fieldManager=a`,
        manager('b'),
        /X-Dashplane-Manager header \("b"\) and query parameter fieldManager \("a"\) name different managers; send one of them/,
      ],
    ];
    for (const [path, headers, message] of cases) {
      const r = await ok(s.api('PUT', path, dash('T9'), headers), 400);
      expect(r.body.message, path).to.match(message);
    }
    expect((await ok(s.api('POST', base, { ...dash('x'), metadata: { name: 'bad' } }, manager('-x')), 400)).body.message).to.include(
      'X-Dashplane-Manager',
    );
    for (const value of ['yes', '1', 'TRUE', '', 'true, true']) {
      const r = await ok(s.api('PUT', `${base}/d`, dash('T9'), { 'x-dashplane-skip-unchanged': value }), 400);
      expect(r.body.message, value).to.equal(`the X-Dashplane-Skip-Unchanged header must be true or false, not ${JSON.stringify(value)}`);
    }
    expect((await s.api('GET', `${base}/bad`)).status, 'nothing stored').to.equal(404);
  });

  it("INPUT-20: a client naming one of the server's own field managers (any case or separator) is a 400 naming the header or parameter, on create, update and delete; nothing changes", async () => {
    await ok(s.api('POST', base, { ...dash('kept'), metadata: { name: 'owned' } }, manager('dashctl')));
    const before = (await ok(s.api('GET', `${base}/owned/managers`))).body;
    // the server writes as these (a restore, the bootstrap, a sign-in, the reaper and a deleted user's cleanup, token records, provisioning, unrecorded history)
    const reserved = [
      'restore',
      'bootstrap',
      'sign-in',
      'dashplane',
      'api-tokens',
      'provisioning',
      'unknown',
      'Restore',
      'SIGN-IN',
      'sign_in',
      'signin',
      'Dash.Plane',
      'API_TOKENS',
      'Bootstrap',
      'Provisioning',
    ];
    for (const name of reserved) {
      const writes: [string, string, unknown, Record<string, string>, string][] = [
        ['POST', base, { ...dash('claimed'), metadata: { name: 'claimed' } }, manager(name), 'the X-Dashplane-Manager header'],
        [
          'POST',
          `${base}?fieldManager=${name}`,
          { ...dash('claimed'), metadata: { name: 'claimed' } },
          {},
          'query parameter "fieldManager"',
        ],
        ['PUT', `${base}/owned`, { ...dash('claimed'), metadata: { name: 'owned' } }, manager(name), 'the X-Dashplane-Manager header'],
        [
          'PUT',
          `${base}/owned?fieldManager=${name}`,
          { ...dash('claimed'), metadata: { name: 'owned' } },
          {},
          'query parameter "fieldManager"',
        ],
        ['DELETE', `${base}/owned`, undefined, manager(name), 'the X-Dashplane-Manager header'],
        ['DELETE', `${base}/owned?fieldManager=${name}`, undefined, {}, 'query parameter "fieldManager"'],
      ];
      for (const [method, path, body, headers, source] of writes) {
        const r = await ok(s.api(method, path, body, headers), 400);
        expect(r.body.message, `${method} ${path} ${name}`)
          .to.include(source)
          .and.include(`"${name}"`)
          .and.include('only dashplane itself writes as');
      }
    }
    expect((await s.api('GET', `${base}/claimed`)).status, 'nothing created').to.equal(404);
    const after = await ok(s.api('GET', `${base}/owned`));
    expect(after.body.spec.display.name, 'nothing updated').to.equal('kept');
    expect((await ok(s.api('GET', `${base}/owned/managers`))).body, 'no write recorded').to.deep.equal(before);
    // clients' own names still work, dashctl's and the web UI's included
    for (const name of ['dashctl', 'web-ui', 'api', 'restorer', 'my-script'])
      await ok(s.api('PUT', `${base}/owned`, { ...dash(name), metadata: { name: 'owned' } }, manager(name)));
    await ok(s.api('DELETE', `${base}/owned?fieldManager=dashctl`), 204);
  });

  describe('with authentication on', () => {
    let a: TestServer;
    before(async () => {
      a = await startAuthServer();
    });
    after(() => a?.stop());

    it('a User PUT repeating the same password changes nothing and ends no session; it names its author in the managers', async () => {
      await signUp(a, 'alice', 'first-password');
      const one = await login(a, 'alice', 'first-password');
      const two = await login(a, 'alice', 'first-password');
      const body = { kind: 'User', metadata: { name: 'alice' }, spec: { nativeProvider: { password: 'first-password' } } };
      const r = await a.api('PUT', '/api/v1/users/alice', body, { ...bearer(one), ...manager('web-ui'), ...skip });
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('x-dashplane-unchanged')).to.equal('true');
      const written = await a.api('PUT', '/api/v1/users/alice', body, bearer(one));
      expect(written.body.metadata?.version, 'without the header: a new version').to.equal(1);
      expect(
        (await a.api('GET', '/api/v1/user/whoami', undefined, bearer(two))).status,
        'the same password written again ends no session',
      ).to.equal(200);
      expect((await a.api('GET', '/api/v1/user/whoami', undefined, bearer(two))).status, 'the other session lives on').to.equal(200);
      const renamed = await a.api(
        'PUT',
        '/api/v1/users/alice',
        { ...body, spec: { ...body.spec, firstName: 'Alice' } },
        { ...bearer(one), ...manager('web-ui') },
      );
      expect(renamed.headers.get('x-dashplane-unchanged')).to.equal(null);
      expect(
        (await a.api('GET', '/api/v1/user/whoami', undefined, bearer(two))).status,
        'a change that keeps the password keeps the sessions',
      ).to.equal(200);
      const managers = await a.api('GET', '/api/v1/users/alice/managers', undefined, bearer(one));
      expect(managers.body[0]).to.deep.include({ version: 2, updatedBy: 'alice', manager: 'web-ui' });
    });
  });
});
