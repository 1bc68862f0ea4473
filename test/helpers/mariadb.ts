import { execFile, spawn } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { exited, freePort } from './process.js';

const run = promisify(execFile);
/** Debian's mariadb-server (10.11 on bookworm); MARIADBD_BIN points the tests at another server binary. */
const MARIADBD = process.env.MARIADBD_BIN ?? '/usr/sbin/mariadbd';
const INSTALL_DB = join(process.env.MARIADBD_BIN ? join(MARIADBD, '..', '..', 'bin') : '/usr/bin', 'mariadb-install-db');

export interface TestMariaDb {
  host: '127.0.0.1';
  port: number;
  /** A directory the server may write files to (its secure_file_priv), empty at start. */
  filesDir: string;
  /** Runs one statement as root (over the server's unix socket) and answers its rows. */
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** Stops the server at once and removes its directory. */
  stop(): Promise<void>;
}

/**
 * A throwaway MariaDB server in a temp directory on 127.0.0.1 and a free port: no option file
 * read (`--no-defaults`), no binary log, no fsync, a unix socket in the directory for root. Run as
 * the `mysql` user when the tests run as root (mariadbd changes to it itself). Root logs in over
 * the socket without a password; other logins are made by the tests.
 */
export async function startMariaDb(opts: { timeoutMs?: number; args?: string[] } = {}): Promise<TestMariaDb> {
  const dir = mkdtempSync(join(tmpdir(), 'dashplane-mariadb-'));
  const data = join(dir, 'data');
  const filesDir = join(dir, 'files');
  const socket = join(dir, 'mysqld.sock');
  mkdirSync(filesDir);
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? ['--user=mysql'] : [];
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'mysql'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'mysql'])).stdout.trim());
    chownSync(dir, uid, gid);
    chownSync(filesDir, uid, gid);
  }
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    await run(
      INSTALL_DB,
      ['--no-defaults', `--datadir=${data}`, ...user, '--auth-root-authentication-method=normal', '--skip-test-db', '--skip-name-resolve'],
      { timeout: 60_000 },
    );
  } catch (e) {
    remove();
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`mariadb-install-db failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
  const port = await freePort();
  const args = [
    '--no-defaults',
    `--datadir=${data}`,
    `--socket=${socket}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    '--skip-name-resolve',
    `--pid-file=${join(dir, 'mysqld.pid')}`,
    `--secure-file-priv=${filesDir}`,
    '--skip-log-bin',
    '--innodb-buffer-pool-size=16M',
    '--innodb-flush-log-at-trx-commit=0',
    '--performance-schema=OFF',
    '--max-connections=200',
    ...user,
    ...(opts.args ?? []),
  ];
  const child = spawn(MARIADBD, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (b: Buffer) => (log += b.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const done = exited(child);
      child.kill('SIGKILL');
      await done;
    }
    remove();
  };
  const root = () => mysql.createConnection({ socketPath: socket, user: 'root' });
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    try {
      await (await root()).end();
      break;
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`MariaDB did not accept connections on ${socket} within ${opts.timeoutMs ?? 30_000} ms:\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    host: '127.0.0.1',
    port,
    filesDir,
    async query<T>(sql: string) {
      const c = await root();
      try {
        const [rows] = await c.query(sql);
        return (Array.isArray(rows) ? rows : []) as T[];
      } finally {
        await c.end();
      }
    },
    stop,
  };
}
