import { expect } from 'chai';
import { hostAndPort, sqlDriverOf, sqlProxySpecProblems } from './sql-proxy-spec.js';

const at = 'spec.plugin.spec.proxy.spec';
const problems = (spec: unknown) => sqlProxySpecProblems(spec, at).map((p) => `${p.path.slice(at.length + 1)}: ${p.message}`);

describe("SQLProxy spec: Perses' rules and ours", () => {
  it('a Perses spec passes: driver, host:port, database, secret, postgres options', () => {
    expect(
      problems({
        driver: 'postgres',
        host: 'localhost:5432',
        database: 'perses',
        secret: 'db',
        postgres: { sslMode: 'prefer', maxConns: 4, connectTimeout: '10s', prepareThreshold: 0, options: '-c search_path=x' },
      }),
    ).to.deep.equal([]);
    expect(problems({ host: 'db', database: 'x', mariadb: { params: { tls: 'false' }, timeout: '5s' } })).to.deep.equal([]);
  });

  it('the driver: required unless one driver block implies it; another driver block refused', () => {
    expect(problems({ host: 'db:5432', database: 'x' })).to.deep.equal(['driver: is required: one of postgres, mysql, mariadb']);
    expect(problems({ driver: 'oracle', host: 'db:5432', database: 'x' })[0]).to.match(/^driver: must be one of postgres, mysql, mariadb/);
    expect(problems({ driver: 'postgres', host: 'db:5432', database: 'x', mysql: {} })[0]).to.match(
      /^mysql: is for driver mysql; this datasource's driver is postgres/,
    );
    expect(sqlDriverOf({ mariadb: {} })).to.equal('mariadb');
    expect(sqlDriverOf({ postgres: {} })).to.equal('postgres');
  });

  it('host, database and the fields of each block name the field and the fix', () => {
    expect(problems({ driver: 'postgres', host: 'postgres://db:5432', database: '' })).to.deep.equal([
      'host: must be host:port, not a URL: write db.example.com:5432 (no postgres:// or mysql://)',
      'database: is required: the name of the database to query',
    ]);
    expect(problems({ driver: 'postgres', host: 'u:p@db', database: 'x' })[0]).to.match(
      /^host: must not contain a user or password; put the credentials in a Secret/,
    );
    expect(problems({ driver: 'postgres', host: 'db', database: 'x', password: 'p' })[0]).to.match(
      /^password: is not a field here; .* go in a Secret/,
    );
    expect(problems({ driver: 'postgres', host: 'db', database: 'x', postgres: { ssl_mode: 'require', sslMode: 'on' } })).to.deep.equal([
      'postgres.ssl_mode: is not a field here; the fields are maxConns, connectTimeout, prepareThreshold, sslMode, options',
      'postgres.sslMode: must be one of disable, allow, prefer, require, verify-ca, verify-full',
    ]);
    expect(
      problems({
        driver: 'postgres',
        host: 'db',
        database: 'x',
        secret: '../x',
        postgres: { maxConns: 0, connectTimeout: '10 seconds' },
      }).map((p) => p.split(':')[0]),
    ).to.deep.equal(['secret', 'postgres.maxConns', 'postgres.connectTimeout']);
    expect(problems('x')[0]).to.match(/^: must be an object|must be an object/);
  });

  it("mysql and mariadb params: Go driver options honoured, ignored or refused, session variables with plain values, dashplane's own variables refused", () => {
    const params = (p: Record<string, string>) => problems({ driver: 'mysql', host: 'db', database: 'x', mysql: { params: p } });
    expect(
      params({
        tls: 'skip-verify',
        parseTime: 'true',
        loc: 'Local',
        sql_mode: "'ANSI'",
        wait_timeout: '60',
        autocommit_x: 'ON',
        timeout: '5s',
        maxAllowedPacket: '1024',
      }),
    ).to.deep.equal([]);
    expect(params({ tls: 'mine', readTimeout: '5', maxAllowedPacket: '-1' })).to.deep.equal([
      "mysql.params.tls: must be true, false, skip-verify or preferred (named TLS configurations are not supported: put ca, cert and key in the Secret's tlsConfig)",
      'mysql.params.readTimeout: must be a duration such as "10s", "1m" or "500ms"',
      'mysql.params.maxAllowedPacket: must be a whole number of bytes',
    ]);
    expect(params({ multiStatements: 'true', allowAllFiles: 'true' }).map((p) => p.split(': ')[0])).to.deep.equal([
      'mysql.params.multiStatements',
      'mysql.params.allowAllFiles',
    ]);
    expect(params({ TX_READ_ONLY: '0' })[0]).to.match(/^mysql\.params\.TX_READ_ONLY: is set by dashplane/);
    expect(params({ sql_mode: "a' OR 1" })[0]).to.match(/must be a number, a word .* or a string in single quotes/);
    expect(params({ sql_mode: '(SELECT 1)' })).to.have.length(1);
    expect(params({ 'x-y': '1' })[0]).to.match(/neither an option of the MySQL driver nor the name of a session variable/);
  });

  it('hostAndPort: names, IPv4, bracketed IPv6, default port; bare IPv6 and bad ports refused', () => {
    expect(hostAndPort('db.example.com:6432', 5432)).to.deep.equal({ hostname: 'db.example.com', port: 6432 });
    expect(hostAndPort('10.0.0.1', 5432)).to.deep.equal({ hostname: '10.0.0.1', port: 5432 });
    expect(hostAndPort('[2001:db8::1]:5433', 5432)).to.deep.equal({ hostname: '2001:db8::1', port: 5433 });
    expect(hostAndPort('2001:db8::1', 5432)).to.match(/IPv6 address without brackets/);
    expect(hostAndPort('db:70000', 5432)).to.match(/port outside/);
    expect(hostAndPort('db/x:5432', 5432)).to.match(/must be host:port/);
  });
});
