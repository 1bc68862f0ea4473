import { expect } from 'chai';
import { type IndexEntry, type LoadedPlaces, MetadataIndex } from './metadata-index.js';
import type { Metadata, StoreEvent } from './store.js';

const T = '2026-01-01T00:00:00.000Z';
const meta = (project: string, name: string, version = 0): Metadata => ({
  name,
  ...(project ? { project } : {}),
  createdAt: T,
  updatedAt: T,
  version,
});
const event = (type: StoreEvent['type'], m: Metadata): StoreEvent => ({
  type,
  revision: 0,
  object: { kind: 'Dashboard', metadata: m, spec: {} },
});
const key = (m: Metadata) => `${m.project ?? ''}\u0000${m.name}`;
/** Objects as a load reads them: their places only. */
const places = (ms: Metadata[]): LoadedPlaces => ({ projects: ms.map((m) => m.project ?? ''), names: ms.map((m) => m.name) });
/** What a list answered: each entry's place, and its metadata's version when the index holds it. */
const listed = (entries: IndexEntry[]) => entries.map((e) => [e.project, e.name, e.metadata?.version]);

/** A small deterministic generator (the same sequence every run). */
function numbers(seed: number): () => number {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 4294967296;
  };
}

describe('MetadataIndex', () => {
  it('keeps list order, and the metadata lists read, through thousands of creates, updates and deletes over many chunks', () => {
    const index = new MetadataIndex();
    const rand = numbers(7);
    const start = Array.from({ length: 3_000 }, (_, i) => meta(`p${i % 7}`, `n${String(i).padStart(5, '0')}`)).sort((a, b) =>
      key(a) < key(b) ? -1 : 1,
    );
    index.loadFrom('Dashboard');
    index.load('Dashboard', places(start));
    const truth = new Map(start.map((m) => [key(m), m]));
    // a list kept the metadata it read of every third (and asked for one the index does not hold)
    for (const m of start.filter((_, i) => i % 3 === 0)) {
      const read = { ...m, version: -1 };
      index.remember('Dashboard', read);
      truth.set(key(m), read);
    }
    index.remember('Dashboard', meta('p0', 'absent'));
    for (let i = 0; i < 20_000; i++) {
      const m = meta(`p${Math.floor(rand() * 9)}`, `n${String(Math.floor(rand() * 6_000)).padStart(5, '0')}`, i + 1);
      if (rand() < 0.45) {
        index.apply(event('DELETED', m));
        truth.delete(key(m));
      } else {
        index.apply(event(truth.has(key(m)) ? 'MODIFIED' : 'ADDED', m));
        truth.set(key(m), m);
      }
    }
    // what the load read has no metadata yet; what an event wrote has it
    const expected = [...truth.values()]
      .sort((a, b) => (key(a) < key(b) ? -1 : 1))
      .map((m) => [m.project, m.name, m.version === 0 ? undefined : m.version]);
    expect(listed(index.list({ kind: 'Dashboard' }))).to.deep.equal(expected);
    // one project, a name prefix, pages after a position
    expect(listed(index.list({ kind: 'Dashboard', project: 'p3', namePrefix: 'n01' }))).to.deep.equal(
      expected.filter(([p, n]) => p === 'p3' && (n as string).startsWith('n01')),
    );
    const after = expected[1_000];
    expect(
      listed(index.list({ kind: 'Dashboard', after: { project: after[0] as string, name: after[1] as string }, limit: 50 })),
    ).to.deep.equal(expected.slice(1_001, 1_051));
  });

  it('applies the events committed while a kind loads after the snapshot it loaded, in order', () => {
    const index = new MetadataIndex();
    index.loadFrom('Dashboard');
    index.apply(event('ADDED', meta('p', 'new')));
    index.apply(event('DELETED', meta('p', 'a')));
    index.apply(event('MODIFIED', meta('p', 'b', 3)));
    expect(index.has('Dashboard')).to.equal(false);
    index.load('Dashboard', places([meta('p', 'a'), meta('p', 'b')]));
    expect(listed(index.list({ kind: 'Dashboard' }))).to.deep.equal([
      ['p', 'b', 3],
      ['p', 'new', 0],
    ]);
  });
});
