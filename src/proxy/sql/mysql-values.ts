import { date, decimal, integer, timestamp } from './result-values.js';

/**
 * MySQL and MariaDB result columns as the SQL proxy answers them: each column's type name as Go's
 * MySQL driver (Perses') names it, each value as JSON, the same way as PostgreSQL's
 * (result-values.ts). Values arrive as the server's text (mysql2's `typeCast: false`).
 */

/** What a column definition (mysql2's ColumnDefinition) tells about a column. */
export interface MysqlColumn {
  name: string;
  columnType: number;
  /** Collation id; 63 is `binary`: bytes, not text. */
  characterSet: number;
  flags: number;
  /** Node's name of the column's character set (mysql2's). */
  encoding?: string;
  /** MariaDB's extended metadata: a type name (`uuid`, `inet6`) or format (`json`). */
  extendedTypeName?: string;
  extendedFormat?: string;
}

const BINARY_CHARSET = 63;
const UNSIGNED_FLAG = 32;
const ENUM_FLAG = 256;
const SET_FLAG = 2048;
const JSON_TYPE = 0xf5;
const BIT_TYPE = 0x10;

/** Type names by protocol type: [name, name when unsigned or binary (bytes)]. */
const TYPE_NAMES = new Map<number, readonly [string, string?]>([
  [0x00, ['DECIMAL']],
  [0x01, ['TINYINT', 'UNSIGNED TINYINT']],
  [0x02, ['SMALLINT', 'UNSIGNED SMALLINT']],
  [0x03, ['INT', 'UNSIGNED INT']],
  [0x04, ['FLOAT']],
  [0x05, ['DOUBLE']],
  [0x06, ['NULL']],
  [0x07, ['TIMESTAMP']],
  [0x08, ['BIGINT', 'UNSIGNED BIGINT']],
  [0x09, ['MEDIUMINT', 'UNSIGNED MEDIUMINT']],
  [0x0a, ['DATE']],
  [0x0b, ['TIME']],
  [0x0c, ['DATETIME']],
  [0x0d, ['YEAR']],
  [0x0e, ['DATE']],
  [0x0f, ['VARCHAR', 'VARBINARY']],
  [0x10, ['BIT']],
  [0xf2, ['VECTOR']],
  [0xf5, ['JSON']],
  [0xf6, ['DECIMAL']],
  [0xf7, ['ENUM']],
  [0xf8, ['SET']],
  [0xf9, ['TINYTEXT', 'TINYBLOB']],
  [0xfa, ['MEDIUMTEXT', 'MEDIUMBLOB']],
  [0xfb, ['LONGTEXT', 'LONGBLOB']],
  [0xfc, ['TEXT', 'BLOB']],
  [0xfd, ['VARCHAR', 'VARBINARY']],
  [0xfe, ['CHAR', 'BINARY']],
  [0xff, ['GEOMETRY']],
]);
const INTEGERS = new Set([0x01, 0x02, 0x03, 0x08, 0x09, 0x0d]);
const DECIMALS = new Set([0x00, 0x04, 0x05, 0xf6]);
const DATES = new Set([0x0a, 0x0e]);
const TIMESTAMPS = new Set([0x07, 0x0c]);
/** Types whose values are strings: text, or bytes when their character set is binary (numbers and times have it too). */
const STRINGS = new Set([0x0f, 0xf2, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff]);

const isJson = (c: MysqlColumn) => c.columnType === JSON_TYPE || c.extendedFormat === 'json';
const isBytes = (c: MysqlColumn) => STRINGS.has(c.columnType) && c.characterSet === BINARY_CHARSET && !isJson(c);

/** The type name of a column: Go's driver's (`INT`, `UNSIGNED BIGINT`, `VARCHAR`, `BLOB`, ...), MariaDB's own for its extended types (`UUID`, `INET6`, `JSON`). */
export function mysqlTypeName(c: MysqlColumn): string {
  if (isJson(c)) return 'JSON';
  if (c.extendedTypeName) return c.extendedTypeName.toUpperCase();
  if (c.columnType === 0xfe && c.flags & ENUM_FLAG) return 'ENUM';
  if (c.columnType === 0xfe && c.flags & SET_FLAG) return 'SET';
  const names = TYPE_NAMES.get(c.columnType);
  if (!names) return String(c.columnType);
  const other = INTEGERS.has(c.columnType) ? c.flags & UNSIGNED_FLAG : isBytes(c);
  return other && names[1] ? names[1] : names[0];
}

/** A BIT value (big-endian bytes) as a number, or its decimal text beyond 2^53. */
function bits(b: Buffer): number | string {
  const n = b.reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
}

/**
 * A value of column `c` (the server's text, as bytes) as JSON; SQL NULL is null. Integers and
 * decimals as numbers when exact (else their text), BIT as a number, JSON parsed, DATE at
 * midnight UTC and DATETIME/TIMESTAMP as RFC 3339 in UTC (the session's time_zone is UTC), zero
 * dates and TIME as the server writes them, bytes (BLOB, BINARY, GEOMETRY, ...) as `0x` and hex,
 * other text as it is.
 */
export function mysqlValue(c: MysqlColumn, raw: Buffer | null): unknown {
  if (raw === null) return null;
  if (c.columnType === BIT_TYPE) return bits(raw);
  if (isBytes(c)) return `0x${raw.toString('hex')}`;
  const text = raw.toString(c.encoding && c.encoding !== 'binary' && Buffer.isEncoding(c.encoding) ? c.encoding : 'utf8');
  if (INTEGERS.has(c.columnType)) return integer(text);
  if (DECIMALS.has(c.columnType)) return decimal(text);
  if (DATES.has(c.columnType)) return date(text);
  if (TIMESTAMPS.has(c.columnType)) return timestamp(text);
  if (isJson(c)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
