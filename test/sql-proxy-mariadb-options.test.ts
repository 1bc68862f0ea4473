/**
 * The SQL proxy's MySQL and MariaDB settings against a real MariaDB with TLS (docs/datasources.md,
 * "MySQL and MariaDB"): TLS from params.tls and the Secret's tlsConfig (the chain, the name, an
 * address's name), Perses' params as session variables (the unsafe ones refused),
 * maxAllowedPacket, readTimeout; a query whose caller goes away, or that outlives readTimeout, is
 * stopped on the database with KILL QUERY; and a hostile server asking for a local file (LOAD
 * DATA LOCAL INFILE) gets none.
 *
 * Cast: a CA and a server certificate for the name localhost only (no IP address in it), made by
 * openssl; a MariaDB using them, with the database `dpdb` and the login `dpreader`; a server with
 * auth on and a statement timeout of 30 s (so that only KILL QUERY can stop a query early),
 * admin owning project `opt`.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, LOOPBACK_UPSTREAMS, loginAdmin, startAuthServer } from './helpers/auth.js';
import { startHostileMysql } from './helpers/hostile-mysql.js';
import { startMariaDb, type TestMariaDb } from './helpers/mariadb.js';
import { skipWithoutProgram } from './helpers/programs.js';
import { type TestServer, tempDir } from './helpers/server.js';
import { basicSecret, ok, sqlDatasource } from './helpers/sql-datasources.js';
import { waitFor } from './helpers/wait.js';

const PASSWORD = 'dp-options-password';

/** A CA and a server certificate for DNS:localhost (no IP name), readable by the mysql user. */
function makeCertificates(dir: string): { ca: string } {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=dashplane test mariadb ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
  );
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  ssl('req', ...ecKey, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  chmodSync(dir, 0o755);
  for (const f of ['ca.crt', 'server.crt', 'server.key']) chmodSync(join(dir, f), 0o644);
  return { ca: readFileSync(join(dir, 'ca.crt'), 'utf8') };
}

describe('SQL proxy (MySQL and MariaDB): TLS, params, KILL QUERY, LOCAL INFILE', function () {
  this.timeout(60_000);
  const certs = tempDir('dashplane-mariadb-tls-');
  let ca: string;
  let db: TestMariaDb;
  let s: TestServer;
  let h: Record<string, string>;
  const spec = (extra: Record<string, unknown> = {}, params: Record<string, string> = {}) => ({
    driver: 'mariadb',
    host: `127.0.0.1:${db.port}`,
    database: 'dpdb',
    secret: 'plain',
    mariadb: { params },
    ...extra,
  });
  /** Saves datasource `name` with `spec` and queries it. */
  const tryQuery = async (name: string, dsSpec: Record<string, unknown>, sql: string) => {
    await ok(s.api('POST', '/api/v1/projects/opt/datasources', sqlDatasource(name, dsSpec), h));
    return s.api('POST', `/proxy/projects/opt/datasources/${name}`, { query: sql }, h);
  };
  const secret = (name: string, tlsConfig?: Record<string, unknown>) =>
    ok(s.api('POST', '/api/v1/projects/opt/secrets', basicSecret(name, PASSWORD, tlsConfig ? { extra: { tlsConfig } } : {}), h));
  const sleeping = (seconds: number) =>
    db
      .query<{ n: number }>(`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP(${seconds})%'`)
      .then((r) => Number(r[0].n));

  before(async function () {
    skipWithoutProgram(this, 'mariadb');
    ({ ca } = makeCertificates(certs.path));
    db = await startMariaDb({
      args: [
        `--ssl-ca=${join(certs.path, 'ca.crt')}`,
        `--ssl-cert=${join(certs.path, 'server.crt')}`,
        `--ssl-key=${join(certs.path, 'server.key')}`,
      ],
    });
    await db.query('CREATE DATABASE dpdb');
    await db.query(`CREATE USER 'dpreader'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'`);
    await db.query(`GRANT SELECT ON dpdb.* TO 'dpreader'@'127.0.0.1'`);
    s = await startAuthServer({ ...LOOPBACK_UPSTREAMS, DASHPLANE_PROXY_SQL_STATEMENT_TIMEOUT: '30s' });
    h = bearer(await loginAdmin(s));
    await ok(s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'opt' }, spec: {} }, h));
    await secret('plain');
    await secret('ca', { ca });
    await secret('ca-localhost', { ca, serverName: 'localhost' });
    await secret('ca-othername', { ca, serverName: 'db.example.com' });
    await secret('skip', { insecureSkipVerify: true });
  });
  after(async () => {
    await s?.stop();
    await db?.stop();
    certs.remove();
  });

  it("TLS is required and checked unless params.tls says otherwise: the Secret's ca, the name (serverName, else the host, an address too), insecureSkipVerify, skip-verify, preferred, false", async () => {
    const tlsVersion = "SHOW SESSION STATUS LIKE 'Ssl_version'";
    const cases: [string, Record<string, unknown>, Record<string, string>, number, RegExp?][] = [
      // no ca: the test CA is not among the system's
      ['noca', {}, {}, 502, /TLS connection to the database failed.*tlsConfig/],
      // the certificate names localhost, not 127.0.0.1
      ['ip', { secret: 'ca' }, {}, 502, /TLS connection to the database failed/],
      ['named', { secret: 'ca-localhost' }, {}, 200],
      ['truename', { secret: 'ca-localhost' }, { tls: 'true' }, 200],
      ['othername', { secret: 'ca-othername' }, {}, 502, /TLS connection to the database failed/],
      ['insecure', { secret: 'skip' }, {}, 200],
      ['skipverify', {}, { tls: 'skip-verify' }, 200],
      ['preferred', {}, { tls: 'preferred' }, 200],
      ['off', {}, { tls: 'false' }, 200],
      ['conflict', { secret: 'ca' }, { tls: 'false' }, 400, /tlsConfig but its params.tls is false/],
    ];
    for (const [name, extra, params, status, message] of cases) {
      const r = await tryQuery(`tls-${name}`, spec(extra, params), tlsVersion);
      expect(r.status, `${name}: ${r.text}`).to.equal(status);
      if (message) expect(r.body.message, name).to.match(message);
      if (status === 200) expect(r.body.rows[0].Value, name).to.match(params.tls === 'false' ? /^$/ : /^TLSv1\.[23]$/);
    }
  });

  it('TLS against a server that offers none: required by default (502 saying so), preferred falls back to plain', async () => {
    const hostile = await startHostileMysql('/etc/hostname');
    try {
      const r = await tryQuery('notls', spec({ host: `127.0.0.1:${hostile.port}` }), 'SELECT 1');
      expect(r.status, r.text).to.equal(502);
      expect(r.body.message).to.include('does not offer TLS').and.include('params.tls');
      expect(hostile.clientFlags, 'logins sent').to.deep.equal([]);
      // preferred: connected again without TLS, logged in, and ran the query (which this server answers with a file request)
      const p = await tryQuery('notls-preferred', spec({ host: `127.0.0.1:${hostile.port}` }, { tls: 'preferred' }), 'SELECT 1');
      expect(p.body.message, p.text).to.include('LOCAL INFILE');
      expect(hostile.clientFlags).to.have.length(1);
    } finally {
      await hostile.close();
    }
  });

  it('a server asking for a local file (LOAD DATA LOCAL INFILE, in answer to any query) gets none: the client neither announces LOCAL INFILE nor sends a byte of the file', async () => {
    const file = join(certs.path, 'ca.key');
    const hostile = await startHostileMysql(file);
    try {
      const r = await tryQuery('hostile', spec({ host: `127.0.0.1:${hostile.port}` }, { tls: 'false' }), 'SELECT 1');
      expect(r.status, r.text).to.equal(502);
      expect(r.body.message).to.include('asked for a file of the dashplane server (LOCAL INFILE) and got none');
      expect(hostile.clientFlags).to.have.length(1);
      expect(hostile.clientFlags[0] & 0x80, 'CLIENT_LOCAL_FILES').to.equal(0);
      expect(hostile.clientFlags[0] & 0x10000, 'CLIENT_MULTI_STATEMENTS').to.equal(0);
      expect(Buffer.concat(hostile.sentAfterFileRequest).length, 'bytes sent for the file').to.equal(0);
      expect(hostile.sentAfterFileRequest).to.have.length(1);
    } finally {
      await hostile.close();
    }
  });

  it("params: session variables apply, dashplane's own settings hold, Go driver options are honoured or ignored, unsafe ones refused at save; an unknown variable is 400 naming params", async () => {
    const settings =
      'SELECT @@SESSION.sql_mode AS mode, @@SESSION.tx_read_only AS ro, @@SESSION.time_zone AS tz, @@SESSION.max_statement_time AS limit_s';
    const r = await ok(
      tryQuery('params', spec({}, { tls: 'false', sql_mode: "'ANSI_QUOTES'", parseTime: 'true', loc: 'Local' }), settings),
    );
    expect(r.body.rows).to.deep.equal([{ mode: 'ANSI_QUOTES', ro: 1, tz: '+00:00', limit_s: 30 }]);
    const refused: [string, string][] = [
      ['multiStatements', 'true'],
      ['allowAllFiles', 'true'],
      ['allowCleartextPasswords', '1'],
      ['tx_read_only', '0'],
      ['max_statement_time', '0'],
      ['tls', 'custom-config'],
      ['sql_mode', "ANSI'; DROP TABLE x; --"],
      ['bad name', '1'],
      ['readTimeout', '5 seconds'],
    ];
    for (const [param, value] of refused) {
      const bad = await s.api('POST', '/api/v1/projects/opt/datasources', sqlDatasource('refused', spec({}, { [param]: value })), h);
      expect(bad.status, `${param}: ${bad.text}`).to.equal(400);
      const at = /^\w+$/.test(param) ? `.${param}` : `[${JSON.stringify(param)}]`;
      expect(bad.body.details.map((d: { path: string }) => d.path)).to.include(`spec.plugin.spec.proxy.spec.mariadb.params${at}`);
    }
    const unknown = await tryQuery('unknownvar', spec({}, { tls: 'false', no_such_variable: '1' }), 'SELECT 1');
    expect(unknown.status, unknown.text).to.equal(400);
    expect(unknown.body.message).to.include('mariadb.params').and.include('no_such_variable');
    const packet = await tryQuery(
      'packet',
      spec({ mariadb: { params: { tls: 'false' }, maxAllowedPacket: 16 } }),
      'SELECT 1 AS a_rather_long_name',
    );
    expect(packet.status, packet.text).to.equal(400);
    expect(packet.body.message).to.include('mariadb.maxAllowedPacket (16 bytes)');
  });

  it('a query silent past readTimeout is stopped on the database (KILL QUERY) and answered 504 naming readTimeout', async () => {
    const started = Date.now();
    const r = await tryQuery('silent', spec({ mariadb: { params: { tls: 'false' }, readTimeout: '500ms' } }), 'SELECT SLEEP(20)');
    expect(r.status, r.text).to.equal(504);
    expect(r.body.message).to.include('readTimeout').and.include('KILL QUERY');
    expect(Date.now() - started).to.be.below(10_000);
    // without KILL QUERY the statement runs on until MariaDB next checks its connection (every 5 s in SLEEP)
    await waitFor('SLEEP(20) stopped', async () => (await sleeping(20)) === 0, 2_000);
  });

  it('a caller that goes away: its query is stopped on the database (KILL QUERY), the datasource still answers', async () => {
    await ok(s.api('POST', '/api/v1/projects/opt/datasources', sqlDatasource('cancel', spec({}, { tls: 'false' })), h));
    const abort = new AbortController();
    const request = fetch(`${s.url}/proxy/projects/opt/datasources/cancel`, {
      method: 'POST',
      headers: { ...h, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'SELECT SLEEP(25)' }),
      signal: abort.signal,
    }).catch((e: Error) => e);
    await waitFor('SLEEP(25) running', async () => (await sleeping(25)) === 1);
    abort.abort();
    expect(await request).to.be.instanceOf(Error);
    // (within 2 s: without KILL QUERY, MariaDB's SLEEP notices the closed connection only at its next 5 s check)
    await waitFor('SLEEP(25) stopped', async () => (await sleeping(25)) === 0, 2_000);
    expect((await ok(s.api('POST', '/proxy/projects/opt/datasources/cancel', { query: 'SELECT 5 AS five' }, h))).body.rows).to.deep.equal([
      { five: 5 },
    ]);
  });
});
