import { expect } from 'chai';
import { type MysqlColumn, mysqlTypeName, mysqlValue } from './mysql-values.js';

/** A column of protocol type `columnType`; text (utf8mb4, 45) unless `characterSet` says otherwise. */
const col = (columnType: number, extra: Partial<MysqlColumn> = {}): MysqlColumn => ({
  name: 'c',
  columnType,
  characterSet: 45,
  flags: 0,
  encoding: 'utf8',
  ...extra,
});
const BINARY = { characterSet: 63, encoding: 'binary' };
const v = (c: MysqlColumn, text: string | Buffer | null) => mysqlValue(c, typeof text === 'string' ? Buffer.from(text) : text);

describe('MySQL result values as JSON', () => {
  it("type names as Go's MySQL driver gives them: signed and unsigned, text and bytes, ENUM and SET; MariaDB's extended types", () => {
    expect(mysqlTypeName(col(0x03, BINARY))).to.equal('INT');
    expect(mysqlTypeName(col(0x08, { ...BINARY, flags: 32 }))).to.equal('UNSIGNED BIGINT');
    expect(mysqlTypeName(col(0xfd))).to.equal('VARCHAR');
    expect(mysqlTypeName(col(0xfd, BINARY))).to.equal('VARBINARY');
    expect(mysqlTypeName(col(0xfc))).to.equal('TEXT');
    expect(mysqlTypeName(col(0xfc, BINARY))).to.equal('BLOB');
    expect(mysqlTypeName(col(0xfe, { flags: 256 }))).to.equal('ENUM');
    expect(mysqlTypeName(col(0xfe, { flags: 2048 }))).to.equal('SET');
    expect(mysqlTypeName(col(0xf6, BINARY))).to.equal('DECIMAL');
    expect(mysqlTypeName(col(0xfb, { extendedFormat: 'json' }))).to.equal('JSON');
    expect(mysqlTypeName(col(0xfe, { extendedTypeName: 'uuid' }))).to.equal('UUID');
    expect(mysqlTypeName(col(0x99))).to.equal('153');
  });

  it('numbers exact or as text, BIT as a number, JSON parsed, NULL as null', () => {
    expect(v(col(0x03, BINARY), '-42')).to.equal(-42);
    expect(v(col(0x08, BINARY), '9007199254740993')).to.equal('9007199254740993');
    expect(v(col(0xf6, BINARY), '12.50')).to.equal(12.5);
    expect(v(col(0xf6, BINARY), '123456789012345678901234.5')).to.equal('123456789012345678901234.5');
    expect(v(col(0x05, BINARY), '2.5e-3')).to.equal(0.0025);
    expect(v(col(0x05, BINARY), '1e300')).to.equal('1e300');
    expect(v(col(0x10, BINARY), Buffer.from([0x01, 0x02]))).to.equal(258);
    expect(v(col(0xf5, BINARY), '{"a": [1, null]}')).to.deep.equal({ a: [1, null] });
    expect(v(col(0xfb, { extendedFormat: 'json' }), 'not json')).to.equal('not json');
    expect(v(col(0x03, BINARY), null)).to.equal(null);
  });

  it('times as RFC 3339 in UTC; zero dates and TIME as the server writes them; bytes as 0x and hex, text as it is', () => {
    expect(v(col(0x0c, BINARY), '2024-01-02 03:04:05.250')).to.equal('2024-01-02T03:04:05.250Z');
    expect(v(col(0x07, BINARY), '2024-01-02 03:04:05')).to.equal('2024-01-02T03:04:05Z');
    expect(v(col(0x0a, BINARY), '2024-01-02')).to.equal('2024-01-02T00:00:00Z');
    expect(v(col(0x0a, BINARY), '0000-00-00')).to.equal('0000-00-00');
    expect(v(col(0x0c, BINARY), '2024-00-00 00:00:00')).to.equal('2024-00-00 00:00:00');
    expect(v(col(0x0b, BINARY), '-838:59:59')).to.equal('-838:59:59');
    expect(v(col(0xfd, BINARY), Buffer.from([0xde, 0xad]))).to.equal('0xdead');
    expect(v(col(0xff, BINARY), Buffer.from([1, 2]))).to.equal('0x0102');
    expect(v(col(0xfd), 'żółw')).to.equal('żółw');
    expect(v(col(0xfe, { encoding: 'latin1' }), Buffer.from([0xe9]))).to.equal('é');
  });
});
