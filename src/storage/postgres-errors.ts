import { ApiError, alreadyExists, badRequest, conflict, unavailable } from '../errors.js';

/** The connection settings `describeDatabase` reads. */
export interface DatabaseName {
  url?: string;
  host?: string;
  port?: number;
  database?: string;
}

/** `"db" on host:port` (never the password). */
export function describeDatabase(o: DatabaseName): string {
  let host = o.host;
  let port = o.port;
  let database = o.database;
  if (o.url) {
    try {
      const u = new URL(o.url);
      host ??= u.hostname || undefined;
      port ??= u.port ? Number(u.port) : undefined;
      database ??= decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined;
    } catch {
      // an unparsable URL: pg reports it at open
    }
  }
  return `"${database ?? process.env.PGDATABASE ?? 'postgres'}" on ${host ?? process.env.PGHOST ?? 'localhost'}:${port ?? process.env.PGPORT ?? 5432}`;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

export function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  if (CONNECTION_CODES.has(code) || code.startsWith('08')) return true;
  return /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed|Cannot use a pool after calling end/i.test(
    (e as Error)?.message ?? '',
  );
}

/** Whether a failed transaction may be retried: a serialisation failure or a deadlock. */
export function isRetryable(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === '40001' || code === '40P01';
}

/** pg errors -> the store's own; anything else passes through. */
export function translate(e: unknown, where: string): Error {
  if (e instanceof ApiError) return e;
  const err = e as { code?: string; message?: string; detail?: string };
  switch (err.code) {
    case '23505':
      return alreadyExists(`an object with this kind, project and name already exists${err.detail ? ` (${err.detail})` : ''}`);
    case '40001':
    case '40P01':
      return conflict('a concurrent write to the same objects won; retry');
    case '22P05':
    case '22021':
      return badRequest(`the document holds text PostgreSQL cannot store (${err.message})`);
    case '53100':
      return new ApiError(
        'InsufficientStorage',
        `the PostgreSQL database ${where} is out of disk space: nothing was written; free space and retry`,
      );
    case '25006':
      return unavailable(`the PostgreSQL database ${where} is read-only (a standby?): ${err.message}`);
  }
  if (isConnectionError(e)) return unavailable(`the PostgreSQL database ${where} is unavailable: ${err.message ?? String(e)}`);
  return e as Error;
}

/** Why the store could not open, in words that say what to fix. */
export function openError(e: unknown, where: string): Error {
  const err = e as { code?: string; message?: string };
  const msg = err.message ?? String(e);
  if (err.code === '3D000')
    return new Error(`the PostgreSQL database ${where} does not exist: create it (CREATE DATABASE) or fix database.postgres`);
  if (err.code === '28P01' || err.code === '28000')
    return new Error(`cannot log in to the PostgreSQL database ${where}: ${msg}; check the user and password of database.postgres`);
  if (isConnectionError(e)) return new Error(`cannot reach the PostgreSQL database ${where}: ${msg}`);
  if (msg.includes(where)) return e as Error;
  return new Error(`cannot open the PostgreSQL database ${where}: ${msg}`);
}
