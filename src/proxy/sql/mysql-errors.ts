import { ApiError, type Reason } from '../../errors.js';
import { type SqlErrorContext, sqlError } from './sql-errors.js';

/** What `mysqlError` may name besides `SqlErrorContext`. */
export interface MysqlErrorContext extends SqlErrorContext {
  /** The datasource's driver block, as messages name its settings: `mysql` or `mariadb`. */
  block: 'mysql' | 'mariadb';
  /** The statement, to tell when a syntax error comes from a second statement. */
  query: string;
}

/** An error answer of a MySQL or MariaDB server, as mysql2 gives it. */
interface ServerError {
  errno: number;
  sqlState: string;
  sqlMessage: string;
  /** Set by mysql-session.ts when the refused statement was its SET SESSION (params). */
  setup?: boolean;
}

const isServerError = (e: unknown): e is ServerError =>
  typeof (e as ServerError)?.errno === 'number' && typeof (e as ServerError).sqlState === 'string';

/** Server errors by number: [status reason, what to say before the server's words]. */
const KNOWN: Readonly<Record<number, (ctx: MysqlErrorContext) => [Reason, string]>> = {
  // MariaDB's max_statement_time, MySQL's max_execution_time
  1969: (ctx) => ['GatewayTimeout', `the query ran longer than proxy.sql.statement_timeout (${ctx.statementTimeout}) and was cancelled`],
  3024: (ctx) => ['GatewayTimeout', `the query ran longer than proxy.sql.statement_timeout (${ctx.statementTimeout}) and was cancelled`],
  1317: () => ['BadGateway', 'the query was interrupted on the database (KILL QUERY)'],
  1792: () => ['BadRequest', 'the SQL proxy runs every query in a read-only transaction'],
  1045: (ctx) => ['BadGateway', `the database refused the login; check basicAuth in the datasource's ${ctx.secret ?? 'Secret'}`],
  1044: () => ['BadGateway', "the login may not use the database; check the datasource's proxy.spec.database and the login's grants"],
  1049: () => ['BadGateway', "the database does not exist; check the datasource's proxy.spec.database"],
  1148: () => ['BadRequest', 'LOCAL INFILE is off in the SQL proxy: it never sends files to the database'],
  1040: () => ['BadGateway', 'the database has too many connections'],
  1203: () => [
    'BadGateway',
    'the login has too many connections to the database (its max_user_connections); lower proxy.sql.max_connections',
  ],
};

/**
 * A failure of a MySQL or MariaDB datasource as an API error the user can act on, as sqlError
 * does for PostgreSQL: the query's own errors are 400 with the server's message, error number and
 * SQLSTATE (a syntax error of a query holding a second statement says that one is run per
 * request); a variable of `params` the server refuses is 400 naming params; the login, the
 * database, TLS and the network are 502 naming the setting to check; the statement timeout and
 * the connection timeouts are 504; a denied address 403 (sqlError). Messages never hold a
 * password: the servers' do not ("using password: YES"), and nothing of the Secret is added.
 */
export function mysqlError(e: unknown, ctx: MysqlErrorContext): ApiError {
  if (e instanceof ApiError) return e;
  if (isServerError(e)) {
    const said = `${e.sqlMessage} (error ${e.errno}, SQLSTATE ${e.sqlState})`;
    if (e.setup)
      return new ApiError(
        'BadRequest',
        `the database refused the datasource's ${ctx.block}.params (set as session variables): ${said}; remove or correct the parameter`,
      );
    const known = KNOWN[e.errno]?.(ctx);
    if (known) return new ApiError(known[0], `${known[1]}: ${said}`);
    if (e.errno === 1064 && /;[\s\S]*\S/.test(ctx.query.trim().replace(/;+$/, '')))
      return new ApiError('BadRequest', `the SQL proxy runs one statement per request: ${said}; send the statements one at a time`);
    if (e.sqlState.startsWith('08')) return new ApiError('BadGateway', `the database failed: ${said}`);
    return new ApiError('BadRequest', `the query failed: ${said}`);
  }
  const err = e as { code?: string; message?: string; syscall?: string };
  // mysql2's answer to a server asking for a client file (LOCAL INFILE): it sends none
  if (!err.code && /LOCAL INFILE/.test(err.message ?? ''))
    return new ApiError(
      'BadGateway',
      'the database asked for a file of the dashplane server (LOCAL INFILE) and got none: the SQL proxy never sends files; is proxy.spec.host the database you trust?',
    );
  switch (err.code) {
    case 'ETIMEDOUT':
      if (err.syscall === 'connect')
        return new ApiError(
          'GatewayTimeout',
          `no connection to the database within the datasource's ${ctx.block}.timeout (default proxy.timeout)`,
        );
      break;
    case 'POOL_TIMEOUT':
      return new ApiError(
        'GatewayTimeout',
        `all the datasource's connections (proxy.sql.max_connections) stayed busy for its ${ctx.block}.timeout (default proxy.timeout)`,
      );
    case 'POOL_CLOSED':
      return new ApiError('Unavailable', 'the datasource or its Secret changed while the query waited for a connection; retry', undefined, {
        'Retry-After': '1',
      });
    case 'HANDSHAKE_NO_SSL_SUPPORT':
      return new ApiError(
        'BadGateway',
        `the database does not offer TLS, which the datasource asks for (TLS is required unless ${ctx.block}.params.tls is false or preferred); enable TLS on the server, or set params.tls`,
      );
    case 'HANDSHAKE_SSL_ERROR':
      return new ApiError(
        'BadGateway',
        `the TLS connection to the database failed (${err.message}); check the Secret's tlsConfig (ca, serverName) and ${ctx.block}.params.tls`,
      );
    case 'AUTH_SWITCH_PLUGIN_ERROR':
      return new ApiError(
        'BadGateway',
        `the database asks for a login method the SQL proxy does not use (${err.message}); give the login mysql_native_password or caching_sha2_password`,
      );
    case 'PROTOCOL_CONNECTION_LOST':
      return new ApiError('BadGateway', 'the database closed the connection');
  }
  return sqlError(e, ctx);
}
