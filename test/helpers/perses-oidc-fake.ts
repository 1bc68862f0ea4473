import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The OpenID provider of Perses' e2e framework (NewOIDCProviderTestServer), speaking the real
 * HTTP API: discovery, `/auth` (a page), `/device`, `/token` (any grant: an access token and an
 * ID token for the subject `john.doeOIDC`, audiences unit, test and clientID, azp clientID, plus
 * `claims`), `/user_infos` and `/keys`. Perses signs with a key whose JWK says PS512 while its
 * tokens say RS256 (its library does not compare them); here key and tokens agree, as a real
 * provider's do.
 */
export interface PersesOidcFake {
  issuer: string;
  /** Extra claims of the ID token (Perses' NewOIDCProviderTestServerWithClaims). */
  claims: Record<string, unknown>;
  /** The provider entry of dashplane's configuration (security.authentication.providers.oidc[]). */
  entry(slug: string, extra?: Record<string, unknown>): Record<string, unknown>;
  stop(): Promise<void>;
}

export async function startPersesOidcFake(claims: Record<string, unknown> = {}): Promise<PersesOidcFake> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'perses-e2e', alg: 'RS256', use: 'sig' };
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const jwt = (payload: Record<string, unknown>) => {
    const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: jwk.kid })}.${b64(payload)}`;
    return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    req.resume();
    req.on('end', () => answer(path, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: PersesOidcFake = {
    issuer,
    claims,
    entry: (slug, extra = {}) => ({ slug_id: slug, name: slug, client_id: 'clientID', client_secret: 'clientSecret', issuer, ...extra }),
    stop: () => new Promise((r) => server.close(() => r())),
  };
  const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  function answer(path: string, res: ServerResponse): ServerResponse | undefined {
    const now = Math.floor(Date.now() / 1000);
    const common = { iss: issuer, sub: 'john.doeOIDC', aud: ['unit', 'test', 'clientID'], exp: now + 60, iat: now, nbf: now - 1 };
    if (path === '/.well-known/openid-configuration') {
      return json(res, {
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        device_authorization_endpoint: `${issuer}/device`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/user_infos`,
        jwks_uri: `${issuer}/keys`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (path === '/auth') {
      return res.writeHead(200, { 'content-type': 'text/plain' }).end("Provider's Auth Endpoint");
    }
    if (path === '/device') return json(res, { device_code: 'myCode', user_code: 'myUser', verification_uri: 'myURL' });
    if (path === '/token') {
      const idToken = jwt({ ...common, auth_time: now - 60, acr: 'something', amr: ['foo', 'bar'], azp: 'clientID', ...fake.claims });
      return json(res, {
        access_token: jwt({ ...common, jti: '9876', client_id: 'clientID' }),
        token_type: 'Bearer',
        id_token: idToken,
        expires_in: 250,
      });
    }
    if (path === '/user_infos') return json(res, { sub: 'john.doeOIDC' });
    if (path === '/keys') return json(res, { keys: [jwk] });
    return res.writeHead(404).end();
  }
  return fake;
}
