import { expect } from 'chai';
import { jsonValue, typeName } from './result-values.js';

describe('result values: PostgreSQL text values as JSON', () => {
  it('numbers exact or as text, booleans, JSON parsed, NULL as null, other types as their text', () => {
    expect(jsonValue(23, '42')).to.equal(42);
    expect(jsonValue(20, '9007199254740991')).to.equal(9007199254740991);
    expect(jsonValue(20, '9007199254740993')).to.equal('9007199254740993');
    expect(jsonValue(1700, '12.50')).to.equal(12.5);
    expect(jsonValue(1700, 'NaN')).to.equal('NaN');
    expect(jsonValue(701, 'Infinity')).to.equal('Infinity');
    expect(jsonValue(16, 't')).to.equal(true);
    expect(jsonValue(16, 'f')).to.equal(false);
    expect(jsonValue(3802, '{"a": [1, null]}')).to.deep.equal({ a: [1, null] });
    expect(jsonValue(25, null)).to.equal(null);
    expect(jsonValue(17, '\\xdeadbeef')).to.equal('\\xdeadbeef');
    expect(jsonValue(2950, '0b4c2bd4-0000-4000-8000-000000000000')).to.equal('0b4c2bd4-0000-4000-8000-000000000000');
  });

  it('times as RFC 3339 in UTC, as pgx writes them; forms it cannot read stay text', () => {
    expect(jsonValue(1184, '2024-01-02 03:04:05.123456+00')).to.equal('2024-01-02T03:04:05.123Z');
    expect(jsonValue(1184, '2024-01-02 03:04:05+05:30')).to.equal('2024-01-01T21:34:05.000Z');
    expect(jsonValue(1184, 'infinity')).to.equal('infinity');
    expect(jsonValue(1114, '2024-01-02 03:04:05.5')).to.equal('2024-01-02T03:04:05.5Z');
    expect(jsonValue(1082, '2024-01-02')).to.equal('2024-01-02T00:00:00Z');
    expect(jsonValue(1082, '2024-01-02 BC')).to.equal('2024-01-02 BC');
  });

  it('type names as pgx gives them; an unknown type by its OID', () => {
    expect([23, 20, 25, 1043, 1184, 3802, 1700].map(typeName)).to.deep.equal([
      'INT4',
      'INT8',
      'TEXT',
      'VARCHAR',
      'TIMESTAMPTZ',
      'JSONB',
      'NUMERIC',
    ]);
    expect(typeName(987654)).to.equal('987654');
  });
});
