/**
 * The proxy's TLS settings from a Secret (docs/api.md §8, §9): CA, client certificate and key, server
 * name, insecureSkipVerify, against a node:https upstream that requires a client certificate.
 * Certificates come from `openssl` in a temporary directory.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { startTestServer, tempDir, type ApiResponse, type TestServer } from './helpers/server.js';

interface Pki {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate signed by another CA, that the upstream does not trust. */
  strangerCert: string;
  strangerKey: string;
}

/** A CA, a server certificate for localhost/127.0.0.1 and client certificates, made by openssl. */
function makePki(dir: string): Pki {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const ca = (name: string) =>
    ssl(
      'req',
      '-x509',
      ...ecKey,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=dashplane test ${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
  const leaf = (name: string, cn: string, caName: string, ext: string) => {
    writeFileSync(`${dir}/${name}.ext`, ext);
    ssl('req', ...ecKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${caName}.crt`,
      '-CAkey',
      `${caName}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    );
  };
  ca('ca');
  ca('other-ca');
  leaf(
    'server',
    'localhost',
    'ca',
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  leaf('client', 'dashplane-client', 'ca', 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n');
  leaf(
    'stranger',
    'stranger-client',
    'other-ca',
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  );
  const read = (f: string) => readFileSync(`${dir}/${f}`, 'utf8');
  return {
    ca: read('ca.crt'),
    serverCert: read('server.crt'),
    serverKey: read('server.key'),
    clientCert: read('client.crt'),
    clientKey: read('client.key'),
    strangerCert: read('stranger.crt'),
    strangerKey: read('stranger.key'),
  };
}

/** The base64 body of a PEM block (what a leak would contain, whatever the line breaks). */
const pemBody = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

describe('datasource proxy: TLS and client certificates from a Secret', function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  let pki: Pki;
  let upstream: Server;
  let port: number;
  let s: TestServer;
  /** Every response of the dashplane API seen by this file, to look for the keys in them. */
  const responses: ApiResponse[] = [];
  const call = async (p: Promise<ApiResponse>) => {
    const r = await p;
    responses.push(r);
    return r;
  };
  const ok = async (p: Promise<ApiResponse>, status = 200) => {
    const r = await call(p);
    expect(r.status, r.text).to.equal(status);
    return r;
  };
  const secret = (name: string, tlsConfig: Record<string, unknown>) =>
    ok(s.api('POST', '/api/v1/projects/p/secrets', { kind: 'Secret', metadata: { name }, spec: { tlsConfig } }));
  const datasource = (name: string, url: string, secretName?: string) =>
    ok(
      s.api('POST', '/api/v1/projects/p/datasources', {
        kind: 'Datasource',
        metadata: { name },
        spec: {
          default: false,
          plugin: {
            kind: 'PrometheusDatasource',
            spec: { proxy: { kind: 'HTTPProxy', spec: { url, ...(secretName ? { secret: secretName } : {}) } } },
          },
        },
      }),
    );
  const get = (ds: string, path = '/api/v1/status/buildinfo') => call(s.raw('GET', `/proxy/projects/p/datasources/${ds}${path}`));

  /** A 502 with a short message of ours: no stack, no PEM, no upstream URL. */
  const expectCleanBadGateway = (r: ApiResponse) => {
    expect(r.status, r.text).to.equal(502);
    expect(r.body?.message, r.text).to.be.a('string');
    expect(r.body.reason).to.equal('BadGateway');
    expect(r.body.message).to.match(/datasource/);
    expect(r.text).not.to.match(/-----BEGIN|\n\s+at |localhost:\d+|127\.0\.0\.1/);
  };

  before(async function () {
    this.timeout(30_000);
    dir = tempDir('dashplane-mtls-');
    pki = makePki(dir.path);
    upstream = createServer(
      { key: pki.serverKey, cert: pki.serverCert, ca: pki.ca, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ status: 'success', data: { client: peer.subject?.CN, path: req.url } }));
      },
    );
    upstream.on('tlsClientError', () => undefined);
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    port = (upstream.address() as AddressInfo).port;
    s = await startTestServer();
    await ok(s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} }));
    await secret('full', { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey });
    await secret('ca-only', { ca: pki.ca });
    await secret('no-ca', { cert: pki.clientCert, key: pki.clientKey });
    await secret('insecure', { cert: pki.clientCert, key: pki.clientKey, insecureSkipVerify: true });
    await secret('by-name', { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey, serverName: 'localhost' });
    await secret('wrong-name', { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey, serverName: 'not-this-host.example' });
    await secret('stranger', { ca: pki.ca, cert: pki.strangerCert, key: pki.strangerKey });
    const byHost = `https://localhost:${port}`;
    const byIp = `https://127.0.0.1:${port}`;
    await datasource('full', byHost, 'full');
    await datasource('ca-only', byHost, 'ca-only');
    await datasource('no-ca', byHost, 'no-ca');
    await datasource('no-secret', byHost);
    await datasource('insecure', byHost, 'insecure');
    await datasource('by-name', byIp, 'by-name');
    await datasource('wrong-name', byIp, 'wrong-name');
    await datasource('stranger', byHost, 'stranger');
  });
  after(async () => {
    try {
      await s?.stop();
    } finally {
      if (upstream) {
        upstream.closeAllConnections();
        await new Promise((r) => upstream.close(r));
      }
      dir?.remove();
    }
  });

  it('ca + cert + key: 200, the upstream saw our client certificate', async () => {
    const r = await get('full');
    expect(r.status, r.text).to.equal(200);
    expect(r.body.data).to.deep.equal({ client: 'dashplane-client', path: '/api/v1/status/buildinfo' });
  });

  it('https://127.0.0.1 with serverName localhost: 200', async () => {
    const r = await get('by-name');
    expect(r.status, r.text).to.equal(200);
    expect(r.body.data.client).to.equal('dashplane-client');
  });

  it('a serverName the certificate does not name: 502', async () => {
    expectCleanBadGateway(await get('wrong-name'));
  });

  it('without the client certificate (Secret with only ca): 502 with a clean message, and the server stays healthy', async () => {
    for (let i = 0; i < 3; i++) expectCleanBadGateway(await get('ca-only'));
    const h = await ok(s.api('GET', '/api/v1/health'));
    expect(h.body.database).to.equal(true);
    const again = await get('full');
    expect(again.status, again.text).to.equal(200);
  });

  it('a client certificate from a CA the upstream does not trust: 502', async () => {
    expectCleanBadGateway(await get('stranger'));
  });

  it('no CA (the test CA is unknown to the system store): 502, with or without a client certificate', async () => {
    expectCleanBadGateway(await get('no-ca'));
    expectCleanBadGateway(await get('no-secret'));
  });

  it('insecureSkipVerify + client certificate, no CA: 200', async () => {
    const r = await get('insecure');
    expect(r.status, r.text).to.equal(200);
    expect(r.body.data.client).to.equal('dashplane-client');
  });

  it('concurrent calls through different TLS settings do not mix', async () => {
    const rs = await Promise.all(['full', 'ca-only', 'insecure', 'no-ca', 'full', 'by-name'].map((d) => get(d, `/x/${d}`)));
    expect(rs.map((r) => r.status)).to.deep.equal([200, 502, 200, 502, 200, 200]);
    expect(rs[0].body.data.path).to.equal('/x/full');
  });

  it('the Secret reads back with "<secret>" for ca, cert and key; no API response ever held the private key', async () => {
    const one = await ok(s.api('GET', '/api/v1/projects/p/secrets/full'));
    expect(one.body.spec.tlsConfig).to.deep.equal({ ca: '<secret>', cert: '<secret>', key: '<secret>' });
    const named = await ok(s.api('GET', '/api/v1/projects/p/secrets/by-name'));
    expect(named.body.spec.tlsConfig).to.include({ key: '<secret>', serverName: 'localhost' });
    await ok(s.api('GET', '/api/v1/projects/p/secrets'));
    await ok(s.api('GET', '/api/v1/secrets'));
    await ok(s.api('GET', '/api/v1/projects/p/datasources'));
    await ok(s.api('GET', '/api/config'));
    expect(responses.length).to.be.greaterThan(20);
    for (const key of [pki.clientKey, pki.strangerKey]) {
      const body = pemBody(key);
      for (const r of responses) {
        expect(r.text).not.to.include(body);
        expect(r.text).not.to.include(body.slice(0, 40));
        expect(r.text).not.to.include('PRIVATE KEY');
      }
    }
  });
});
