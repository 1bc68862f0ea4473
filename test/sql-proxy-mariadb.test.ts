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
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, LOOPBACK_UPSTREAMS, login, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { skipWithoutMariaDb, startMariaDb, type TestMariaDb } from './helpers/mariadb.js';
import type { ApiResponse, TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const LIMITS = { DASHPLANE_PROXY_SQL_MAX_ROWS: '50', DASHPLANE_PROXY_SQL_MAX_BYTES: '262144', DASHPLANE_PROXY_SQL_STATEMENT_TIMEOUT: '1s' };
const DRIVERS = ['mariadb', 'mysql'] as const;

/** An SQL datasource body with plugin SQLDatasource. */
const sqlDatasource = (name: string, spec: Record<string, unknown>) => ({
  kind: 'Datasource',
  metadata: { name },
  spec: { default: false, plugin: { kind: 'SQLDatasource', spec: { proxy: { kind: 'SQLProxy', spec } } } },
});
const basicSecret = (name: string, password: string, extra: Record<string, unknown> = {}) => ({
  kind: 'Secret',
  metadata: { name },
  spec: { basicAuth: { username: 'dpreader', password }, ...extra },
});

async function ok(r: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const res = await r;
  expect(res.status, res.text).to.equal(status);
  return res;
}

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
    skipWithoutMariaDb(this);
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
    target = (driver, extra = {}, params = {}) => ({ driver, host: `127.0.0.1:${db.port}`, database: 'dpdb', secret: 'login', [driver]: { params: { tls: 'false', ...params } }, ...extra });
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
      const r = await ok(query(path(name), 'SELECT id, name, value, at, ts, big, ok, doc, amount, bin, day, big_u, NULL AS nothing FROM readings ORDER BY id LIMIT 2'));
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
});
