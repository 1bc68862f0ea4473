/**
 * PROXY-26 of docs/security.md: a datasource whose Secret has `oauth` client credentials gets a
 * token from the Secret's tokenURL (RFC 6749 §4.4, the client-credentials grant), keeps it until
 * shortly before it expires, fetches another then, and sends `Authorization: Bearer <token>`
 * upstream. The token endpoint below is a small fake written from RFC 6749 (§2.3.1 client
 * authentication, §4.4.2 the request, §5.1 and §5.2 the answers) that hands out short-lived
 * tokens and counts requests; the upstream accepts only its live tokens.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { callJson, tempDir } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const CLIENT_SECRET = `OAUTH-CANARY-${randomBytes(9).toString('hex')}`;
/** Registered clients: id -> [secret, the client authentication methods it was registered with]. */
const CLIENTS: Record<string, [string, ('basic' | 'body')[]]> = {
  dashplane: [CLIENT_SECRET, ['basic', 'body']],
  'body-only': [CLIENT_SECRET, ['body']],
};

interface TokenRequest {
  method: 'basic' | 'body' | 'none';
  client?: string;
  form: Record<string, string>;
  at: number;
}

/** An OAuth 2.0 authorization server's token endpoint, client-credentials grant only. */
class FakeTokenEndpoint {
  readonly server = http.createServer((req, res) => this.handle(req, res));
  requests: TokenRequest[] = [];
  /** Live tokens and their expiry (ms since the epoch). */
  readonly tokens = new Map<string, number>();
  expiresIn = 2;
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  isLive(token: string): boolean {
    return (this.tokens.get(token) ?? 0) > Date.now();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = '';
    req.on('data', (b: Buffer) => (body += b.toString()));
    req.on('end', () => {
      const answer = (status: number, json: Record<string, unknown>, headers: Record<string, string> = {}) => {
        res.writeHead(status, {
          'content-type': 'application/json;charset=UTF-8',
          'cache-control': 'no-store',
          pragma: 'no-cache',
          ...headers,
        });
        res.end(JSON.stringify(json));
      };
      if (req.url === '/redirect') return answer(302, {}, { location: 'http://169.254.169.254/latest/meta-data/' });
      if (req.method !== 'POST' || !/^application\/x-www-form-urlencoded\b/.test(req.headers['content-type'] ?? ''))
        return answer(400, { error: 'invalid_request' });
      const form = Object.fromEntries(new URLSearchParams(body));
      // §2.3.1: HTTP Basic with the form-encoded id and secret, or the client_id/client_secret parameters; never both
      const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
      const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
      let method: TokenRequest['method'] = 'none';
      let id: string | undefined;
      let secret: string | undefined;
      if (basic) {
        const [u, p] = Buffer.from(basic[1], 'base64').toString().split(':');
        [method, id, secret] = ['basic', decode(u), decode(p ?? '')];
      }
      if (form.client_secret !== undefined) {
        if (basic) return answer(400, { error: 'invalid_request', error_description: 'more than one client authentication method' });
        [method, id, secret] = ['body', form.client_id, form.client_secret];
      }
      this.requests.push({ method, ...(id ? { client: id } : {}), form, at: Date.now() });
      const client = id === undefined ? undefined : CLIENTS[id];
      if (!client || client[0] !== secret || !client[1].includes(method as 'basic' | 'body')) {
        // the answer a careless server could give: the presented secret echoed back
        return answer(
          401,
          { error: 'invalid_client', error_description: `client ${id} with secret ${secret} is not known` },
          basic ? { 'www-authenticate': 'Basic realm="token"' } : {},
        );
      }
      if (form.grant_type !== 'client_credentials') return answer(400, { error: 'unsupported_grant_type' });
      const token = randomBytes(12).toString('base64url');
      this.tokens.set(token, Date.now() + this.expiresIn * 1000);
      answer(200, { access_token: token, token_type: 'bearer', expires_in: this.expiresIn, scope: form.scope });
    });
  }
}

describe('proxy: Secrets with OAuth client credentials (PROXY-26)', function () {
  this.timeout(60_000);
  const dir = tempDir();
  let auth: FakeTokenEndpoint;
  let upstream: http.Server;
  let seen: { authorization?: string; status: number }[] = [];
  let srv: ServerProcess;
  const call = (method: string, path: string, body?: unknown) => callJson(srv.url, method, path, body);
  const secret = (name: string, oauth: Record<string, unknown>) => ({ kind: 'Secret', metadata: { name }, spec: { oauth } });
  // each request a different query, so each goes upstream (the query cache would answer a repeated one)
  let queries = 0;
  const proxied = (ds: string) => call('GET', `/proxy/projects/p/datasources/${ds}/api/v1/query?query=up&n=${++queries}`);

  async function datasource(name: string, secretName: string): Promise<void> {
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const ds = {
      kind: 'Datasource',
      metadata: { name },
      spec: {
        default: false,
        plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url, secret: secretName } } } },
      },
    };
    const r = await call('POST', '/api/v1/projects/p/datasources', ds);
    expect(r.status, r.text).to.equal(200);
  }

  before(async () => {
    auth = await new FakeTokenEndpoint().start();
    // the datasource: answers only requests with a live token of the fake authorization server
    upstream = http.createServer((req, res) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const status = token && auth.isLive(token) ? 200 : 401;
      seen.push({ ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), status });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: status === 200 ? 'success' : 'error' }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    srv = await spawnServer({ dataDir: dir.path, env: { DASHPLANE_PROXY_TIMEOUT: '2s' } });
    expect((await call('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} })).status).to.equal(200);
  });
  beforeEach(() => {
    auth.requests = [];
    seen = [];
  });
  after(async () => {
    if (srv) await stopChild(srv.child);
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
    await new Promise<void>((resolve) => auth?.server.close(() => resolve()));
    dir.remove();
  });

  it('PROXY-26: the first request fetches a token (scopes, endpointParams), the next ones use it, and a new one is fetched before it expires', async () => {
    const oauth = {
      clientID: 'dashplane',
      clientSecret: CLIENT_SECRET,
      tokenURL: `${auth.url}/token`,
      scopes: ['metrics:read', 'logs:read'],
      endpointParams: { audience: ['prometheus'] },
    };
    expect((await call('POST', '/api/v1/projects/p/secrets', secret('oauth', oauth))).status).to.equal(200);
    await datasource('prom', 'oauth');
    const first = await proxied('prom');
    expect(first.status, first.text).to.equal(200);
    expect(auth.requests).to.have.length(1);
    expect(auth.requests[0]).to.deep.include({ method: 'basic', client: 'dashplane' });
    expect(auth.requests[0].form).to.deep.equal({
      grant_type: 'client_credentials',
      scope: 'metrics:read logs:read',
      audience: 'prometheus',
    });
    const token = seen[0].authorization!;
    expect(token).to.match(/^Bearer \S+$/);
    const second = await proxied('prom');
    expect(second.status).to.equal(200);
    expect(auth.requests, 'the second request used the cached token').to.have.length(1);
    expect(seen[1].authorization).to.equal(token);
    // keep calling: a new token comes before the first one expires (2 s), and no call is refused
    await waitFor(
      'a second token',
      async () => {
        expect((await proxied('prom')).status).to.equal(200);
        return auth.requests.length === 2;
      },
      10_000,
      100,
    );
    expect(auth.requests[1].at - auth.requests[0].at, 'the first token was kept for about half its lifetime').to.be.at.least(900);
    expect(seen.at(-1)!.authorization).to.not.equal(token);
    expect(
      seen.filter((s) => s.status !== 200),
      'requests the upstream refused',
    ).to.deep.equal([]);
    expect(JSON.stringify(seen)).to.not.include(CLIENT_SECRET);
  });

  it('PROXY-26: concurrent requests share one token request; a revoked token is replaced after the upstream refuses it once', async () => {
    const oauth = { clientID: 'dashplane', clientSecret: CLIENT_SECRET, tokenURL: `${auth.url}/token` };
    expect((await call('POST', '/api/v1/projects/p/secrets', secret('shared', oauth))).status).to.equal(200);
    await datasource('shared', 'shared');
    auth.expiresIn = 3600;
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => proxied('shared')));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(8).fill(200));
      expect(auth.requests).to.have.length(1);
      auth.tokens.clear(); // revoked at the authorization server
      expect((await proxied('shared')).status, 'the upstream refuses the revoked token').to.equal(401);
      expect((await proxied('shared')).status, 'the next request fetches a new one').to.equal(200);
      expect(auth.requests).to.have.length(2);
    } finally {
      auth.expiresIn = 2;
    }
  });

  it('PROXY-26: authStyle: 1 sends the credentials in the form, 2 with HTTP Basic, 0 finds the one the server takes', async () => {
    const base = { clientID: 'body-only', clientSecret: CLIENT_SECRET, tokenURL: `${auth.url}/token` };
    for (const [name, authStyle] of [
      ['style-1', 1],
      ['style-2', 2],
      ['style-0', 0],
    ] as const) {
      expect((await call('POST', '/api/v1/projects/p/secrets', secret(name, { ...base, authStyle }))).status).to.equal(200);
      await datasource(name, name);
    }
    expect((await proxied('style-1')).status).to.equal(200);
    expect(auth.requests.map((r) => r.method)).to.deep.equal(['body']);
    auth.requests = [];
    const basic = await proxied('style-2');
    expect(basic.status, basic.text).to.equal(502);
    expect(auth.requests.map((r) => r.method)).to.deep.equal(['basic']);
    auth.requests = [];
    const auto = await proxied('style-0');
    expect(auto.status, auto.text).to.equal(200);
    expect(
      auth.requests.map((r) => r.method),
      'HTTP Basic first, then the form',
    ).to.deep.equal(['basic', 'body']);
  });

  it('PROXY-26: a wrong client secret is a 502 naming the fields to check, and the secret is in no answer or log line; the upstream gets nothing', async () => {
    const wrong = `${CLIENT_SECRET}-wrong`;
    expect(
      (
        await call(
          'POST',
          '/api/v1/projects/p/secrets',
          secret('wrong', { clientID: 'dashplane', clientSecret: wrong, tokenURL: `${auth.url}/token`, authStyle: 2 }),
        )
      ).status,
    ).to.equal(200);
    await datasource('wrong', 'wrong');
    const r = await proxied('wrong');
    expect(r.status, r.text).to.equal(502);
    expect(r.body.message).to.contain('invalid_client').and.contain('oauth.clientID');
    expect(r.text).to.not.include(CLIENT_SECRET);
    expect(seen).to.deep.equal([]);
    await waitFor('the log line of the refusal', () => srv.output().includes('refused a token request'));
    expect(srv.output()).to.not.include(CLIENT_SECRET);
    expect(srv.output()).to.not.include(Buffer.from(`dashplane:${wrong}`).toString('base64').slice(0, 24));
  });

  it('PROXY-26: the token request obeys the denylist and never follows a redirect; a bad tokenURL or endpointParams is refused at save', async () => {
    const denied = secret('metadata', {
      clientID: 'dashplane',
      clientSecret: CLIENT_SECRET,
      tokenURL: 'http://[::ffff:169.254.169.254]/token',
    });
    expect((await call('POST', '/api/v1/projects/p/secrets', denied)).status).to.equal(200);
    await datasource('metadata', 'metadata');
    const r = await proxied('metadata');
    expect(r.status, r.text).to.equal(403);
    expect(r.body.message).to.contain('oauth.tokenURL').and.contain('proxy.denied_networks');
    expect(
      (
        await call(
          'POST',
          '/api/v1/projects/p/secrets',
          secret('redirect', { clientID: 'dashplane', clientSecret: CLIENT_SECRET, tokenURL: `${auth.url}/redirect` }),
        )
      ).status,
    ).to.equal(200);
    await datasource('redirect', 'redirect');
    expect((await proxied('redirect')).status).to.equal(502);
    expect(seen).to.deep.equal([]);
    const bad: [Record<string, unknown>, string][] = [
      [{ clientID: 'x', tokenURL: 'not a url' }, 'spec.oauth.tokenURL'],
      [{ clientID: 'x', tokenURL: 'file:///etc/passwd' }, 'spec.oauth.tokenURL'],
      [{ clientID: 'x', tokenURL: `http://user:pw@127.0.0.1/token` }, 'spec.oauth.tokenURL'],
      [
        { clientID: 'x', tokenURL: `${auth.url}/token`, endpointParams: { client_secret: ['s'] } },
        'spec.oauth.endpointParams.client_secret',
      ],
      [
        { clientID: 'x', tokenURL: `${auth.url}/token`, scopes: ['a'], endpointParams: { scope: ['b'] } },
        'spec.oauth.endpointParams.scope',
      ],
    ];
    for (const [oauth, path] of bad) {
      const save = await call('POST', '/api/v1/projects/p/secrets', secret('bad', oauth));
      expect(save.status, JSON.stringify(oauth)).to.equal(400);
      expect(save.text, JSON.stringify(oauth)).to.contain(path);
    }
  });
});
