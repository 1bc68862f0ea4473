import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A plain OAuth 2.0 provider with the quirks real providers (and Perses' own test provider) have,
 * speaking the real HTTP API: `/auth` (a page), `/device` (device authorization, without
 * `expires_in` by default), `/token` (any grant; a token type of
 * its own word; GitHub's `authorization_pending` with status 200 while `pendingPolls` remain) and
 * `/user_infos` (whatever `profile` holds: only an e-mail by default).
 */
export interface QuirkyOAuthProvider {
  url: string;
  /** What the user info endpoint answers. */
  profile: Record<string, unknown>;
  /** token_type of token answers (undefined: left out). */
  tokenType: string | undefined;
  /** The device authorization answer. */
  device: Record<string, unknown>;
  /** Device-code polls still answered `authorization_pending` (with status 200, as GitHub does). */
  pendingPolls: number;
  /** Authorization headers the user info endpoint received. */
  readonly profileAuthorizations: string[];
  /** The provider entry of dashplane's configuration (security.authentication.providers.oauth[]). */
  entry(slug: string, extra?: Record<string, unknown>): Record<string, unknown>;
  stop(): Promise<void>;
}

export async function startQuirkyOAuthProvider(): Promise<QuirkyOAuthProvider> {
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const p: QuirkyOAuthProvider = {
    url,
    profile: { email: 'john.doe@gmail.com' },
    tokenType: 'myTokenType',
    device: { device_code: 'myCode', user_code: 'myUser', verification_uri: 'myURL' },
    pendingPolls: 0,
    profileAuthorizations: [],
    entry: (slug, extra = {}) => ({
      slug_id: slug,
      name: slug,
      client_id: 'unused but required',
      client_secret: 'unused but required',
      auth_url: `${url}/auth`,
      token_url: `${url}/token`,
      user_infos_url: `${url}/user_infos`,
      device_auth_url: `${url}/device`,
      ...extra,
    }),
    stop: () => new Promise((r) => server.close(() => r())),
  };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const form = new URLSearchParams(await text(req));
    if (path === '/auth') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end("Provider's Auth Endpoint");
    }
    if (path === '/device' && req.method === 'POST') return json(res, 200, p.device);
    if (path === '/token' && req.method === 'POST') {
      const grant = form.get('grant_type');
      if (grant === 'urn:ietf:params:oauth:grant-type:device_code' && p.pendingPolls > 0) {
        p.pendingPolls--;
        return json(res, 200, { error: 'authorization_pending', error_description: 'the user has not approved yet' });
      }
      return json(res, 200, {
        access_token: 'myToken',
        refresh_token: 'myRefreshToken',
        expiry: new Date(Date.now() + 4 * 3600_000).toISOString(),
        ...(p.tokenType === undefined ? {} : { token_type: p.tokenType }),
      });
    }
    if (path === '/user_infos') {
      p.profileAuthorizations.push(req.headers.authorization ?? '');
      return json(res, 200, p.profile);
    }
    json(res, 404, { error: 'not_found' });
  }
  return p;
}

function text(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}
