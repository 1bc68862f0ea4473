/**
 * PostgreSQL result columns as Perses' SQL proxy answers them: each column's type name as its
 * driver (pgx) names it, each value as JSON. Values arrive in PostgreSQL's text format.
 */

/** Type names of the built-in types by OID (pg_type), upper case as pgx's DatabaseTypeName gives them. */
const TYPE_NAMES: Readonly<Record<number, string>> = {
  16: 'BOOL',
  17: 'BYTEA',
  18: 'CHAR',
  19: 'NAME',
  20: 'INT8',
  21: 'INT2',
  23: 'INT4',
  25: 'TEXT',
  26: 'OID',
  114: 'JSON',
  142: 'XML',
  600: 'POINT',
  650: 'CIDR',
  700: 'FLOAT4',
  701: 'FLOAT8',
  774: 'MACADDR8',
  790: 'MONEY',
  829: 'MACADDR',
  869: 'INET',
  1000: '_BOOL',
  1005: '_INT2',
  1007: '_INT4',
  1009: '_TEXT',
  1016: '_INT8',
  1021: '_FLOAT4',
  1022: '_FLOAT8',
  1042: 'BPCHAR',
  1043: 'VARCHAR',
  1082: 'DATE',
  1083: 'TIME',
  1114: 'TIMESTAMP',
  1184: 'TIMESTAMPTZ',
  1186: 'INTERVAL',
  1231: '_NUMERIC',
  1266: 'TIMETZ',
  1700: 'NUMERIC',
  2950: 'UUID',
  3802: 'JSONB',
  3904: 'INT4RANGE',
  3906: 'NUMRANGE',
  3908: 'TSRANGE',
  3910: 'TSTZRANGE',
  3912: 'DATERANGE',
  3926: 'INT8RANGE',
};

/** The type name of a column: the built-in name, else its OID in decimal (as pgx does for types it does not know). */
export function typeName(oid: number): string {
  return TYPE_NAMES[oid] ?? String(oid);
}

/** A whole number as a JSON number when it is exact, else the text (an int8 beyond 2^53). */
export function integer(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** A decimal as a JSON number when it is finite and its integer part exact, else the text (NaN, huge values). */
export function decimal(text: string): number | string {
  const n = Number(text);
  return Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER ? n : text;
}

/** A calendar date with a real month and day (MySQL's zero dates, `0000-00-00`, are not). */
const DATE = '(\\d{4}-(?!00)\\d{2}-(?!00)\\d{2})';
const DATE_RE = new RegExp(`^${DATE}$`);
const TIMESTAMP_RE = new RegExp(`^${DATE} (\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?)$`);

/** `2024-01-02` as midnight UTC in RFC 3339; anything else (BC dates, zero dates) as it is. */
export function date(text: string): string {
  return DATE_RE.test(text) ? `${text}T00:00:00Z` : text;
}

/** `2024-01-02 03:04:05[.ffffff]` (ISO DateStyle, MySQL's DATETIME) as RFC 3339 in UTC; anything else (infinity, another DateStyle, zero dates) as it is. */
export function timestamp(text: string): string {
  const m = TIMESTAMP_RE.exec(text);
  return m ? `${m[1]}T${m[2]}Z` : text;
}

/** `2024-01-02 03:04:05[.ffffff]+01[:30]` as RFC 3339 in UTC (the instant is kept, written as pgx writes UTC times). */
function timestampTz(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(text);
  if (!m) return text;
  const d = new Date(`${m[1]}T${m[2].slice(0, 12)}${m[3]}:${m[4] ?? '00'}`);
  return Number.isNaN(d.getTime()) || m[5] ? text : d.toISOString();
}

/** Parsers by OID; every other type is answered as its text. */
const PARSERS: Readonly<Record<number, (text: string) => unknown>> = {
  16: (t) => t === 't',
  20: integer,
  21: integer,
  23: integer,
  26: integer,
  700: decimal,
  701: decimal,
  1700: decimal,
  114: (t) => JSON.parse(t),
  3802: (t) => JSON.parse(t),
  1082: date,
  1114: timestamp,
  1184: timestampTz,
};

/** A value of a column of type `oid` in text format as JSON; SQL NULL is null. */
export function jsonValue(oid: number, text: string | null): unknown {
  if (text === null) return null;
  const parse = PARSERS[oid];
  return parse ? parse(text) : text;
}
