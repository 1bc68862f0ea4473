/**
 * Plain OAuth 2.0 providers as they really answer, which Perses accepts: a profile that carries
 * only an e-mail (or only a login), a token type other than Bearer, a device authorization
 * without expires_in, an OAuth error with status 200. Each is read as Perses reads it, without
 * weakening a check: an address marked unverified identifies nobody, and an e-mail names the user
 * by its local part only when the provider admits a single domain.
 */
import { expect } from 'chai';
import { AUTH_ENV, bearer, type Tokens } from './helpers/auth.js';
import { startQuirkyOAuthProvider, type QuirkyOAuthProvider } from './helpers/quirky-oauth.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const path = (slug: string, route: string) => `/api/auth/providers/oauth/${slug}/${route}`;

describe('OAuth providers as they really answer (Perses leniency)', function () {
  this.timeout(30_000);
  let s: TestServer;
  let open: QuirkyOAuthProvider;
  let corp: QuirkyOAuthProvider;
  let admin: Tokens;

  before(async () => {
    open = await startQuirkyOAuthProvider();
    corp = await startQuirkyOAuthProvider();
    s = await startTestServer({
      env: {
        ...AUTH_ENV,
        DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OAUTH: JSON.stringify([
          open.entry('open'),
          corp.entry('corp', { allowed_email_domains: ['corp.example'] }),
        ]),
      },
    });
    admin = (await s.api('POST', '/api/auth/providers/native/login', { login: 'admin', password: 'admin-password' })).body as Tokens;
  });
  after(async () => {
    await s?.stop();
    await open?.stop();
    await corp?.stop();
  });

  /** One device-code sign-in through `slug`: the token answer (status and body). */
  const deviceSignIn = (slug: string) =>
    s.raw('POST', path(slug, 'token'), new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: 'myCode' }).toString(), FORM);
  const user = async (name: string) => (await s.api('GET', `/api/v1/users/${name}`, undefined, bearer(admin))).body;

  it('a device authorization without expires_in is relayed with the 600 s dashctl assumes; GitHub\'s 200 "authorization_pending" is the OAuth error it is', async () => {
    const dc = await s.raw('POST', path('open', 'device/code'));
    expect(dc.status, dc.text).to.equal(200);
    expect(dc.body).to.deep.equal({ device_code: 'myCode', user_code: 'myUser', verification_uri: 'myURL', expires_in: 600 });
    open.pendingPolls = 1;
    const pending = await deviceSignIn('open');
    expect(pending.status, pending.text).to.equal(400);
    expect(pending.body.error).to.equal('authorization_pending');
  });

  it('a token answer with token_type "myTokenType" is accepted (the token goes to the profile as Bearer); an e-mail-only profile signs in, identified and named by the whole address', async () => {
    open.profile = { email: 'john.doe@gmail.com' };
    const r = await deviceSignIn('open');
    expect(r.status, r.text).to.equal(200);
    expect(r.body.access_token).to.be.a('string');
    expect(r.body.refresh_token).to.be.a('string');
    expect(open.profileAuthorizations.at(-1)).to.equal('Bearer myToken');
    const who = await s.api('GET', '/api/v1/user/whoami', undefined, bearer(r.body.access_token));
    expect(who.body.metadata.name, 'never the local part alone: john.doe@evil.example would take it').to.equal('john.doe-gmail.com');
    const u = await user('john.doe-gmail.com');
    expect(u.spec.oauthProviders).to.have.length(1);
    expect(u.spec.oauthProviders[0]).to.include({ subject: 'john.doe@gmail.com', email: 'john.doe@gmail.com' });
    // the same address signs in as the same user again
    expect(
      (await s.api('GET', '/api/v1/user/whoami', undefined, bearer((await deviceSignIn('open')).body.access_token))).body.metadata.name,
    ).to.equal('john.doe-gmail.com');
    // a missing token_type is read as Bearer too
    open.tokenType = undefined;
    expect((await deviceSignIn('open')).status).to.equal(200);
    open.tokenType = 'myTokenType';
  });

  it('a provider admitting a single e-mail domain names an e-mail-only user by the local part (as Perses does); an address of another domain is refused', async () => {
    corp.profile = { email: 'carla@corp.example' };
    const r = await deviceSignIn('corp');
    expect(r.status, r.text).to.equal(200);
    expect((await s.api('GET', '/api/v1/user/whoami', undefined, bearer(r.body.access_token))).body.metadata.name).to.equal('carla');
    corp.profile = { email: 'carla@evil.example' };
    const other = await deviceSignIn('corp');
    expect(other.status, other.text).to.equal(403);
  });

  it('a profile with only a login or a username is identified and named by it (Perses reads login, then username)', async () => {
    open.profile = { username: 'dora' };
    const r = await deviceSignIn('open');
    expect(r.status, r.text).to.equal(200);
    expect((await user('dora')).spec.oauthProviders[0].subject).to.equal('dora');
    open.profile = { login: 'erin', username: 'not-this', email: 'erin@example.org' };
    expect(
      (await s.api('GET', '/api/v1/user/whoami', undefined, bearer((await deviceSignIn('open')).body.access_token))).body.metadata.name,
    ).to.equal('erin');
  });

  it('an address marked unverified identifies nobody; a profile with nothing to identify the user is refused, naming what it looked for; no user is created', async () => {
    for (const profile of [{ email: 'mallory@gmail.com', email_verified: false }, { name: 'Nobody' }]) {
      open.profile = profile;
      const r = await deviceSignIn('open');
      expect(r.status, JSON.stringify(profile)).to.equal(401);
      expect(r.body.message).to.include('id, login, username or email');
    }
    const users = (await s.api('GET', '/api/v1/users', undefined, bearer(admin))).body.map(
      (u: { metadata: { name: string } }) => u.metadata.name,
    );
    expect(users.filter((n: string) => n.startsWith('mallory') || n === 'Nobody')).to.deep.equal([]);
  });
});
