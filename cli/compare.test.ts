import { expect } from 'chai';
import { desiredForm, sameJson } from './compare.js';
import { resolveKind } from './kinds.js';

describe('dashctl compare', () => {
  it("compares ignoring key order and server-owned metadata, with the kind's own normalisation", () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).to.equal(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).to.equal(false);
    const d = resolveKind('dash');
    const input = { kind: 'dashboard', metadata: { name: 'x', tags: ['b', 'a', 'b'], version: 7 }, spec: { panels: {}, layouts: [] } };
    expect(desiredForm(d, input, 'x', 'p')).to.deep.equal({
      kind: 'Dashboard',
      metadata: { name: 'x', project: 'p', tags: ['a', 'b'] },
      spec: { panels: {}, layouts: [], duration: '1h' },
    });
  });

  it('an older Perses export (created_at, no panels or layouts) has the form the server stores, so diff after apply finds nothing', () => {
    const d = resolveKind('dash');
    const input = {
      kind: 'Dashboard',
      metadata: { name: 'x', created_at: '2023-01-01T00:00:00Z', updated_at: '2023-01-01T00:00:00Z' },
      spec: {},
    };
    expect(desiredForm(d, input, 'x', 'p')).to.deep.equal({
      kind: 'Dashboard',
      metadata: { name: 'x', project: 'p' },
      spec: { duration: '1h', panels: {}, layouts: [] },
    });
  });
});
