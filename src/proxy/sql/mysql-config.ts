import type { ConnectionOptions, SslOptions } from 'mysql2';
import { badRequest } from '../../errors.js';
import type { DeniedNetworks } from '../denied-networks.js';
import type { UpstreamTls } from '../upstream.js';
import { guardedSocket } from './guarded-socket.js';
import type { MysqlSettings, TlsParam } from './mysql-params.js';
import type { SqlLimits, SqlLogin } from './sql-settings.js';
import { DEFAULT_PORTS, hostAndPort, type SQLProxySpec } from './sql-proxy-spec.js';

/** The name the proxy's sessions give themselves (the `program_name` connection attribute). */
const MYSQL_PROGRAM_NAME = 'dashplane-sql-proxy';

/**
 * mysql2's TLS options for `params.tls` (Go's driver's values) and the Secret's tlsConfig; undefined
 * for none. Not set: TLS is required and checked, as Perses does; `true` the same; `skip-verify`
 * TLS without any check; `preferred` TLS without a check when the server offers it, else plain
 * (the caller connects again with `plain`); `false` none. "Checked": the chain against the
 * Secret's `ca` (else the system's), and the name (the Secret's `serverName`, else the host; an
 * address against the certificate's IP names); `insecureSkipVerify` turns both off. A Secret with
 * a tlsConfig and `tls: false` is a 400: one of them is a mistake.
 */
function mysqlSsl(mode: TlsParam | undefined, tls: UpstreamTls | undefined, plain: boolean): SslOptions | undefined {
  if (tls && mode === 'false') {
    throw badRequest(
      "the datasource's Secret has a tlsConfig but its params.tls is false: remove params.tls (TLS is then required) or set it to true, skip-verify or preferred",
    );
  }
  if (mode === 'false' || plain) return undefined;
  const verify = !tls?.insecureSkipVerify && mode !== 'skip-verify' && mode !== 'preferred';
  return {
    ...(tls?.ca ? { ca: tls.ca } : {}),
    ...(tls?.cert ? { cert: tls.cert } : {}),
    ...(tls?.key ? { key: tls.key } : {}),
    minVersion: 'TLSv1.2',
    rejectUnauthorized: verify,
    verifyIdentity: verify,
  };
}

/**
 * The connection settings of a MySQL or MariaDB datasource. Everything comes from the spec and
 * the Secret: mysql2 reads no environment variable or option file (no MYSQL_PWD, no ~/.my.cnf).
 * The socket is dashplane's (`stream`): it connects only to addresses the denylist allows, to the
 * address it checked; `host` is then only the name TLS checks. One statement per query (no
 * MULTI_STATEMENTS), no LOCAL INFILE (the capability is not announced, and a server asking for a
 * file anyway gets none: no infileStreamFactory), no clear-text or old passwords, and no code
 * generated from the server's column names (`disableEval`). Values arrive as the server's text
 * (`typeCast: false`), read by mysql-values.ts.
 */
export function mysqlConnectionOptions(
  spec: SQLProxySpec,
  settings: MysqlSettings,
  login: SqlLogin,
  limits: SqlLimits,
  denied: DeniedNetworks,
  plain: boolean,
): ConnectionOptions {
  const hp = hostAndPort(spec.host, DEFAULT_PORTS.mysql);
  if (typeof hp === 'string') throw badRequest(`the datasource's proxy.spec.host ${hp}`);
  const ssl = mysqlSsl(settings.tls, login.tls, plain);
  const tlsName = login.tls?.serverName || hp.hostname;
  return {
    host: tlsName,
    port: hp.port,
    stream: () => {
      const socket = guardedSocket(denied, hp.hostname, hp.port);
      // mysql2 gives Node's TLS no server name for an address (SNI has none), and Node then checks
      // the certificate against the socket's host, which net sets for names only: without this,
      // an address would be checked as "localhost"
      Object.assign(socket, { _host: tlsName });
      return socket;
    },
    user: login.username,
    password: login.password,
    database: spec.database,
    ...(ssl ? { ssl } : {}),
    connectTimeout: settings.timeoutMs ?? limits.connectTimeoutMs,
    multipleStatements: false,
    flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS'],
    enableCleartextPlugin: false,
    insecureAuth: false,
    typeCast: false,
    rowsAsArray: true,
    disableEval: true,
    charset: 'UTF8MB4_UNICODE_CI',
    connectAttributes: { program_name: MYSQL_PROGRAM_NAME },
    trace: false,
  };
}
