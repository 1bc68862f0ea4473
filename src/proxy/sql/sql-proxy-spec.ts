import type { ErrorDetail } from '../../errors.js';
import { parseDuration } from '../../lib/duration.js';
import { isObj, type Obj } from '../../lib/is-obj.js';
import { joinPath } from '../../lib/object-path.js';
import { secretProblems, typeName } from '../http-proxy.js';
import { type MySQLOptions, mysqlParamProblems } from './mysql-params.js';

export type { MySQLOptions };

/** The database drivers of Perses' SQLProxy. */
export type SqlDriver = 'postgres' | 'mysql' | 'mariadb';
/** PostgreSQL's sslmode values, as Perses accepts them. */
export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

/** `postgres` of an SQLProxy spec (Perses' PostgresConfig). */
export interface PostgresOptions {
  maxConns?: number;
  connectTimeout?: string;
  prepareThreshold?: number;
  sslMode?: SslMode;
  options?: string;
}

/** The spec of a `{kind: "SQLProxy"}` block, once `sqlProxySpecProblems` found nothing wrong. */
export interface SQLProxySpec {
  driver?: SqlDriver;
  /** `hostname:port` (the port may be left out), an IPv6 address in brackets. */
  host: string;
  database: string;
  secret?: string;
  postgres?: PostgresOptions;
  mysql?: MySQLOptions;
  mariadb?: MySQLOptions;
}

const DRIVERS: readonly SqlDriver[] = ['postgres', 'mysql', 'mariadb'];
const SSL_MODES: readonly SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
/** The usual port of each driver, for a host written without one. */
export const DEFAULT_PORTS: Readonly<Record<SqlDriver, number>> = { postgres: 5432, mysql: 3306, mariadb: 3306 };
/** A host name: DNS labels (underscores tolerated, as resolvers do) or an IPv4 address. */
const HOSTNAME_RE = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252})$/;

/** The driver of a checked spec: `driver`, or the one driver block present (Perses' rule). */
export function sqlDriverOf(spec: Pick<SQLProxySpec, 'driver' | 'postgres' | 'mysql' | 'mariadb'>): SqlDriver {
  return spec.driver ?? (spec.mysql ? 'mysql' : spec.mariadb ? 'mariadb' : 'postgres');
}

/** `host` split into a name (IPv6 without brackets) and a port, or why it cannot be. */
export function hostAndPort(host: string, defaultPort: number): { hostname: string; port: number } | string {
  if (host.includes('://')) return 'must be host:port, not a URL: write db.example.com:5432 (no postgres:// or mysql://)';
  if (host.includes('@')) return 'must not contain a user or password; put the credentials in a Secret (basicAuth) and name it in secret';
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(host);
  if (!m)
    return host.split(':').length > 2
      ? 'writes an IPv6 address without brackets: use [2001:db8::1]:5432'
      : 'must be host:port, e.g. db.example.com:5432';
  const hostname = m[1] ?? m[2];
  if (m[2] !== undefined && !HOSTNAME_RE.test(hostname))
    return 'must be host:port with a host name of letters, digits, ".", "-" and "_" (no spaces, slashes or other characters)';
  const port = m[3] === undefined ? defaultPort : Number(m[3]);
  if (port < 1 || port > 65535) return 'has a port outside 1-65535';
  return { hostname, port };
}

/**
 * Every problem of the `spec` of an SQLProxy block (at `specPath`), with its JSON path: Perses'
 * rules (a supported driver, given or implied by the one driver block present, and no block of
 * another driver; `host` and `database` not empty), and ours: `host` is host:port without a
 * scheme or credentials, `secret` a resource name, the driver blocks of the types Perses reads,
 * `sslMode` one of PostgreSQL's, durations that parse, and no unknown field (a misspelt `sslMode`
 * must not silently leave TLS off, credentials do not belong here). When it is empty the spec
 * has the types of `SQLProxySpec`.
 */
export function sqlProxySpecProblems(spec: unknown, specPath: string): ErrorDetail[] {
  const at = (k: string) => joinPath(specPath, k);
  if (!isObj(spec))
    return [
      {
        path: specPath,
        message: `must be an object {"driver": "postgres", "host": "db:5432", "database": ..., "secret"?: ...}, not ${typeName(spec)}`,
      },
    ];
  const out = unknownFields(
    spec,
    specPath,
    ['driver', 'host', 'database', 'secret', 'postgres', 'mysql', 'mariadb'],
    'user, password and TLS material go in a Secret named by secret',
  );
  const blocks = DRIVERS.filter((d) => spec[d] !== undefined);
  if (spec.driver === undefined) {
    if (blocks.length === 0) out.push({ path: at('driver'), message: `is required: one of ${DRIVERS.join(', ')}` });
  } else if (typeof spec.driver !== 'string' || !DRIVERS.includes(spec.driver as SqlDriver)) {
    out.push({ path: at('driver'), message: `must be one of ${DRIVERS.join(', ')} (got ${JSON.stringify(spec.driver)})` });
  }
  const driver = typeof spec.driver === 'string' && DRIVERS.includes(spec.driver as SqlDriver) ? (spec.driver as SqlDriver) : blocks[0];
  for (const other of blocks.filter((b) => b !== driver))
    out.push({
      path: at(other),
      message: `is for driver ${other}; this datasource's driver is ${driver}: remove it, or set driver: ${other} and remove ${driver}`,
    });
  if (typeof spec.host !== 'string' || spec.host === '')
    out.push({
      path: at('host'),
      message: `is required: the database server as host:port, e.g. db.example.com:${DEFAULT_PORTS[driver ?? 'postgres']}`,
    });
  else {
    const hp = hostAndPort(spec.host, DEFAULT_PORTS[driver ?? 'postgres']);
    if (typeof hp === 'string') out.push({ path: at('host'), message: hp });
  }
  if (typeof spec.database !== 'string' || spec.database === '')
    out.push({ path: at('database'), message: 'is required: the name of the database to query' });
  else if (spec.database.includes('\u0000')) out.push({ path: at('database'), message: 'must not contain a NUL character' });
  if (spec.secret !== undefined) out.push(...secretProblems(spec.secret, at('secret')));
  if (spec.postgres !== undefined) out.push(...postgresProblems(spec.postgres, at('postgres')));
  for (const d of ['mysql', 'mariadb'] as const) if (spec[d] !== undefined) out.push(...mysqlProblems(spec[d], at(d)));
  return out;
}

function unknownFields(o: Obj, path: string, known: readonly string[], hint?: string): ErrorDetail[] {
  return Object.keys(o)
    .filter((k) => !known.includes(k))
    .map((k) => ({
      path: joinPath(path, k),
      message: `is not a field here; the fields are ${known.join(', ')}${hint ? ` (${hint})` : ''}`,
    }));
}

function postgresProblems(v: unknown, path: string): ErrorDetail[] {
  if (!isObj(v))
    return [
      {
        path,
        message: `must be an object {"sslMode"?: ..., "maxConns"?: ..., "connectTimeout"?: ..., "options"?: ...}, not ${typeName(v)}`,
      },
    ];
  const out = unknownFields(v, path, ['maxConns', 'connectTimeout', 'prepareThreshold', 'sslMode', 'options']);
  if (v.maxConns !== undefined && !(Number.isInteger(v.maxConns) && (v.maxConns as number) >= 1))
    out.push({ path: joinPath(path, 'maxConns'), message: 'must be a whole number of 1 or more (the size of the connection pool)' });
  if (v.prepareThreshold !== undefined && !Number.isInteger(v.prepareThreshold))
    out.push({ path: joinPath(path, 'prepareThreshold'), message: 'must be a whole number' });
  if (v.sslMode !== undefined && !SSL_MODES.includes(v.sslMode as SslMode))
    out.push({ path: joinPath(path, 'sslMode'), message: `must be one of ${SSL_MODES.join(', ')}` });
  if (v.options !== undefined && (typeof v.options !== 'string' || v.options.includes('\u0000')))
    out.push({ path: joinPath(path, 'options'), message: 'must be a string of server options, e.g. "-c search_path=metrics"' });
  out.push(...durationProblems(v, path, ['connectTimeout']));
  return out;
}

function mysqlProblems(v: unknown, path: string): ErrorDetail[] {
  if (!isObj(v))
    return [
      {
        path,
        message: `must be an object {"params"?: ..., "timeout"?: ..., "readTimeout"?: ..., "writeTimeout"?: ...}, not ${typeName(v)}`,
      },
    ];
  const out = unknownFields(v, path, ['params', 'maxAllowedPacket', 'timeout', 'readTimeout', 'writeTimeout']);
  if (v.params !== undefined && !(isObj(v.params) && Object.values(v.params).every((p) => typeof p === 'string')))
    out.push({ path: joinPath(path, 'params'), message: 'must be an object of name -> string value' });
  else if (v.params !== undefined) out.push(...mysqlParamProblems(v.params as Record<string, string>, joinPath(path, 'params')));
  if (v.maxAllowedPacket !== undefined && !(Number.isInteger(v.maxAllowedPacket) && (v.maxAllowedPacket as number) >= 0))
    out.push({ path: joinPath(path, 'maxAllowedPacket'), message: 'must be a whole number of bytes' });
  out.push(...durationProblems(v, path, ['timeout', 'readTimeout', 'writeTimeout']));
  return out;
}

function durationProblems(v: Obj, path: string, keys: readonly string[]): ErrorDetail[] {
  return keys
    .filter((k) => v[k] !== undefined && parseDuration(v[k] as string) === undefined)
    .map((k) => ({ path: joinPath(path, k), message: 'must be a duration such as "10s", "1m" or "500ms"' }));
}
