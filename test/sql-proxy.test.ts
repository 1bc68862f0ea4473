/**
 * The SQL proxy (docs/datasources.md, "SQL datasources") against a real PostgreSQL: Perses'
 * PostgresDatasource and SQLDatasource with an SQLProxy block, queried with
 * `POST {"query"}` on the three proxy routes, answered in Perses' shape; read-only by
 * construction, the statement timeout, the row and byte caps, permissions, the login from the
 * Secret only, the denylist on the database host, pools closed with their datasource. Rows SQL-01
 * to SQL-07 of docs/security.md.
 *
 * Cast: a cluster with the database `db` owned by the role `dpreader` (password auth, the owner:
 * it could write, so only the proxy's read-only transaction stops writes); a server with auth on
 * (loopback allowed: the cluster listens on 127.0.0.1), admin owning project `sqlp` with Secret
 * `login` and the datasource `pg`.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import pg from 'pg';
import { bearer, LOOPBACK_UPSTREAMS, login, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import type { TestServer } from './helpers/server.js';
import { basicSecret, ok, sqlDatasource } from './helpers/sql-datasources.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const LIMITS = { DASHPLANE_PROXY_SQL_MAX_ROWS: '50', DASHPLANE_PROXY_SQL_MAX_BYTES: '262144', DASHPLANE_PROXY_SQL_STATEMENT_TIMEOUT: '1s' };

/** A PostgresDatasource (the plugin name Perses' API tests give it) body. */
const pgDatasource = (name: string, spec: Record<string, unknown>, kind = 'Datasource', plugin = 'PostgresDatasource') =>
  sqlDatasource(name, spec, kind, plugin);

describe('SQL proxy (PostgreSQL)', function () {
  needsPrograms('postgresql');
  this.timeout(60_000);
  let cluster: TestPostgres;
  let db: { host: string; port: number; database: string };
  let admin: pg.Client;
  let s: TestServer;
  let asAdmin: () => Record<string, string>;
  /** The datasource spec of `pg`, with `extra` fields. */
  let target: (extra?: Record<string, unknown>) => Record<string, unknown>;
  const query = (path: string, q: string, headers = asAdmin()) => s.api('POST', path, { query: q }, headers);
  const PG = '/proxy/projects/sqlp/datasources/pg';
  const count = async (sql: string) => Number((await admin.query(sql)).rows[0].n);
  /** Connections the proxy holds to the database `name` now. */
  const proxyConnections = (name: string) =>
    count(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'dashplane-sql-proxy' AND datname = '${name}'`);

  before(async () => {
    cluster = await startPostgres();
    db = await cluster.createPasswordDatabase('dpreader', PASSWORD);
    admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${db.port}/${db.database}` });
    await admin.connect();
    await admin.query(`CREATE TABLE readings (id int, name text, value float8, at timestamptz, big bigint, ok boolean, doc jsonb);
      INSERT INTO readings SELECT g, 'n' || g, g * 1.5, '2024-01-01T00:00:00Z'::timestamptz + g * interval '1 minute', 9007199254740993, g % 2 = 0, jsonb_build_object('g', g) FROM generate_series(1, 100) g;
      ALTER TABLE readings OWNER TO dpreader; CREATE SEQUENCE counter; ALTER SEQUENCE counter OWNER TO dpreader`);
    target = (extra = {}) => ({ driver: 'postgres', host: `127.0.0.1:${db.port}`, database: db.database, secret: 'login', ...extra });
    s = await startAuthServer({ ...LOOPBACK_UPSTREAMS, ...LIMITS });
    const t = await loginAdmin(s);
    asAdmin = () => bearer(t);
    await ok(s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'sqlp' }, spec: {} }, asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/sqlp/secrets', basicSecret('login', PASSWORD), asAdmin()));
    await ok(
      s.api('POST', '/api/v1/projects/sqlp/datasources', pgDatasource('pg', target({ postgres: { sslMode: 'prefer' } })), asAdmin()),
    );
  });
  after(async () => {
    await s?.stop();
    await admin?.end();
    await cluster?.stop();
  });

  it("a SELECT through the proxy answers Perses' shape: columns with their types, rows by column name, JSON values", async () => {
    const r = await ok(query(PG, 'SELECT id, name, value, at, big, ok, doc, NULL::text AS nothing FROM readings ORDER BY id LIMIT 2'));
    expect(r.headers.get('content-type')).to.match(/^application\/json/);
    expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(r.headers.get('content-security-policy')).to.equal('sandbox');
    expect(r.body).to.deep.equal({
      columns: [
        { name: 'id', type: 'INT4' },
        { name: 'name', type: 'TEXT' },
        { name: 'value', type: 'FLOAT8' },
        { name: 'at', type: 'TIMESTAMPTZ' },
        { name: 'big', type: 'INT8' },
        { name: 'ok', type: 'BOOL' },
        { name: 'doc', type: 'JSONB' },
        { name: 'nothing', type: 'TEXT' },
      ],
      rows: [
        { id: 1, name: 'n1', value: 1.5, at: '2024-01-01T00:01:00.000Z', big: '9007199254740993', ok: false, doc: { g: 1 }, nothing: null },
        { id: 2, name: 'n2', value: 3, at: '2024-01-01T00:02:00.000Z', big: '9007199254740993', ok: true, doc: { g: 2 }, nothing: null },
      ],
    });
  });

  it("Perses' three routes (global, project, dashboard-local datasource), SQLDatasource as PostgresDatasource, and the unsaved route", async () => {
    await ok(s.api('POST', '/api/v1/globalsecrets', basicSecret('glogin', PASSWORD, { kind: 'GlobalSecret' }), asAdmin()));
    await ok(
      s.api(
        'POST',
        '/api/v1/globaldatasources',
        pgDatasource('gpg', target({ secret: 'glogin' }), 'GlobalDatasource', 'SQLDatasource'),
        asAdmin(),
      ),
    );
    const local = pgDatasource('x', target()).spec;
    const dash = {
      kind: 'Dashboard',
      metadata: { name: 'withsql' },
      spec: { display: { name: 'withsql' }, duration: '1h', panels: {}, layouts: [], datasources: { mySQLDTS: local } },
    };
    await ok(s.api('POST', '/api/v1/projects/sqlp/dashboards', dash, asAdmin()));
    const sql = 'SELECT datname FROM pg_database WHERE datname = current_database()';
    for (const path of [
      '/proxy/globaldatasources/gpg',
      PG,
      '/proxy/projects/sqlp/dashboards/withsql/datasources/mySQLDTS',
      `${PG}/any/suffix`,
    ]) {
      const r = await ok(query(path, sql));
      expect(r.body.rows, path).to.deep.equal([{ datname: db.database }]);
    }
    const unsaved = await ok(
      s.api(
        'POST',
        '/proxy/unsaved/projects/sqlp/datasources',
        { method: 'POST', spec: local, body: JSON.stringify({ query: 'SELECT 41 + 1 AS answer' }) },
        asAdmin(),
      ),
    );
    expect(unsaved.body.rows).to.deep.equal([{ answer: 42 }]);
  });

  it('an invalid SQLProxy block is 400 at save (datasource, dashboard-local, unsaved route), naming the field and the fix', async () => {
    const bad = { driver: 'postgres', host: 'postgres://db:5432', database: '', password: 'p', postgres: { sslMode: 'on' } };
    const r = await s.api('POST', '/api/v1/projects/sqlp/datasources', pgDatasource('bad', bad), asAdmin());
    expect(r.status, r.text).to.equal(400);
    const paths = (r.body.details as { path: string }[]).map((d) => d.path);
    for (const field of ['host', 'database', 'password', 'postgres.sslMode'])
      expect(paths).to.include(`spec.plugin.spec.proxy.spec.${field}`);
    expect(r.text).to.include('not a URL');
    // one proxy block per datasource, whatever its kind
    const both = pgDatasource('both', target());
    (both.spec.plugin.spec as Record<string, unknown>).http = { kind: 'HTTPProxy', spec: { url: 'http://db:80' } };
    const two = await s.api('POST', '/api/v1/projects/sqlp/datasources', both, asAdmin());
    expect(two.status, two.text).to.equal(400);
    expect(two.text).to.include('a single proxy block');
    const dash = {
      kind: 'Dashboard',
      metadata: { name: 'badsql' },
      spec: {
        display: { name: 'b' },
        duration: '1h',
        panels: {},
        layouts: [],
        datasources: { x: pgDatasource('x', { ...target(), host: '' }).spec },
      },
    };
    const d = await s.api('POST', '/api/v1/projects/sqlp/dashboards', dash, asAdmin());
    expect(d.status, d.text).to.equal(400);
    expect(d.text).to.include('spec.datasources.x.plugin.spec.proxy.spec.host');
    const u = await s.api(
      'POST',
      '/proxy/unsaved/projects/sqlp/datasources',
      { method: 'POST', spec: pgDatasource('u', { ...target(), driver: 'oracle' }).spec, body: '{}' },
      asAdmin(),
    );
    expect(u.status, u.text).to.equal(400);
    expect(u.text).to.include('spec.plugin.spec.proxy.spec.driver');
  });

  it('SQL-01: a write through the SQL proxy fails and changes nothing, whatever its form', async () => {
    const before = await count('SELECT count(*) AS n FROM readings');
    const writes: [string, RegExp][] = [
      ['DELETE FROM readings', /read statements only/],
      ['WITH d AS (DELETE FROM readings RETURNING *) SELECT count(*) FROM d', /read-only transaction/],
      ['SELECT 1; DELETE FROM readings', /one statement per request/],
      ['EXPLAIN ANALYZE DELETE FROM readings', /read-only transaction/],
      ["SELECT nextval('counter')", /read-only transaction/],
      ['/* a comment */ UPDATE readings SET value = 0', /read statements only/],
      ['SELECT 1; COMMIT; DELETE FROM readings', /one statement per request/],
      ['(SELECT 1) ; DROP TABLE readings', /one statement per request/],
    ];
    for (const [sql, message] of writes) {
      const r = await query(PG, sql);
      expect(r.status, `${sql}: ${r.text}`).to.equal(400);
      expect(r.body.message, sql).to.match(message);
    }
    expect(await count('SELECT count(*) AS n FROM readings')).to.equal(before);
    expect(await count('SELECT last_value AS n FROM counter')).to.equal(1);
    // session state does not outlive the request: an advisory lock taken by a query is released
    await ok(query(PG, 'SELECT pg_advisory_lock(42)'));
    expect(await count("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory'")).to.equal(0);
  });

  it('SQL-02: a long query is cut by the statement timeout (504 naming proxy.sql.statement_timeout); the datasource still answers', async () => {
    const started = Date.now();
    const r = await query(PG, 'SELECT pg_sleep(30)');
    expect(r.status, r.text).to.equal(504);
    expect(r.body.message).to.include('proxy.sql.statement_timeout (1s)');
    expect(Date.now() - started).to.be.below(10_000);
    expect(await count("SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%' AND state = 'active'")).to.equal(
      0,
    );
    expect((await ok(query(PG, 'SELECT 1 AS one'))).body.rows).to.deep.equal([{ one: 1 }]);
  });

  it('SQL-03: a big result is capped by rows and by bytes, and the answer says it was cut', async () => {
    const byRows = await ok(query(PG, 'SELECT g FROM generate_series(1, 1000000) g'));
    expect(byRows.body.rows).to.have.length(50);
    expect(byRows.body.rows[49]).to.deep.equal({ g: 50 });
    expect(byRows.body.truncated).to.include({ reason: 'rows', limit: 50 });
    expect(byRows.body.truncated.message).to.include('proxy.sql.max_rows');
    // exactly the cap: not cut
    expect((await ok(query(PG, 'SELECT g FROM generate_series(1, 50) g'))).body).to.not.have.property('truncated');
    const byBytes = await ok(query(PG, "SELECT repeat('x', 100000) AS wide FROM generate_series(1, 40)"));
    expect(byBytes.body.truncated).to.include({ reason: 'bytes', limit: 262144 });
    expect(byBytes.body.rows.length).to.be.within(1, 3);
    expect(byBytes.text.length).to.be.below(400_000);
    expect((await ok(query(PG, 'SELECT 2 AS two'))).body.rows).to.deep.equal([{ two: 2 }]);
  });

  it('SQL-04: querying needs read on the datasource: anonymous 401, a user without a role 403, a viewer 200', async () => {
    expect((await s.api('POST', PG, { query: 'SELECT 1' })).status).to.equal(401);
    await signUp(s, 'outsider');
    await signUp(s, 'reader');
    const outsider = await login(s, 'outsider');
    const r = await query(PG, 'SELECT 1', bearer(outsider));
    expect(r.status, r.text).to.equal(403);
    expect(r.text).to.not.include('readings');
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/sqlp/rolebindings',
        { kind: 'RoleBinding', metadata: { name: 'reader' }, spec: { role: 'viewer', subjects: [{ kind: 'User', name: 'reader' }] } },
        asAdmin(),
      ),
    );
    const reader = await login(s, 'reader');
    expect((await ok(query(PG, 'SELECT 3 AS three', bearer(reader)))).body.rows).to.deep.equal([{ three: 3 }]);
  });

  it('SQL-05: saving an SQL datasource that names a Secret needs read on that Secret', async () => {
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/sqlp/roles',
        { kind: 'Role', metadata: { name: 'ds-only' }, spec: { permissions: [{ actions: ['*'], scopes: ['Datasource'] }] } },
        asAdmin(),
      ),
    );
    await signUp(s, 'dsedit');
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/sqlp/rolebindings',
        { kind: 'RoleBinding', metadata: { name: 'dsedit' }, spec: { role: 'ds-only', subjects: [{ kind: 'User', name: 'dsedit' }] } },
        asAdmin(),
      ),
    );
    const t = bearer(await login(s, 'dsedit'));
    const r = await s.api('POST', '/api/v1/projects/sqlp/datasources', pgDatasource('borrowed', target()), t);
    expect(r.status, r.text).to.equal(403);
    expect(r.text).to.include('Secret');
    // without a secret it saves, and cannot log in with anything of the server's
    await ok(s.api('POST', '/api/v1/projects/sqlp/datasources', pgDatasource('nologin', target({ secret: undefined })), t));
    const q = await query('/proxy/projects/sqlp/datasources/nologin', 'SELECT 1', t);
    expect(q.status, q.text).to.equal(400);
    expect(q.body.message).to.include('names no Secret');
  });

  it('SQL-06: wrong credentials give a clear 502 naming the Secret, never the password', async () => {
    const canary = `CANARY-${randomBytes(8).toString('hex')}`;
    await ok(s.api('POST', '/api/v1/projects/sqlp/secrets', basicSecret('wrong', canary), asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/sqlp/datasources', pgDatasource('wrongpw', target({ secret: 'wrong' })), asAdmin()));
    const r = await query('/proxy/projects/sqlp/datasources/wrongpw', 'SELECT 1');
    expect(r.status, r.text).to.equal(502);
    expect(r.body.message).to.include('password authentication failed').and.include('Secret "wrong"').and.include('basicAuth');
    expect(r.text).to.not.include(canary);
    // a Secret without basicAuth cannot log in either
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/sqlp/secrets',
        { kind: 'Secret', metadata: { name: 'bearer' }, spec: { authorization: { type: 'Bearer', credentials: canary } } },
        asAdmin(),
      ),
    );
    await ok(s.api('POST', '/api/v1/projects/sqlp/datasources', pgDatasource('bearerds', target({ secret: 'bearer' })), asAdmin()));
    const b = await query('/proxy/projects/sqlp/datasources/bearerds', 'SELECT 1');
    expect(b.status, b.text).to.equal(400);
    expect(b.body.message).to.include('no basicAuth.username');
    expect(b.text).to.not.include(canary);
  });

  it('pools: a changed or deleted datasource, or a changed Secret, closes its connections', async () => {
    // a database of its own: only this datasource's connections are counted
    await admin.query('CREATE DATABASE pooltest');
    await ok(s.api('POST', '/api/v1/projects/sqlp/datasources', pgDatasource('pooled', target({ database: 'pooltest' })), asAdmin()));
    const P = '/proxy/projects/sqlp/datasources/pooled';
    const open = async () => {
      await ok(query(P, 'SELECT 1'));
      expect(await proxyConnections('pooltest')).to.equal(1);
    };
    const closed = () => waitFor('the pool closed', async () => (await proxyConnections('pooltest')) === 0);
    await closed();
    await open();
    await ok(
      s.api(
        'PUT',
        '/api/v1/projects/sqlp/datasources/pooled',
        pgDatasource('pooled', target({ database: 'pooltest', postgres: { sslMode: 'disable' } })),
        asAdmin(),
      ),
    );
    await closed();
    await open();
    await ok(s.api('PUT', '/api/v1/projects/sqlp/secrets/login', basicSecret('login', PASSWORD), asAdmin()));
    await closed();
    await open();
    await ok(s.api('DELETE', '/api/v1/projects/sqlp/datasources/pooled', undefined, asAdmin()), 204);
    await closed();
  });

  it('Perses behaviours: GET is 405 (Allow: POST), an empty or missing query 400', async () => {
    const get = await s.api('GET', PG, undefined, asAdmin());
    expect(get.status).to.equal(405);
    expect(get.headers.get('allow')).to.equal('POST');
    for (const body of [{}, { query: '  ' }, { query: 42 }]) {
      const r = await s.api('POST', PG, body, asAdmin());
      expect(r.status, r.text).to.equal(400);
      expect(r.body.message).to.include('query');
    }
    expect((await s.raw('POST', PG, 'not json', asAdmin())).status).to.equal(400);
  });

  it('TLS as PostgreSQL sslmode: allow and prefer fall back to plain, require and verify-* against a server without TLS are a clear 502, a Secret with tlsConfig needs an sslMode', async () => {
    const statuses: Record<string, number> = {};
    for (const mode of ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']) {
      await ok(
        s.api('POST', '/api/v1/projects/sqlp/datasources', pgDatasource(`tls-${mode}`, target({ postgres: { sslMode: mode } })), asAdmin()),
      );
      const r = await query(`/proxy/projects/sqlp/datasources/tls-${mode}`, 'SELECT 1 AS one');
      statuses[mode] = r.status;
      if (r.status === 502) expect(r.body.message, mode).to.include('does not offer TLS').and.include('sslMode');
    }
    expect(statuses).to.deep.equal({ disable: 200, allow: 200, prefer: 200, require: 502, 'verify-ca': 502, 'verify-full': 502 });
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/sqlp/secrets',
        {
          kind: 'Secret',
          metadata: { name: 'withtls' },
          spec: { basicAuth: { username: 'dpreader', password: PASSWORD }, tlsConfig: { insecureSkipVerify: true } },
        },
        asAdmin(),
      ),
    );
    await ok(s.api('POST', '/api/v1/projects/sqlp/datasources', pgDatasource('tlsnomode', target({ secret: 'withtls' })), asAdmin()));
    const r = await query('/proxy/projects/sqlp/datasources/tlsnomode', 'SELECT 1');
    expect(r.status, r.text).to.equal(400);
    expect(r.body.message).to.include('tlsConfig').and.include('postgres.sslMode');
  });
});

describe('SQL proxy: the denylist on the database host', function () {
  needsPrograms('postgresql');
  this.timeout(60_000);
  let cluster: TestPostgres;
  let port: number;
  before(async () => {
    cluster = await startPostgres();
    port = Number(new URL(cluster.url).port);
  });
  after(async () => {
    await cluster?.stop();
  });

  it('SQL-07: with auth on, loopback in any form (and a name resolving to it) is 403 naming proxy.allow_loopback; a denied network is 403', async () => {
    const s = await startAuthServer({ DASHPLANE_PROXY_DENIED_NETWORKS: '["169.254.0.0/16","10.0.0.0/8"]' });
    try {
      const h = bearer(await loginAdmin(s));
      await ok(s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'd' }, spec: {} }, h));
      await ok(
        s.api(
          'POST',
          '/api/v1/projects/d/secrets',
          { kind: 'Secret', metadata: { name: 'l' }, spec: { basicAuth: { username: 'postgres', password: 'x' } } },
          h,
        ),
      );
      const hosts: [string, RegExp][] = [
        [`127.0.0.1:${port}`, /proxy\.allow_loopback/],
        [`0x7f000001:${port}`, /proxy\.allow_loopback/],
        [`localhost:${port}`, /proxy\.allow_loopback/],
        [`[::ffff:127.0.0.1]:${port}`, /proxy\.allow_loopback/],
        ['169.254.169.254:5432', /proxy\.denied_networks/],
        ['10.1.2.3:5432', /proxy\.denied_networks/],
      ];
      // a name resolving to loopback is refused on its resolved address (this host's name, when /etc/hosts maps it there)
      const self = await lookup(hostname()).catch(() => undefined);
      if (self && /^(127\.|::1$)/.test(self.address)) hosts.push([`${hostname()}:${port}`, /proxy\.allow_loopback/]);
      for (const [i, [host, message]] of hosts.entries()) {
        await ok(
          s.api(
            'POST',
            '/api/v1/projects/d/datasources',
            pgDatasource(`h${i}`, { driver: 'postgres', host, database: 'postgres', secret: 'l' }),
            h,
          ),
        );
        const r = await s.api('POST', `/proxy/projects/d/datasources/h${i}`, { query: 'SELECT 1' }, h);
        expect(r.status, `${host}: ${r.text}`).to.equal(403);
        expect(r.body.message, host).to.match(message).and.include('proxy.spec.host');
      }
      const c = new pg.Client({ connectionString: cluster.url });
      await c.connect();
      const n = (await c.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'dashplane-sql-proxy'")).rows[0].n;
      await c.end();
      expect(Number(n), 'connections the proxy opened').to.equal(0);
    } finally {
      await s.stop();
    }
  });
});
