import type { ErrorDetail } from '../../errors.js';
import { parseDuration } from '../../lib/duration.js';
import { joinPath } from '../../lib/object-path.js';

/**
 * `mysql.params` / `mariadb.params` of an SQLProxy block. Perses hands them to Go's MySQL driver
 * as DSN parameters: its own options (tls, parseTime, ...) and, for any other name, a session
 * system variable set when connecting. dashplane reads them the same way: the options that
 * matter here are honoured, those that only change how Go returns values are accepted and
 * ignored (answers are JSON), the unsafe ones are refused, and the rest are session variables,
 * except the ones the read-only session sets itself.
 */

/** `mysql` and `mariadb` of an SQLProxy spec (Perses' MySQLConfig). */
export interface MySQLOptions {
  params?: Record<string, string>;
  maxAllowedPacket?: number;
  timeout?: string;
  readTimeout?: string;
  writeTimeout?: string;
}

/** How `params.tls` asks for TLS, as Go's driver reads it. */
export type TlsParam = 'true' | 'false' | 'skip-verify' | 'preferred';

/** Go driver options honoured (with the block field of the same meaning, when there is one). */
const HONOURED = ['tls', 'timeout', 'readTimeout', 'writeTimeout', 'maxAllowedPacket'];
/** Go driver options that only shape Go's values or connection and have nothing to do here. */
const IGNORED = [
  'allowNativePasswords',
  'charset',
  'collation',
  'checkConnLiveness',
  'clientFoundRows',
  'columnsWithAlias',
  'compress',
  'connectionAttributes',
  'interpolateParams',
  'loc',
  'parseTime',
  'rejectReadOnly',
  'timeTruncate',
];
/** Go driver options dashplane refuses, and why. */
const REFUSED: Readonly<Record<string, string>> = {
  multiStatements: 'the SQL proxy runs one statement per query (a second one could end the read-only transaction)',
  allowAllFiles: 'LOCAL INFILE is off: with it a database server could read the files of the dashplane server',
  allowCleartextPasswords: 'the password is never sent in clear text',
  allowOldPasswords: 'the old (pre-4.1) password scheme is not used',
  allowFallbackToPlaintext: 'write tls: preferred for TLS when the server offers it',
  serverPubKey: "there are no registered public keys; use TLS (tls: true and the Secret's tlsConfig)",
};
/** Session variables the read-only session sets itself (mysql-session.ts). */
const OWN_VARIABLES = ['autocommit', 'tx_read_only', 'transaction_read_only', 'max_execution_time', 'max_statement_time', 'time_zone'];

const BOOL_TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const BOOL_FALSE = ['0', 'f', 'F', 'FALSE', 'false', 'False'];
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A session variable's value: a number, a word (ON, OFF, DEFAULT, ...), or a quoted string without quotes or backslashes in it. */
const VALUE_RE = /^(?:[+-]?\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|'[^'\\]*')$/;

/** `params.tls` normalised, or undefined when it is not one Go's driver takes (other than a registered configuration's name). */
function tlsParam(v: string): TlsParam | undefined {
  if (BOOL_TRUE.includes(v)) return 'true';
  if (BOOL_FALSE.includes(v)) return 'false';
  return v === 'skip-verify' || v === 'preferred' ? v : undefined;
}

/** The problems of `params` (an object of strings) at `path`, each naming the parameter and the fix. */
export function mysqlParamProblems(params: Record<string, string>, path: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const [name, value] of Object.entries(params)) {
    const at = joinPath(path, name);
    if (name === 'tls') {
      if (!tlsParam(value))
        out.push({
          path: at,
          message:
            "must be true, false, skip-verify or preferred (named TLS configurations are not supported: put ca, cert and key in the Secret's tlsConfig)",
        });
    } else if (name === 'maxAllowedPacket') {
      if (!/^\d{1,10}$/.test(value)) out.push({ path: at, message: 'must be a whole number of bytes' });
    } else if (HONOURED.includes(name)) {
      if (parseDuration(value) === undefined) out.push({ path: at, message: 'must be a duration such as "10s", "1m" or "500ms"' });
    } else if (REFUSED[name]) out.push({ path: at, message: `is not allowed: ${REFUSED[name]}` });
    else if (OWN_VARIABLES.includes(name.toLowerCase()))
      out.push({
        path: at,
        message: 'is set by dashplane for every query (read-only transactions, proxy.sql.statement_timeout, UTC times): remove it',
      });
    else if (!IGNORED.includes(name)) {
      if (!NAME_RE.test(name))
        out.push({
          path: at,
          message: 'is neither an option of the MySQL driver nor the name of a session variable (letters, digits and _)',
        });
      else if (!VALUE_RE.test(value))
        out.push({ path: at, message: 'must be a number, a word (ON, OFF, ...) or a string in single quotes, e.g. "\'ANSI_QUOTES\'"' });
    }
  }
  return out;
}

/** What a checked `mysql`/`mariadb` block asks for: `params` win over the block's fields, as they do in Go's DSN. */
export interface MysqlSettings {
  tls?: TlsParam | undefined;
  timeoutMs?: number;
  readTimeoutMs?: number;
  writeTimeoutMs?: number;
  maxAllowedPacket?: number;
  /** Session variables to set, name and value (SQL, checked by `mysqlParamProblems`). */
  variables: [string, string][];
}

/** The settings of a checked `mysql` or `mariadb` block (or of none). */
export function mysqlSettings(o: MySQLOptions = {}): MysqlSettings {
  const p = o.params ?? {};
  const ms = (param: string | undefined, field: string | undefined) => {
    const v = param ?? field;
    return v === undefined ? undefined : parseDuration(v) || undefined;
  };
  const packet = p.maxAllowedPacket !== undefined ? Number(p.maxAllowedPacket) : o.maxAllowedPacket;
  const out: MysqlSettings = { variables: [] };
  if (p.tls !== undefined) out.tls = tlsParam(p.tls);
  const timeout = ms(p.timeout, o.timeout);
  const read = ms(p.readTimeout, o.readTimeout);
  const write = ms(p.writeTimeout, o.writeTimeout);
  if (timeout) out.timeoutMs = timeout;
  if (read) out.readTimeoutMs = read;
  if (write) out.writeTimeoutMs = write;
  if (packet) out.maxAllowedPacket = packet;
  for (const [name, value] of Object.entries(p))
    if (!HONOURED.includes(name) && !IGNORED.includes(name) && !REFUSED[name]) out.variables.push([name, value]);
  return out;
}
