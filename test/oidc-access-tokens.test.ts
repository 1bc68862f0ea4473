import { expect } from 'chai';
import { generateKeyPairSync, sign as rsaSign } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startAuthServer, loginAdmin, bearer, signUp } from './helpers/auth.js';
import { startFakeOidcProvider, type FakeOidcProvider } from './helpers/oidc-provider.js';
import type { TestServer } from './helpers/server.js';
import { WatchStream } from './helpers/watch.js';

describe('provider access tokens accepted as Bearer tokens (accept_access_tokens) [beyond]', function () {
  this.timeout(30_000);
  let idp: FakeOidcProvider;
  let s: TestServer;
  const now = () => Math.floor(Date.now() / 1000);
  const claims = (extra: Record<string, unknown> = {}) => ({
    iss: idp.issuer,
    aud: 'dashplane-api',
    sub: 'robot-sub-1',
    client_id: 'ci-robot',
    exp: now() + 300,
    iat: now(),
    ...extra,
  });

  before(async () => {
    idp = await startFakeOidcProvider({ accounts: [] });
    s = await startAuthServer({
      DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([
        {
          slug_id: 'ci',
          name: 'CI',
          client_id: idp.clientId,
          client_secret: idp.clientSecret,
          issuer: idp.issuer,
          accept_access_tokens: { audience: 'dashplane-api' },
        },
      ]),
    });
  });
  after(async () => {
    await s.stop();
    await idp.stop();
  });

  it('a valid provider token authenticates as the client, bound to (issuer, subject); roles apply by name', async () => {
    const token = idp.sign(claims());
    const who = await s.api('GET', '/api/v1/user/whoami', undefined, bearer(token));
    expect(who.status, who.text).to.equal(200);
    expect(who.body.metadata.name).to.equal('ci-robot');
    expect(who.body.spec.oauthProviders).to.deep.equal([{ issuer: idp.issuer, subject: 'robot-sub-1' }]);
    expect((await s.api('GET', '/api/v1/users', undefined, bearer(token))).status, 'no global read without a role').to.equal(403);
    const admin = await loginAdmin(s);
    await s.api(
      'POST',
      '/api/v1/globalrolebindings',
      {
        kind: 'GlobalRoleBinding',
        metadata: { name: 'robot-admin' },
        spec: { role: 'admin', subjects: [{ kind: 'User', name: 'ci-robot' }] },
      },
      bearer(admin),
    );
    expect((await s.api('GET', '/api/v1/users', undefined, bearer(token))).status).to.equal(200);
  });

  it('wrong audience, wrong issuer, expired, missing exp, foreign key or HS256 → 401', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const b64u = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const foreign = `${b64u({ alg: 'RS256', kid: 'fake-1' })}.${b64u(claims())}`;
    const forgedWithOtherKey = `${foreign}.${rsaSign('sha256', Buffer.from(foreign), privateKey).toString('base64url')}`;
    const noExp = claims();
    delete (noExp as Record<string, unknown>).exp;
    const bad = [
      idp.sign(claims({ aud: 'someone-else' })),
      idp.sign(claims({ iss: `${idp.issuer}/other` })),
      idp.sign(claims({ exp: now() - 120 })),
      idp.sign(noExp),
      forgedWithOtherKey,
      jwt.sign(claims(), 'guessable', { algorithm: 'HS256' }),
    ];
    for (const [i, token] of bad.entries()) {
      const r = await s.api('GET', '/api/v1/user/whoami', undefined, bearer(token));
      expect(r.status, `case ${i}: ${r.text}`).to.equal(401);
    }
  });

  it("STREAM-01: a watch and an audit watch opened with a provider access token end at the token's exp with a final 401 ERROR", async () => {
    const admin = await loginAdmin(s);
    const exp = now() + 3;
    const token = idp.sign(claims({ sub: 'watcher-sub', client_id: 'ci-watcher', exp }));
    // the first request with the token signs the robot in (its user exists from then on: a grant names someone who exists)
    expect((await s.api('GET', '/api/v1/user/whoami', undefined, bearer(token))).status).to.equal(200);
    const grant = {
      kind: 'GlobalRoleBinding',
      metadata: { name: 'watcher-admin' },
      spec: { role: 'admin', subjects: [{ kind: 'User', name: 'ci-watcher' }] },
    };
    const granted = await s.api('POST', '/api/v1/globalrolebindings', grant, bearer(admin));
    expect(granted.status, granted.text).to.equal(200);
    const streams = [
      await WatchStream.must(`${s.url}/api/v1/projects?watch=true`, bearer(token)),
      await WatchStream.must(`${s.url}/api/v1/audit?watch=true`, bearer(token)),
    ];
    for (const w of streams) {
      await w.waitEnded(15_000);
      expect(w.endedAt!).to.be.at.least(exp * 1000 - 50);
      expect(w.error()?.object).to.include({ code: 401, reason: 'Unauthorized' });
      expect(w.error()!.object!.message).to.match(/access token of this stream expired at .*identity provider/);
    }
  });

  it('a provider token cannot take over a native user of the same name', async () => {
    await signUp(s, 'mallory-target');
    const r = await s.api(
      'GET',
      '/api/v1/user/whoami',
      undefined,
      bearer(idp.sign(claims({ sub: 'other-sub', client_id: 'mallory-target' }))),
    );
    expect([401, 403]).to.include(r.status);
  });
});
