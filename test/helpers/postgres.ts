import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './process.js';
import { POSTGRES_BIN as BIN, requireProgram } from './programs.js';

const run = promisify(execFile);

/** Runs `fn` with a client of its own on the database at `url`, ended after it (a test's look behind a store's back). */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export interface TestPostgres {
  /** postgres://postgres@127.0.0.1:<port>/dashplane_test (trust auth, no password). */
  url: string;
  /** A new empty database on the cluster; `drop` removes it. */
  createDatabase(): Promise<{ url: string; drop(): Promise<void> }>;
  /**
   * A login role that must give `password` (scram-sha-256; every other role keeps trust auth),
   * owning a new database: what a production database looks like.
   */
  createPasswordDatabase(role: string, password: string): Promise<{ host: string; port: number; database: string }>;
  /** Stops the cluster at once and removes its directory. */
  stop(): Promise<void>;
}

/** The command line that runs `cmd` as the postgres OS user when we are root (initdb refuses root). */
function asPostgres(cmd: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [cmd, args];
  if (existsSync('/usr/sbin/runuser') || existsSync('/sbin/runuser') || existsSync('/usr/bin/runuser'))
    return ['runuser', ['-u', 'postgres', '--', cmd, ...args]];
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return ['su', ['postgres', '-s', '/bin/sh', '-c', [cmd, ...args].map(quote).join(' ')]];
}

async function pgRun(cmd: string, args: string[]): Promise<void> {
  const [c, a] = asPostgres(join(BIN, cmd), args);
  try {
    await run(c, a, { timeout: 60_000 });
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${cmd} failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
}

let counter = 0;

/**
 * A throwaway PostgreSQL 15 cluster in a temp directory on 127.0.0.1 and a random port (trust
 * auth, no fsync), run as the `postgres` user when the tests run as root.
 */
export async function startPostgres(opts: { timeoutMs?: number } = {}): Promise<TestPostgres & { stopSync(): void }> {
  requireProgram('postgresql');
  const dir = mkdtempSync(join(tmpdir(), 'dashplane-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const remove = () => rmSync(dir, { recursive: true, force: true });
  let started = false;
  try {
    await pgRun('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ]);
    const port = await freePort();
    const settings = [
      `-c listen_addresses=127.0.0.1`,
      `-c port=${port}`,
      `-c unix_socket_directories=${dir}`,
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    await pgRun('pg_ctl', ['start', '-D', data, '-l', log, '-o', settings]);
    started = true;
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
    for (;;) {
      try {
        await run(join(BIN, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-t', '1']);
        break;
      } catch {
        if (Date.now() > deadline) {
          const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
          throw new Error(`PostgreSQL did not accept connections on 127.0.0.1:${port} within ${opts.timeoutMs ?? 30_000} ms:\n${text}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const base = `postgres://postgres@127.0.0.1:${port}`;
    const admin = <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => withClient(`${base}/postgres`, fn);
    await admin((c) => c.query('CREATE DATABASE dashplane_test'));
    return {
      url: `${base}/dashplane_test`,
      async createDatabase() {
        const name = `dashplane_t${process.pid}_${++counter}`;
        await admin((c) => c.query(`CREATE DATABASE ${name}`));
        return {
          url: `${base}/${name}`,
          drop: () => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
        };
      },
      async createPasswordDatabase(role: string, password: string) {
        const database = `dashplane_p${process.pid}_${++counter}`;
        await admin(async (c) => {
          await c.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password.replace(/'/g, "''")}'`);
          await c.query(`CREATE DATABASE ${database} OWNER ${role}`);
        });
        // the first matching line of pg_hba.conf wins: this role must authenticate
        const hba = join(data, 'pg_hba.conf');
        writeFileSync(hba, `host all ${role} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
        await admin((c) => c.query('SELECT pg_reload_conf()'));
        return { host: '127.0.0.1', port, database };
      },
      async stop() {
        try {
          await pgRun('pg_ctl', ['stop', '-D', data, '-m', 'immediate']);
        } finally {
          remove();
        }
      },
      stopSync() {
        try {
          const [c, a] = asPostgres(join(BIN, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate']);
          execFileSync(c, a, { stdio: 'ignore', timeout: 30_000 });
        } catch {
          // already stopped
        } finally {
          remove();
        }
      },
    };
  } catch (e) {
    if (started) await pgRun('pg_ctl', ['stop', '-D', data, '-m', 'immediate']).catch(() => undefined);
    remove();
    throw e;
  }
}

let shared: Promise<TestPostgres & { stopSync(): void }> | undefined;

/**
 * In a describe: the shared cluster (sharedPostgres) from its `before` (which may take up to two
 * minutes, the first time in a process) to its `after`, which drops the databases made on it.
 * The suite still calls needsPrograms('postgresql') itself, where the runner's note finds it.
 */
export function sharedCluster(): { readonly cluster: TestPostgres } {
  let cluster: TestPostgres | undefined;
  before(async function () {
    this.timeout(120_000);
    cluster = await sharedPostgres();
  });
  after(async () => cluster?.stop());
  return {
    get cluster() {
      if (!cluster) throw new Error('sharedCluster: the suite has not started (use it inside a test)');
      return cluster;
    },
  };
}

/**
 * A handle on the process's PostgreSQL cluster, for suites that only create databases on it
 * (`createDatabase`): started at the first call and stopped when the process exits, so a mocha
 * worker starts one cluster rather than one per file (1-5 s each). `url` is a new database of
 * its own; `stop()` drops the databases made through this handle and leaves the cluster running.
 * A suite that changes the cluster itself (roles, pg_hba.conf, stopping it) or looks at all of
 * it (pg_database, pg_stat_activity) starts its own with startPostgres.
 */
export async function sharedPostgres(): Promise<TestPostgres> {
  if (!shared) {
    const starting = startPostgres();
    shared = starting;
    starting.then(
      (c) => process.once('exit', () => c.stopSync()),
      () => {
        if (shared === starting) shared = undefined;
      },
    );
  }
  const cluster = await shared;
  const made: { drop(): Promise<void> }[] = [];
  const createDatabase = async () => {
    const db = await cluster.createDatabase();
    made.push(db);
    return db;
  };
  const own = await createDatabase();
  return {
    url: own.url,
    createDatabase,
    createPasswordDatabase() {
      throw new Error('sharedPostgres: a suite that adds roles starts a cluster of its own (startPostgres)');
    },
    async stop() {
      for (const db of made.splice(0)) await db.drop().catch(() => undefined);
    },
  };
}
