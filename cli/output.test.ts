import { expect } from 'chai';
import { age, table } from './output.js';

describe('dashctl output', () => {
  it('aligns tables and prints kubectl-style ages', () => {
    expect(
      table(
        ['NAME', 'AGE'],
        [
          ['a', '1s'],
          ['longer', '2m'],
        ],
      ),
    ).to.equal('NAME    AGE\na       1s\nlonger  2m\n');
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(
      ['2026-01-01T23:59:15Z', '2026-01-01T23:57:00Z', '2026-01-01T21:00:00Z', '2025-12-28T00:00:00Z', '2024-01-01T00:00:00Z'].map((t) =>
        age(t, now),
      ),
    ).to.deep.equal(['45s', '3m', '3h', '5d', '2y']);
    expect(age(undefined)).to.equal('-');
  });
});
