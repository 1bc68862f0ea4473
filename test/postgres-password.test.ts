import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { runToExit, spawnServer, stopChild } from './helpers/process.js';
import { tempDir } from './helpers/server.js';
import { needsPrograms } from './helpers/programs.js';

/**
 * A database that requires a password, as production ones do (the other PostgreSQL tests use
 * trust authentication): every documented way of giving the password works, with a `url` as with
 * host/port/user/database, and a wrong one stops the server with a clear message.
 */
describe('PostgreSQL with password authentication', function () {
  needsPrograms('postgresql');
  this.timeout(120_000);
  let cluster: TestPostgres;
  let db: { host: string; port: number; database: string };
  let dir: ReturnType<typeof tempDir>;
  const PASSWORD = 's3cr3t pw/with:odd@chars';
  const key = { DASHPLANE_ENCRYPTION_KEY: 'a'.repeat(64) };

  before(async () => {
    cluster = await startPostgres();
    db = await cluster.createPasswordDatabase('dpuser', PASSWORD);
    dir = tempDir('pg-password-');
    writeFileSync(join(dir.path, 'pw'), `${PASSWORD}\n`, { mode: 0o600 });
  });
  after(async () => {
    dir?.remove();
    await cluster?.stop();
  });

  const url = () => `postgres://dpuser@${db.host}:${db.port}/${db.database}`;
  const starts = async (env: Record<string, string>, args: string[] = []) => {
    const srv = await spawnServer({
      dataDir: join(dir.path, 'unused'),
      env: { ...key, ...env },
      ...(args.length ? { args: [...args, '--listen', '127.0.0.1:0'] } : {}),
      timeoutMs: 30_000,
    });
    try {
      const r = await fetch(`${srv.url}/api/v1/health`);
      expect(r.status).to.equal(200);
      expect(await r.json()).to.include({ database: true });
    } finally {
      await stopChild(srv.child);
    }
  };

  it('url + DASHPLANE_DATABASE_POSTGRES_PASSWORD (the Kubernetes manifests: URL in a ConfigMap, password from a Secret)', async () => {
    await starts({ DASHPLANE_DATABASE_POSTGRES_URL: url(), DASHPLANE_DATABASE_POSTGRES_PASSWORD: PASSWORD });
  });

  it('url + password_file in the configuration file (the replica recipe of docs/operations.md)', async () => {
    const cfg = join(dir.path, 'config.yaml');
    writeFileSync(cfg, `database:\n  postgres:\n    url: ${url()}\n    password_file: ${join(dir.path, 'pw')}\n`);
    await starts({}, ['--config', cfg]);
  });

  it('host, port, user and database with the password from the environment', async () => {
    await starts({
      DASHPLANE_DATABASE_POSTGRES_HOST: db.host,
      DASHPLANE_DATABASE_POSTGRES_PORT: String(db.port),
      DASHPLANE_DATABASE_POSTGRES_USER: 'dpuser',
      DASHPLANE_DATABASE_POSTGRES_DATABASE: db.database,
      DASHPLANE_DATABASE_POSTGRES_PASSWORD: PASSWORD,
    });
  });

  it("a password in the URL itself wins over the environment's", async () => {
    const inUrl = `postgres://dpuser:${encodeURIComponent(PASSWORD)}@${db.host}:${db.port}/${db.database}`;
    await starts({ DASHPLANE_DATABASE_POSTGRES_URL: inUrl, DASHPLANE_DATABASE_POSTGRES_PASSWORD: 'not-this-one' });
  });

  it('a wrong password stops the server with a message naming the database, not the password', async () => {
    const r = await runToExit(
      ['--listen', '127.0.0.1:0'],
      { ...key, DASHPLANE_DATABASE_POSTGRES_URL: url(), DASHPLANE_DATABASE_POSTGRES_PASSWORD: 'wrong-password' },
      30_000,
    );
    expect(r.code).to.equal(1);
    expect(r.output)
      .to.include(db.database)
      .and.match(/password authentication failed/);
    expect(r.output).to.not.include('wrong-password');
  });
});
