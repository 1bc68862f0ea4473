import { expect } from 'chai';
import { desiredForm, sameJson } from './compare.js';
import { resolveKind } from './kinds.js';

describe('dashctl compare', () => {
  it("compares ignoring key order and server-owned metadata, with the kind's own normalisation", () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).to.equal(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).to.equal(false);
    const d = resolveKind('dash');
    const input = { kind: 'dashboard', metadata: { name: 'x', tags: ['b', 'a', 'b'], version: 7 }, spec: { panels: {}, layouts: [] } };
    expect(desiredForm(d, input, 'x', 'p')).to.deep.equal({ kind: 'Dashboard', metadata: { name: 'x', project: 'p', tags: ['a', 'b'] }, spec: { panels: {}, layouts: [], duration: '1h' } });
  });
});
