import { Socket } from 'node:net';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import type { PoolConfig } from 'pg';
import { badRequest } from '../../errors.js';
import { parseDuration } from '../../lib/duration.js';
import type { DeniedNetworks } from '../denied-networks.js';
import type { UpstreamTls } from '../upstream.js';
import { POOL_IDLE_MS, type SqlLimits, type SqlLogin } from './sql-settings.js';
import { connectGuarded } from './guarded-socket.js';
import { DEFAULT_PORTS, hostAndPort, type SQLProxySpec, type SslMode } from './sql-proxy-spec.js';

/**
 * pg's TLS options for a PostgreSQL sslmode and the Secret's tlsConfig: `disable` none; `allow`
 * and `prefer` TLS without checking the certificate (the pool falls back to plain when the server
 * has no TLS); `require` TLS, the chain checked only against a CA the Secret gives (as libpq does
 * with a root certificate); `verify-ca` the chain; `verify-full` the chain and the name (the
 * Secret's serverName, else the host). insecureSkipVerify turns every check off. As in Perses, a
 * Secret with tlsConfig needs an sslMode other than disable.
 */
function sslOptions(mode: SslMode | undefined, hostname: string, tls: UpstreamTls | undefined): false | ConnectionOptions {
  if (tls && (mode === undefined || mode === 'disable')) {
    throw badRequest(
      `the datasource's Secret has a tlsConfig but its postgres.sslMode is ${mode ? 'disable' : 'not set'}: set proxy.spec.postgres.sslMode to require, verify-ca or verify-full`,
    );
  }
  const m = mode ?? 'prefer';
  if (m === 'disable') return false;
  const material: ConnectionOptions = {
    ...(tls?.ca ? { ca: tls.ca } : {}),
    ...(tls?.cert ? { cert: tls.cert } : {}),
    ...(tls?.key ? { key: tls.key } : {}),
  };
  const verify = !tls?.insecureSkipVerify && (m === 'verify-ca' || m === 'verify-full' || (m === 'require' && tls?.ca !== undefined));
  if (!verify) return { ...material, rejectUnauthorized: false };
  const name = tls?.serverName || hostname;
  return {
    ...material,
    rejectUnauthorized: true,
    checkServerIdentity: m === 'verify-full' ? (_host, cert) => checkServerIdentity(name, cert) : () => undefined,
  };
}

/** pg's `stream` option: sockets whose connections go only to addresses the proxy's denylist allows (pg calls `connect` itself). */
function pgStream(denied: DeniedNetworks): () => Socket {
  return () => {
    const socket = new Socket();
    const connect = socket.connect;
    Object.assign(socket, { connect: (port: number, host: string) => connectGuarded(socket, connect, denied, port, host) });
    return socket;
  };
}

/**
 * The pool settings of a PostgreSQL datasource. Everything pg would otherwise take from the
 * server's environment or files (PGUSER, PGPASSWORD, ~/.pgpass, PGSSLMODE, PGOPTIONS,
 * PGAPPNAME, ...) is set here: the login comes from the Secret alone. Each session starts with
 * `default_transaction_read_only`, the statement and idle-in-transaction timeouts; each query
 * also sets them for its own transaction (sql-session.ts).
 */
export function postgresPoolConfig(
  spec: SQLProxySpec,
  login: SqlLogin,
  limits: SqlLimits,
  denied: DeniedNetworks,
  plain: boolean,
): PoolConfig {
  const hp = hostAndPort(spec.host, DEFAULT_PORTS.postgres);
  if (typeof hp === 'string') throw badRequest(`the datasource's proxy.spec.host ${hp}`);
  const pg = spec.postgres ?? {};
  const connectMs = pg.connectTimeout ? parseDuration(pg.connectTimeout) || limits.connectTimeoutMs : limits.connectTimeoutMs;
  const timeout = limits.statementTimeoutMs;
  const ssl = plain ? false : sslOptions(pg.sslMode, hp.hostname, login.tls);
  return {
    host: hp.hostname,
    port: hp.port,
    database: spec.database,
    user: login.username,
    // a function: pg reads PGPASSWORD and ~/.pgpass for a password that is not a non-empty string
    password: () => login.password,
    ssl,
    sslnegotiation: 'postgres',
    stream: pgStream(denied),
    application_name: 'dashplane-sql-proxy',
    client_encoding: 'UTF8',
    options: `-c default_transaction_read_only=on${pg.options ? ` ${pg.options}` : ''}`,
    statement_timeout: timeout,
    idle_in_transaction_session_timeout: timeout,
    max: Math.min(pg.maxConns ?? limits.maxConnections, limits.maxConnections),
    idleTimeoutMillis: POOL_IDLE_MS,
    connectionTimeoutMillis: connectMs,
    keepAlive: true,
  };
}
