import { ApiError } from '../../errors.js';
import { deniedError, type UpstreamTarget } from '../upstream.js';
import type { DenyReason } from '../denied-networks.js';

/** The database as error messages name it. */
const DATABASE: UpstreamTarget = { url: "the datasource's proxy.spec.host", peer: 'the database' };

/** What the messages of `sqlError` may name. */
export interface SqlErrorContext {
  /** proxy.sql.statement_timeout as configured, e.g. "30s". */
  statementTimeout: string;
  /** The Secret the datasource logs in with, as kind "name". */
  secret?: string;
}

/** A PostgreSQL error answer (pg's DatabaseError): a SQLSTATE code and the server's message. */
interface ServerError {
  code: string;
  message: string;
  severity?: string;
}

const isServerError = (e: unknown): e is ServerError =>
  typeof (e as ServerError)?.code === 'string' &&
  /^[0-9A-Z]{5}$/.test((e as ServerError).code) &&
  typeof (e as ServerError).severity === 'string';

/** SQLSTATE classes that are the database's or the connection's failure, not the query's. */
const SERVER_CLASSES = new Set(['08', '53', '55', '57', '58', 'F0', 'XX']);

/**
 * A failure of the SQL proxy as an API error the user can act on: the query's own errors (syntax,
 * unknown table, a write refused by the read-only transaction, several statements) are 400 with
 * the server's message and SQLSTATE; the login, the database name, TLS and the network are 502
 * naming the setting to check; the statement timeout and connection timeouts are 504; a denied
 * address 403. Messages never hold a password: PostgreSQL's do not, and nothing of the Secret is
 * added. Other errors are rethrown (500, logged).
 */
export function sqlError(e: unknown, ctx: SqlErrorContext): ApiError {
  if (e instanceof ApiError) return e;
  const err = e as { code?: string; message?: string; denied?: DenyReason };
  if (err.code === 'EDENIED') return deniedError(err.denied ?? 'listed', DATABASE);
  if (isServerError(e)) return serverError(e, ctx);
  const message = err.message ?? '';
  if (message === 'timeout exceeded when trying to connect' || message === 'Connection terminated due to connection timeout') {
    return new ApiError(
      'GatewayTimeout',
      "no connection to the database within the datasource's postgres.connectTimeout (default proxy.timeout), or all its pooled connections stayed busy (proxy.sql.max_connections)",
    );
  }
  if (message === 'The server does not support SSL connections')
    return new ApiError(
      'BadGateway',
      'the database does not offer TLS, which postgres.sslMode asks for; set sslMode to prefer or disable, or enable TLS on the server',
    );
  if (err.code && /CERT|SELF_SIGNED|VERIFY|ALTNAME|TLS|SSL/i.test(err.code)) {
    return new ApiError(
      'BadGateway',
      `the TLS certificate of the database was not accepted (${err.code}); check the Secret's tlsConfig (ca, serverName) and postgres.sslMode`,
    );
  }
  if (err.code && /^E[A-Z]+$/.test(err.code))
    return new ApiError('BadGateway', `the database could not be reached (${err.code}); check the datasource's proxy.spec.host`);
  if (/^Connection terminated/.test(message)) return new ApiError('BadGateway', 'the database closed the connection');
  throw e;
}

function serverError(e: ServerError, ctx: SqlErrorContext): ApiError {
  const said = `${e.message} (SQLSTATE ${e.code})`;
  if (e.code === '57014')
    return new ApiError(
      'GatewayTimeout',
      `the query ran longer than proxy.sql.statement_timeout (${ctx.statementTimeout}) and was cancelled: ${said}`,
    );
  if (e.code === '25006') return new ApiError('BadRequest', `the SQL proxy runs every query in a read-only transaction: ${said}`);
  if (e.code === '42601' && /multiple commands/.test(e.message))
    return new ApiError('BadRequest', `the SQL proxy runs one statement per request: ${said}; send the statements one at a time`);
  if (e.code.startsWith('28'))
    return new ApiError(
      'BadGateway',
      `the database refused the login: ${said}; check basicAuth in the datasource's ${ctx.secret ?? 'Secret'}`,
    );
  if (e.code === '3D000') return new ApiError('BadGateway', `${said}; check the datasource's proxy.spec.database`);
  if (SERVER_CLASSES.has(e.code.slice(0, 2))) return new ApiError('BadGateway', `the database failed: ${said}`);
  return new ApiError('BadRequest', `the query failed: ${said}`);
}
