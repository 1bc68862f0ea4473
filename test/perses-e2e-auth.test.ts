/**
 * Replay of Perses' authentication and authorization e2e tests (api/auth_test.go, rbac_test.go,
 * client/auth_test.go at v0.54), against servers configured as Perses' DefaultAuthConfig, with
 * Perses' fake providers (a plain OAuth one with its quirks, an OpenID one). Deliberate
 * differences are asserted as dashplane answers, marked "[differs: ...]", and listed in
 * docs/api.md.
 */
import { expect } from 'chai';
import {
  createEntity,
  newDatasource,
  newGlobalRole,
  newProject,
  newRole,
  newUser,
  newVariable,
  signIn,
  startPersesAuthServer,
  startPersesServer,
} from './helpers/perses-e2e.js';
import { startPersesOidcFake, type PersesOidcFake } from './helpers/perses-oidc-fake.js';
import { startQuirkyOAuthProvider, type QuirkyOAuthProvider } from './helpers/quirky-oauth.js';
import type { TestServer } from './helpers/server.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const providerPath = (kind: string, slug: string, route: string) => `/api/auth/providers/${kind}/${slug}/${route}`;
const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

describe('Perses e2e replay: authentication (api/auth_test.go, rbac_test.go, client/auth_test.go)', function () {
  this.timeout(60_000);
  let oauth: QuirkyOAuthProvider;
  let oidc: PersesOidcFake;
  let s: TestServer;
  before(async () => {
    oauth = await startQuirkyOAuthProvider();
    oidc = await startPersesOidcFake();
    s = await startPersesAuthServer({
      DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OAUTH: JSON.stringify([oauth.entry('oauth-slug')]),
      DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([oidc.entry('oidc-slug')]),
    });
  });
  after(async () => {
    await s?.stop();
    await oauth?.stop();
    await oidc?.stop();
  });

  /** The user foo of Perses' tests (each makes it on its own server; here the first test that needs it does). */
  const foo = async () => {
    const r = await s.api('POST', '/api/v1/users', newUser('foo'));
    expect([200, 409], r.text).to.include(r.status);
    return { authorization: `Bearer ${await signIn(s, 'foo', 'password')}` };
  };
  const token = (kind: string, slug: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    s.raw('POST', providerPath(kind, slug, 'token'), new URLSearchParams(fields).toString(), { ...FORM, ...headers });
  const expectTokens = (r: { status: number; text: string; body: any }) => {
    expect(r.status, r.text).to.equal(200);
    expect(r.body.access_token).to.be.a('string').and.not.equal('');
    expect(r.body.refresh_token).to.be.a('string').and.not.equal('');
  };

  it('TestAuth', async () => {
    expect((await s.api('POST', '/api/v1/users', newUser('foo'))).status).to.equal(200);
    const r = await s.api('POST', '/api/auth/providers/native/login', { login: 'foo', password: 'password' });
    expectTokens(r);
  });

  it('TestAuth_EmptyPassword', async () => {
    await foo();
    expect((await s.api('POST', '/api/auth/providers/native/login', { login: 'foo', password: '' })).status).to.equal(400);
  });

  for (const [kind, slug] of [
    ['oauth', 'oauth-slug'],
    ['oidc', 'oidc-slug'],
  ] as const) {
    const Kind = kind === 'oauth' ? 'OAuth' : 'OIDC';

    it(`TestAuth_${Kind}Provider_AuthEndpoint`, async () => {
      const r = await s.raw('GET', providerPath(kind, slug, 'login'));
      expect([r.status, r.text]).to.deep.equal([200, "Provider's Auth Endpoint"]);
    });

    it(`TestAuth_${Kind}Provider_CallbackEndpoint [differs: a callback without state is 400; Perses answers ${kind === 'oauth' ? '500' : '401'}]`, async () => {
      const r = await s.raw('GET', providerPath(kind, slug, 'callback'));
      expect(r.status, r.text).to.equal(400);
    });

    it(`TestAuth_${Kind}Provider_DeviceCode [differs: expires_in (600 s) added when the provider leaves it out]`, async () => {
      const r = await s.raw('POST', providerPath(kind, slug, 'device/code'));
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.deep.equal({ device_code: 'myCode', user_code: 'myUser', verification_uri: 'myURL', expires_in: 600 });
    });

    it(`TestAuth_${Kind}Provider_Token_FromDeviceCode`, async () => {
      expectTokens(await token(kind, slug, { grant_type: DEVICE_GRANT, device_code: 'myCode' }));
    });
  }

  it('TestAuth_OAuthProvider_Token_FromClientCredentials', async () => {
    expect((await token('oauth', 'oauth-slug', { grant_type: 'client_credentials' })).status, 'no client credentials').to.equal(400);
    expectTokens(await token('oauth', 'oauth-slug', { grant_type: 'client_credentials' }, basic('client-id', 'client-secret\n')));
  });

  it("TestAuth_OIDCProvider_Token_FromClientCredentials [differs: the provider's ID token is for clientID, not client-id-oidc: refused]", async () => {
    expect((await token('oidc', 'oidc-slug', { grant_type: 'client_credentials' })).status, 'no client credentials').to.equal(400);
    const r = await token('oidc', 'oidc-slug', { grant_type: 'client_credentials' }, basic('client-id-oidc', 'client-secret\n'));
    expect(r.status, r.text).to.equal(401);
    expect(r.body.access_token).to.equal(undefined);
    // the client the ID token is for signs in
    expectTokens(await token('oidc', 'oidc-slug', { grant_type: 'client_credentials' }, basic('clientID', 'client-secret')));
  });

  /** What Go's oauth2 client-credentials library does (AuthStyleInHeader), then a project list with the token. */
  async function withLib(kind: string, slug: string): Promise<{ status: number; list?: number }> {
    const t = await token(kind, slug, { grant_type: 'client_credentials' }, basic('MyClientID', 'MyClientSecret'));
    if (t.status !== 200) return { status: t.status };
    return {
      status: t.status,
      list: (await s.api('GET', '/api/v1/projects', undefined, { authorization: `Bearer ${t.body.access_token}` })).status,
    };
  }

  it('TestAuth_OAuthProvider_Token_WithLib [differs: without providers the token route is a JSON 404; Perses answers 405]', async () => {
    expect(await withLib('oauth', 'oauth-slug')).to.deep.equal({ status: 200, list: 200 });
    const unauthenticated = await s.api('GET', '/api/v1/projects');
    expect([unauthenticated.status, unauthenticated.body.message]).to.deep.equal([401, 'missing or malformed jwt']);
    const off = await startPersesServer();
    try {
      const r = await off.raw('POST', providerPath('oauth', 'oauth-slug', 'token'), 'grant_type=client_credentials', {
        ...FORM,
        ...basic('MyClientID', 'MyClientSecret'),
      });
      expect(r.status).to.equal(404);
      expect(r.body.message).to.include('no route');
    } finally {
      await off.stop();
    }
  });

  it('TestAuth_OIDCProvider_Token_WithLib [differs: the ID token is for clientID, not MyClientID: refused; without providers a JSON 404]', async () => {
    expect(await withLib('oidc', 'oidc-slug')).to.deep.equal({ status: 401 });
    const unauthenticated = await s.api('GET', '/api/v1/projects');
    expect([unauthenticated.status, unauthenticated.body.message]).to.deep.equal([401, 'missing or malformed jwt']);
  });

  it('TestNewProjectEndpoints', async () => {
    const auth = await foo();
    expect((await s.api('POST', '/api/v1/projects', newProject('mysuperproject'), auth)).status).to.equal(200);
    expect(
      (await s.api('POST', '/api/v1/projects/mysuperproject/variables', newVariable('mysuperproject', 'mysupervariable'), auth)).status,
    ).to.equal(200);
    expect((await s.api('DELETE', '/api/v1/projects/mysuperproject', undefined, auth)).status).to.equal(204);
    const admin = { authorization: `Bearer ${await signIn(s, 'alice', 'alice-password')}` };
    expect((await s.api('GET', '/api/v1/projects/mysuperproject', undefined, admin)).status).to.equal(404);
    expect((await s.api('GET', '/api/v1/variables?project=mysuperproject', undefined, admin)).body).to.deep.equal([]);
  });

  it('TestAnonymousEndpoints', async () => {
    const callers: Record<string, string>[] = [await foo(), { authorization: 'Bearer <bad token>' }, {}];
    for (const headers of callers) {
      expect((await s.api('GET', '/api/config', undefined, headers)).status, JSON.stringify(headers)).to.equal(200);
    }
  });

  it('TestUnauthorizedEndpoints', async () => {
    const auth = await foo();
    expect((await s.api('POST', '/api/v1/globalroles', newGlobalRole('test'), auth)).status).to.equal(403);
    expect(
      (await s.api('POST', '/api/v1/projects', newProject('mysuperproject2'), { authorization: 'Bearer <bad token>' })).status,
    ).to.equal(401);
  });

  it('TestGetProtectedDatasource (client/auth_test.go) [differs: the user is created through the API; Perses writes a bcrypt hash into its database]', async () => {
    const admin = { authorization: `Bearer ${await signIn(s, 'alice', 'alice-password')}` };
    await createEntity(s, newProject('perses'), admin);
    const entity = newDatasource('perses', 'myDTS');
    await createEntity(s, entity, admin);
    // the Go client with native auth: it logs in, then calls with the token
    const auth = await foo();
    const r = await s.api('GET', '/api/v1/projects/perses/datasources/myDTS', undefined, auth);
    expect([r.body.metadata.name, r.body.spec]).to.deep.equal(['myDTS', entity.spec]);
  });
});

describe("Perses e2e replay: provider claims granting roles (api/auth_test.go) [differs: Perses' provider `claims` mappings are written groups_claim and role_mappings]", function () {
  this.timeout(60_000);

  /** A server whose OIDC provider puts `claims` in its ID tokens and maps them as `mappings` say; the user's token after a device-code login. */
  async function withClaims(
    claims: Record<string, unknown>,
    mappings: Record<string, string>[],
    run: (s: TestServer, user: Record<string, string>, admin: Record<string, string>) => Promise<void>,
  ) {
    const idp = await startPersesOidcFake(claims);
    const s = await startPersesAuthServer({
      DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([
        idp.entry('idp', { groups_claim: 'roles', role_mappings: mappings }),
      ]),
    });
    try {
      const admin = { authorization: `Bearer ${await signIn(s, 'alice', 'alice-password')}` };
      const login = await s.raw(
        'POST',
        providerPath('oidc', 'idp', 'token'),
        new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: 'myCode' }).toString(),
        FORM,
      );
      expect(login.status, login.text).to.equal(200);
      await run(s, { authorization: `Bearer ${login.body.access_token}` }, admin);
    } finally {
      await s.stop();
      await idp.stop();
    }
  }

  it("TestAuth_OIDCProvider_ClaimGrantsGlobalRole [differs: GlobalRole admin (* on *) is the bootstrap administrator's, already there]", async () => {
    await withClaims({ roles: ['admin'] }, [{ group: 'admin', global_role: 'admin' }], async (s, user, admin) => {
      expect((await s.api('GET', '/api/v1/globalroles/admin', undefined, admin)).body.spec.permissions).to.deep.equal([
        { actions: ['*'], scopes: ['*'] },
      ]);
      expect((await s.api('POST', '/api/v1/globalroles', newGlobalRole('another-role'), user)).status).to.equal(200);
      expect((await s.api('POST', '/api/v1/globalroles', newGlobalRole('no-token-role'))).status).to.equal(401);
    });
  });

  it('TestAuth_OIDCProvider_WrongClaimValue_NoExtraPermissions', async () => {
    await withClaims({ roles: ['viewer'] }, [{ group: 'admin', global_role: 'admin' }], async (s, user) => {
      expect((await s.api('POST', '/api/v1/globalroles', newGlobalRole('should-fail'), user)).status).to.equal(403);
    });
  });

  it("TestAuth_OIDCProvider_ClaimGrantsProjectRole [differs: a new project already has Role editor; it is updated to Perses' create on *]", async () => {
    await withClaims(
      { roles: ['editor'] },
      [{ group: 'editor', project: 'claim-test-project', role: 'editor' }],
      async (s, user, admin) => {
        await createEntity(s, newProject('claim-test-project'), admin);
        const editor = { ...newRole('claim-test-project', 'editor'), spec: { permissions: [{ actions: ['create'], scopes: ['*'] }] } };
        expect((await s.api('PUT', '/api/v1/projects/claim-test-project/roles/editor', editor, admin)).status).to.equal(200);
        expect(
          (await s.api('POST', '/api/v1/projects/claim-test-project/roles', newRole('claim-test-project', 'inner-role'), user)).status,
        ).to.equal(200);
        expect((await s.api('POST', '/api/v1/globalroles', newGlobalRole('should-fail'), user)).status).to.equal(403);
      },
    );
  });

  it('TestAuth_OIDCProvider_NoClaims_NoExtraPermissions', async () => {
    await withClaims({}, [{ group: 'admin', global_role: 'admin' }], async (s, user) => {
      expect((await s.api('POST', '/api/v1/globalroles', newGlobalRole('should-fail'), user)).status).to.equal(403);
    });
  });
});
