/**
 * The SQL proxy (docs/datasources.md, "SQL datasources") for MySQL and MariaDB datasources,
 * against a real MariaDB: `driver: mariadb` and `driver: mysql` (MariaDB speaks MySQL's protocol;
 * no MySQL server is packaged in Debian), queried with `POST {"query"}`, answered in the shape
 * PostgreSQL's are; read-only by construction, the statement timeout (the server's and KILL
 * QUERY), the row and byte caps, permissions, the login from the Secret only, no LOCAL INFILE,
 * the denylist, pools closed with their datasource, TLS and params. Rows SQL-01 to SQL-07 of
 * docs/security.md, as test/sql-proxy.test.ts has them for PostgreSQL.
 *
 * Cast: a MariaDB with the database `dpdb`, on which the login `dpreader` (password) has every
 * privilege, and FILE (it could write, and write files: only the proxy stops it); a server with
 * auth on (loopback allowed: MariaDB listens on 127.0.0.1), admin owning project `sqlm` with
 * Secret `login` and the datasources `maria` (driver mariadb) and `my` (driver mysql).
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, LOOPBACK_UPSTREAMS, login, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { startMariaDb, type TestMariaDb } from './helpers/mariadb.js';
import { skipWithoutProgram } from './helpers/programs.js';
import type { TestServer } from './helpers/server.js';
import { basicSecret, ok, sqlDatasource } from './helpers/sql-datasources.js';
import { waitFor } from './helpers/wait.js';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const LIMITS = { DASHPLANE_PROXY_SQL_MAX_ROWS: '50', DASHPLANE_PROXY_SQL_MAX_BYTES: '262144', DASHPLANE_PROXY_SQL_STATEMENT_TIMEOUT: '1s' };
const DRIVERS = ['mariadb', 'mysql'] as const;

describe('SQL proxy (MySQL and MariaDB, against MariaDB)', function () {
  this.timeout(60_000);
  let db: TestMariaDb;
  let s: TestServer;
  let asAdmin: () => Record<string, string>;
  /** The spec of a datasource of `driver` on dpdb, with `params` (tls off: the server has none) and `extra` fields. */
  let target: (driver: string, extra?: Record<string, unknown>, params?: Record<string, string>) => Record<string, unknown>;
  const query = (path: string, q: string, headers = asAdmin()) => s.api('POST', path, { query: q }, headers);
  const path = (name: string) => `/proxy/projects/sqlm/datasources/${name}`;
  const count = async (sql: string) => Number((await db.query<{ n: number }>(sql))[0].n);

  before(async function () {
    skipWithoutProgram(this, 'mariadb');
    db = await startMariaDb();
    await db.query('CREATE DATABASE dpdb');
    await db.query(`CREATE USER 'dpreader'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'`);
    await db.query(`GRANT ALL PRIVILEGES ON dpdb.* TO 'dpreader'@'127.0.0.1'`);
    await db.query(`GRANT FILE, PROCESS ON *.* TO 'dpreader'@'127.0.0.1'`);
    await db.query(`CREATE TABLE dpdb.readings (id INT, name VARCHAR(20), value DOUBLE, at DATETIME(3), ts TIMESTAMP NULL, big BIGINT, ok BOOLEAN,
      doc JSON, amount DECIMAL(10,2), bin VARBINARY(4), day DATE, big_u BIGINT UNSIGNED)`);
    await db.query(`INSERT INTO dpdb.readings SELECT seq, CONCAT('n', seq), seq * 1.5, TIMESTAMP('2024-01-01') + INTERVAL seq MINUTE, TIMESTAMP('2024-01-01') + INTERVAL seq MINUTE,
      9007199254740993, seq % 2 = 0, JSON_OBJECT('g', seq), seq / 4, UNHEX('DEADBEEF'), DATE('2024-01-01') + INTERVAL seq DAY, 18446744073709551615 FROM dpdb.seq_1_to_100`);
    await db.query('CREATE SEQUENCE dpdb.counter');
    target = (driver, extra = {}, params = {}) => ({
      driver,
      host: `127.0.0.1:${db.port}`,
      database: 'dpdb',
      secret: 'login',
      [driver]: { params: { tls: 'false', ...params } },
      ...extra,
    });
    s = await startAuthServer({ ...LOOPBACK_UPSTREAMS, ...LIMITS });
    const t = await loginAdmin(s);
    asAdmin = () => bearer(t);
    await ok(s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'sqlm' }, spec: {} }, asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/sqlm/secrets', basicSecret('login', PASSWORD), asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/sqlm/datasources', sqlDatasource('maria', target('mariadb')), asAdmin()));
    await ok(s.api('POST', '/api/v1/projects/sqlm/datasources', sqlDatasource('my', target('mysql')), asAdmin()));
  });
  after(async () => {
    await s?.stop();
    await db?.stop();
  });

  it("a SELECT answers PostgreSQL's shape for both drivers: columns with the MySQL driver's type names, rows by column name, JSON values, times in UTC", async () => {
    // the session's time zone is UTC whatever the server's: TIMESTAMP values are answered as instants
    await db.query("SET GLOBAL time_zone = '+05:30'");
    for (const name of ['maria', 'my']) {
      const r = await ok(
        query(
          path(name),
          'SELECT id, name, value, at, ts, big, ok, doc, amount, bin, day, big_u, NULL AS nothing FROM readings ORDER BY id LIMIT 2',
        ),
      );
      expect(r.headers.get('content-type')).to.match(/^application\/json/);
      expect(r.body, name).to.deep.equal({
        columns: [
          { name: 'id', type: 'INT' },
          { name: 'name', type: 'VARCHAR' },
          { name: 'value', type: 'DOUBLE' },
          { name: 'at', type: 'DATETIME' },
          { name: 'ts', type: 'TIMESTAMP' },
          { name: 'big', type: 'BIGINT' },
          { name: 'ok', type: 'TINYINT' },
          { name: 'doc', type: 'JSON' },
          { name: 'amount', type: 'DECIMAL' },
          { name: 'bin', type: 'VARBINARY' },
          { name: 'day', type: 'DATE' },
          { name: 'big_u', type: 'UNSIGNED BIGINT' },
          { name: 'nothing', type: 'NULL' },
        ],
        rows: [
          {
            id: 1,
            name: 'n1',
            value: 1.5,
            at: '2024-01-01T00:01:00.000Z',
            ts: '2024-01-01T00:01:00Z',
            big: '9007199254740993',
            ok: 0,
            doc: { g: 1 },
            amount: 0.25,
            bin: '0xdeadbeef',
            day: '2024-01-02T00:00:00Z',
            big_u: '18446744073709551615',
            nothing: null,
          },
          {
            id: 2,
            name: 'n2',
            value: 3,
            at: '2024-01-01T00:02:00.000Z',
            ts: '2024-01-01T00:02:00Z',
            big: '9007199254740993',
            ok: 1,
            doc: { g: 2 },
            amount: 0.5,
            bin: '0xdeadbeef',
            day: '2024-01-03T00:00:00Z',
            big_u: '18446744073709551615',
            nothing: null,
          },
        ],
      });
    }
    await db.query("SET GLOBAL time_zone = 'SYSTEM'");
  });

  it("Perses' routes work as for PostgreSQL: the unsaved route (Perses' test connection) and a dashboard-local datasource, the driver implied by its block", async () => {
    const local = sqlDatasource('x', { ...target('mariadb'), driver: undefined }).spec;
    const dash = {
      kind: 'Dashboard',
      metadata: { name: 'withsql' },
      spec: { display: { name: 'withsql' }, duration: '1h', panels: {}, layouts: [], datasources: { db: local } },
    };
    await ok(s.api('POST', '/api/v1/projects/sqlm/dashboards', dash, asAdmin()));
    expect((await ok(query('/proxy/projects/sqlm/dashboards/withsql/datasources/db', 'SELECT DATABASE() AS db'))).body.rows).to.deep.equal([
      { db: 'dpdb' },
    ]);
    const unsaved = await ok(
      s.api(
        'POST',
        '/proxy/unsaved/projects/sqlm/datasources',
        { method: 'POST', spec: sqlDatasource('u', target('mysql')).spec, body: JSON.stringify({ query: 'SELECT 41 + 1 AS answer' }) },
        asAdmin(),
      ),
    );
    expect(unsaved.body.rows).to.deep.equal([{ answer: 42 }]);
  });

  it('SQL-01 on MySQL and MariaDB: a write fails and changes nothing, whatever its form (DML, DDL, FOR UPDATE, NEXTVAL, a second statement, comments, INTO OUTFILE, LOAD DATA LOCAL)', async () => {
    const rowsBefore = await count('SELECT COUNT(*) AS n FROM dpdb.readings');
    const tablesBefore = await count("SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'dpdb'");
    const writes: [string, RegExp][] = [
      ['DELETE FROM readings', /read statements only/],
      ['INSERT INTO readings (id) VALUES (1000)', /read statements only/],
      ['# a MySQL comment\nUPDATE readings SET value = 0', /read statements only/],
      ['CREATE TABLE made (a INT)', /read statements only/],
      ['SELECT * FROM readings FOR UPDATE', /read-only transaction/],
      ['SELECT NEXTVAL(counter)', /read-only transaction/],
      ['SELECT 1; DELETE FROM readings', /one statement per request/],
      ['SELECT 1; COMMIT; DROP TABLE readings', /one statement per request/],
      // MySQL's comments do not nest, and /*! ... */ is code: neither hides a write behind a SELECT
      ['/* /* */ DROP TABLE readings; -- */ SELECT 1', /read statements only/],
      ['/*!40000 CREATE TABLE made AS */ SELECT 1', /read statements only/],
      [`SELECT * FROM readings INTO OUTFILE '${join(db.filesDir, 'out.txt')}'`, /INTO OUTFILE, which writes a file on the database server/],
      [`SELECT 'x' /*! INTO DUMPFILE '${join(db.filesDir, 'dump.txt')}' */`, /INTO DUMPFILE/],
      ["LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE readings", /read statements only/],
    ];
    for (const name of ['maria', 'my']) {
      for (const [sql, message] of writes) {
        const r = await query(path(name), sql);
        expect(r.status, `${name}: ${sql}: ${r.text}`).to.equal(400);
        expect(r.body.message, `${name}: ${sql}`).to.match(message);
      }
    }
    expect(await count('SELECT COUNT(*) AS n FROM dpdb.readings')).to.equal(rowsBefore);
    expect(await count("SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'dpdb'")).to.equal(tablesBefore);
    expect(await count('SELECT NEXTVAL(dpdb.counter) AS n')).to.equal(1);
    expect(readdirSync(db.filesDir)).to.deep.equal([]);
    // the session state a read may leave does not outlive the request: a named lock, a user variable
    for (const name of ['maria', 'my']) {
      expect((await ok(query(path(name), "SELECT GET_LOCK('dp', 0) AS got, @v := 7 AS v"))).body.rows).to.deep.equal([{ got: 1, v: 7 }]);
      expect(await count("SELECT IS_FREE_LOCK('dp') AS n")).to.equal(1);
      expect((await ok(query(path(name), 'SELECT @v AS v'))).body.rows, name).to.deep.equal([{ v: null }]);
    }
  });

  it('what the SQL-01 guards are for: the login may write, and a read-only transaction alone lets INTO OUTFILE write a file', async () => {
    const mysql = (await import('mysql2/promise')).default;
    const c = await mysql.createConnection({ host: '127.0.0.1', port: db.port, user: 'dpreader', password: PASSWORD, database: 'dpdb' });
    try {
      await c.query('START TRANSACTION');
      const [deleted] = await c.query('DELETE FROM readings');
      expect((deleted as { affectedRows: number }).affectedRows).to.equal(100);
      await c.query('ROLLBACK');
      await c.query('START TRANSACTION READ ONLY');
      await c.query(`SELECT 1 INTO OUTFILE '${join(db.filesDir, 'direct.txt')}'`);
      await c.query('ROLLBACK');
    } finally {
      await c.end();
    }
    expect(readdirSync(db.filesDir)).to.deep.equal(['direct.txt']);
    rmSync(join(db.filesDir, 'direct.txt'));
  });

  it('SQL-02 on MySQL and MariaDB: a long query is cut by the statement timeout (504 naming proxy.sql.statement_timeout); the datasource still answers', async () => {
    for (const name of ['maria', 'my']) {
      const started = Date.now();
      const r = await query(path(name), 'SELECT SLEEP(60)');
      expect(r.status, `${name}: ${r.text}`).to.equal(504);
      expect(r.body.message).to.include('proxy.sql.statement_timeout (1s)');
      expect(Date.now() - started).to.be.below(10_000);
      expect(await count("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP(60)%'")).to.equal(0);
      expect((await ok(query(path(name), 'SELECT 1 AS one'))).body.rows).to.deep.equal([{ one: 1 }]);
    }
  });

  it('SQL-03 on MySQL and MariaDB: a big result is capped by rows and by bytes, and the answer says it was cut', async () => {
    for (const name of ['maria', 'my']) {
      const byRows = await ok(query(path(name), 'SELECT seq AS g FROM seq_1_to_1000000'));
      expect(byRows.body.rows).to.have.length(50);
      expect(byRows.body.rows[49]).to.deep.equal({ g: 50 });
      expect(byRows.body.truncated).to.include({ reason: 'rows', limit: 50 });
      expect(byRows.body.truncated.message).to.include('proxy.sql.max_rows');
      expect((await ok(query(path(name), 'SELECT seq AS g FROM seq_1_to_50'))).body).to.not.have.property('truncated');
      const byBytes = await ok(query(path(name), "SELECT REPEAT('x', 100000) AS wide FROM seq_1_to_40"));
      expect(byBytes.body.truncated).to.include({ reason: 'bytes', limit: 262144 });
      expect(byBytes.body.rows.length).to.be.within(1, 3);
      expect(byBytes.text.length).to.be.below(400_000);
      expect((await ok(query(path(name), 'SELECT 2 AS two'))).body.rows).to.deep.equal([{ two: 2 }]);
    }
  });

  it('SQL-04 on MySQL and MariaDB: querying needs read on the datasource: anonymous 401, a user without a role 403, a viewer 200', async () => {
    await signUp(s, 'outsider');
    await signUp(s, 'reader');
    await ok(
      s.api(
        'POST',
        '/api/v1/projects/sqlm/rolebindings',
        { kind: 'RoleBinding', metadata: { name: 'reader' }, spec: { role: 'viewer', subjects: [{ kind: 'User', name: 'reader' }] } },
        asAdmin(),
      ),
    );
    const outsider = bearer(await login(s, 'outsider'));
    const reader = bearer(await login(s, 'reader'));
    for (const name of ['maria', 'my']) {
      expect((await s.api('POST', path(name), { query: 'SELECT 1' })).status).to.equal(401);
      const r = await query(path(name), 'SELECT name FROM readings', outsider);
      expect(r.status, r.text).to.equal(403);
      expect(r.text).to.not.include('n1');
      expect((await ok(query(path(name), 'SELECT 3 AS three', reader))).body.rows).to.deep.equal([{ three: 3 }]);
    }
  });

  it('SQL-05 on MySQL and MariaDB: a datasource without a Secret cannot log in with anything of the server (400)', async () => {
    for (const driver of DRIVERS) {
      await ok(
        s.api(
          'POST',
          '/api/v1/projects/sqlm/datasources',
          sqlDatasource(`nologin-${driver}`, target(driver, { secret: undefined })),
          asAdmin(),
        ),
      );
      const q = await query(path(`nologin-${driver}`), 'SELECT 1');
      expect(q.status, q.text).to.equal(400);
      expect(q.body.message).to.include('names no Secret');
    }
  });

  it('SQL-06 on MySQL and MariaDB: wrong credentials give a clear 502 naming the Secret, never the password', async () => {
    const canary = `CANARY-${randomBytes(8).toString('hex')}`;
    await ok(s.api('POST', '/api/v1/projects/sqlm/secrets', basicSecret('wrong', canary), asAdmin()));
    for (const driver of DRIVERS) {
      await ok(
        s.api(
          'POST',
          '/api/v1/projects/sqlm/datasources',
          sqlDatasource(`wrongpw-${driver}`, target(driver, { secret: 'wrong' })),
          asAdmin(),
        ),
      );
      const r = await query(path(`wrongpw-${driver}`), 'SELECT 1');
      expect(r.status, r.text).to.equal(502);
      expect(r.body.message).to.include('Access denied').and.include('Secret "wrong"').and.include('basicAuth');
      expect(r.text).to.not.include(canary);
    }
    // an unknown database is named too
    await ok(
      s.api('POST', '/api/v1/projects/sqlm/datasources', sqlDatasource('nodb', target('mariadb', { database: 'nosuch' })), asAdmin()),
    );
    const r = await query(path('nodb'), 'SELECT 1');
    expect(r.status, r.text).to.equal(502);
    expect(r.body.message).to.include('proxy.spec.database');
  });

  it('pools: a changed or deleted datasource, or a changed Secret, closes its connections', async () => {
    await db.query('CREATE DATABASE pooltest');
    await db.query(`GRANT ALL PRIVILEGES ON pooltest.* TO 'dpreader'@'127.0.0.1'`);
    const spec = (extra: Record<string, unknown> = {}) => sqlDatasource('pooled', target('mariadb', { database: 'pooltest', ...extra }));
    await ok(s.api('POST', '/api/v1/projects/sqlm/datasources', spec(), asAdmin()));
    const connections = () => count("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = 'dpreader' AND DB = 'pooltest'");
    const open = async () => {
      await ok(query(path('pooled'), 'SELECT 1'));
      expect(await connections()).to.equal(1);
    };
    const closed = () => waitFor('the pool closed', async () => (await connections()) === 0);
    await open();
    await ok(
      s.api('PUT', '/api/v1/projects/sqlm/datasources/pooled', spec({ mariadb: { params: { tls: 'false' }, timeout: '5s' } }), asAdmin()),
    );
    await closed();
    await open();
    await ok(s.api('PUT', '/api/v1/projects/sqlm/secrets/login', basicSecret('login', PASSWORD), asAdmin()));
    await closed();
    await open();
    await ok(s.api('DELETE', '/api/v1/projects/sqlm/datasources/pooled', undefined, asAdmin()), 204);
    await closed();
  });

  it('SQL-07 on MySQL and MariaDB: with auth on, loopback in any form is 403 naming proxy.allow_loopback, a denied network 403; no connection is made', async () => {
    const guarded = await startAuthServer({ DASHPLANE_PROXY_DENIED_NETWORKS: '["169.254.0.0/16","10.0.0.0/8"]' });
    try {
      const h = bearer(await loginAdmin(guarded));
      await ok(guarded.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'd' }, spec: {} }, h));
      await ok(guarded.api('POST', '/api/v1/projects/d/secrets', basicSecret('l', PASSWORD), h));
      const hosts: [string, RegExp][] = [
        [`127.0.0.1:${db.port}`, /proxy\.allow_loopback/],
        [`0x7f000001:${db.port}`, /proxy\.allow_loopback/],
        [`localhost:${db.port}`, /proxy\.allow_loopback/],
        [`[::ffff:127.0.0.1]:${db.port}`, /proxy\.allow_loopback/],
        ['169.254.169.254:3306', /proxy\.denied_networks/],
        ['10.1.2.3:3306', /proxy\.denied_networks/],
      ];
      const connectionsSoFar = () =>
        count("SELECT VARIABLE_VALUE AS n FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'CONNECTIONS'");
      const before = await connectionsSoFar();
      for (const driver of DRIVERS) {
        for (const [i, [host, message]] of hosts.entries()) {
          await ok(
            guarded.api(
              'POST',
              '/api/v1/projects/d/datasources',
              sqlDatasource(`${driver}${i}`, { driver, host, database: 'dpdb', secret: 'l', [driver]: { params: { tls: 'false' } } }),
              h,
            ),
          );
          const r = await guarded.api('POST', `/proxy/projects/d/datasources/${driver}${i}`, { query: 'SELECT 1' }, h);
          expect(r.status, `${driver} ${host}: ${r.text}`).to.equal(403);
          expect(r.body.message, host).to.match(message).and.include('proxy.spec.host');
        }
      }
      // only the count's own connection came in meanwhile
      expect((await connectionsSoFar()) - before, 'connections to the database').to.equal(1);
    } finally {
      await guarded.stop();
    }
  });
});
