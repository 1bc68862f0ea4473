/**
 * The search index part of the Store contract (issue 38): every object matching every word of a
 * query is among the candidates, no candidate scores more than its bound, and candidates come
 * best bound first, equal bounds in key order — through creates, updates, deletes and a project's
 * deletion with its objects. The stores under test index SEARCH_KINDS.
 */
import { expect } from 'chai';
import { MAX_TERMS, termsOf, wordTerms } from '../src/lib/search-terms.js';
import { matchObject } from '../src/search/search-match.js';
import type { Envelope, SearchCandidate, SearchScope, Store } from '../src/storage/store.js';
import { keyOf } from '../src/storage/store.js';
import type { StoreFixture } from './store-contract.js';

/** The kinds the contract's stores index. */
export const SEARCH_KINDS: readonly string[] = ['Project', 'Dashboard', 'Datasource'];

const T = '2026-01-01T00:00:00.000Z';
const TITLES = ['CPU usage', 'Memory', 'Node overview', 'HTTPServer latency p99', 'Disk IO', 'memory pressure', 'cpu'];
const QUERIES = [
  'cpu',
  'CPU usage',
  'memory',
  'mem',
  'avail',
  'memavailable',
  'node_memory',
  'job="node"',
  'server',
  'p99',
  '99',
  'tag:infra',
  'infra cpu',
  'team',
  'team-b latency',
  'overview node',
  'usage rate',
  'zzz',
  'a',
  'rate(node_cpu',
  'z',
  'z cpu',
];

/** Words standing for so many terms that a store may leave them to the caller's check (its candidates may lack them). */
const BROAD = new Set(['z']);

const dash = (project: string, name: string, i: number, extra: Record<string, unknown> = {}): Envelope => ({
  kind: 'Dashboard',
  metadata: { name, project, createdAt: T, updatedAt: T, version: 0, ...(i % 4 === 0 ? { tags: ['infra', `t${i % 3}`] } : {}) },
  spec: {
    display: { name: TITLES[i % TITLES.length] },
    panels: {
      a: {
        kind: 'Panel',
        spec: {
          display: { name: i % 3 ? 'Load average' : 'RAM Total' },
          queries: [{ query: i % 2 ? `rate(node_cpu_seconds_total{job="node"}[5m])` : 'node_memory_MemAvailable_bytes' }],
        },
      },
    },
    ...extra,
  },
});

function wordsOf(query: string) {
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => ({ word, terms: wordTerms(word) }))
    .filter((w) => w.terms.length > 0);
}

async function candidatesOf(store: Store, query: string, scopes: readonly SearchScope[]): Promise<SearchCandidate[]> {
  const found = await store.search({ words: wordsOf(query), scopes });
  expect(found, 'the index is ready').to.not.equal(undefined);
  const out: SearchCandidate[] = [];
  for await (const c of found!) out.push(c);
  return out;
}

const keyText = (o: Envelope) => `${o.kind}\u0000${o.metadata.project ?? ''}\u0000${o.metadata.name}`;

/** Checks every query against the objects stored now (`objects`, by key text). */
async function checkAll(
  store: Store,
  objects: Map<string, Envelope>,
  scopes: readonly SearchScope[] = SEARCH_KINDS.map((kind) => ({ kind })),
): Promise<void> {
  const inScope = (o: Envelope) =>
    scopes.some(
      (s) =>
        s.kind === o.kind &&
        (!s.projects || s.projects.includes(o.metadata.project ?? '')) &&
        (!s.names || s.names.includes(o.metadata.name)),
    );
  for (const query of QUERIES) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const found = await candidatesOf(store, query, scopes);
    const byKey = new Map(found.map((c) => [keyText(JSON.parse(c.text.text.toString()) as Envelope), c]));
    expect(byKey.size, `${query}: each object once`).to.equal(found.length);
    for (const o of objects.values()) {
      const hit = inScope(o)
        ? matchObject({ kind: o.kind, plural: 'x', scope: o.metadata.project ? 'project' : 'global' } as never, o, words)
        : undefined;
      const c = byKey.get(keyText(o));
      if (!inScope(o)) expect(c, `${query}: ${keyText(o)} is out of scope`).to.equal(undefined);
      if (!hit) continue;
      expect(c, `${query}: ${keyText(o)} matches`).to.not.equal(undefined);
      expect(c!.bound, `${query}: bound of ${keyText(o)}`).to.be.at.least(hit.score);
    }
    for (const c of found) {
      const o = JSON.parse(c.text.text.toString()) as Envelope;
      expect(objects.has(keyText(o)), `${query}: a candidate that exists`).to.equal(true);
      // no entry outlives the text it came from: a candidate holds a term for every term of every word
      const t = termsOf(o);
      if (t.overflow) continue;
      const held = [...t.terms.keys()];
      for (const w of wordsOf(query)) {
        if (BROAD.has(w.word)) continue;
        for (const term of w.terms)
          expect(
            held.some((h) => h.startsWith(term)),
            `${query}: ${keyText(o)} holds ${term}`,
          ).to.equal(true);
      }
    }
    for (let i = 1; i < found.length; i++) {
      const [a, b] = [found[i - 1], found[i]];
      const order =
        a.bound > b.bound ||
        (a.bound === b.bound && keyText(JSON.parse(a.text.text.toString())) < keyText(JSON.parse(b.text.text.toString())));
      expect(order, `${query}: candidate ${i} in order`).to.equal(true);
    }
  }
}

export function describeSearchContract(current: () => Store, fixture: () => StoreFixture): void {
  describe('search index', () => {
    const objects = new Map<string, Envelope>();
    const put = async (o: Envelope, create = true) => {
      if (create) await current().create(o);
      else await current().update(o, { expectedVersion: o.metadata.version - 1 });
      objects.set(keyText(o), o);
    };

    beforeEach(async () => {
      objects.clear();
      for (const p of ['team-a', 'team-b', 'ops'])
        await put({
          kind: 'Project',
          metadata: { name: p, createdAt: T, updatedAt: T, version: 0 },
          spec: { display: { name: `Team ${p}` } },
        });
      for (let i = 0; i < 60; i++) await put(dash(['team-a', 'team-b', 'ops'][i % 3], i % 7 === 0 ? `cpu${i}` : `d${i}`, i));
      await put({
        kind: 'Datasource',
        metadata: { name: 'prom', project: 'ops', createdAt: T, updatedAt: T, version: 0 },
        spec: { plugin: { kind: 'PrometheusDatasource', spec: { url: 'http://prom:9090' } } },
      });
      // a word standing for more terms than a lazy search follows (z: 40 of them)
      await put(dash('ops', 'zed', 3, { notes: Array.from({ length: 40 }, (_, i) => `z${i}x`).join(' ') }));
      // not an indexed kind: never a candidate
      await current().create({
        kind: 'Secret',
        metadata: { name: 'cpu', project: 'ops', createdAt: T, updatedAt: T, version: 0 },
        spec: { text: 'cpu memory' },
      });
    });

    it('finds every object matching every word, scoring at most its bound, best bound first and equal bounds in key order', async () => {
      await checkAll(current(), objects);
    });

    it('an object with more terms than kept is still found, by any of its words', async () => {
      const words = Array.from({ length: MAX_TERMS + 10 }, (_, i) => `w${i}q`).join(' ');
      await put(dash('ops', 'huge', 1, { notes: `${words} uniquelyhuge` }));
      const found = await candidatesOf(current(), 'uniquelyhuge', [{ kind: 'Dashboard' }]);
      expect(found.map((c) => c.text.metadata.name)).to.include('huge');
      await checkAll(current(), objects);
    });

    it('follows updates, deletes and the deletion of a project with its objects', async () => {
      const s = current();
      const d1 = [...objects.values()].find((o) => o.metadata.name === 'd1')!;
      await put({ ...d1, metadata: { ...d1.metadata, version: 1 }, spec: { display: { name: 'Renamed zzz board' } } }, false);
      expect((await candidatesOf(s, 'zzz', [{ kind: 'Dashboard' }])).map((c) => c.text.metadata.name)).to.deep.equal(['d1']);
      await checkAll(s, objects);
      const d2 = [...objects.values()].find((o) => o.metadata.name === 'd2')!;
      await s.delete(keyOf(d2));
      objects.delete(keyText(d2));
      await s.delete(
        { kind: 'Project', project: '', name: 'team-b' },
        { children: { project: 'team-b', kinds: ['Dashboard', 'Datasource'] } },
      );
      for (const [k, o] of objects)
        if (o.metadata.project === 'team-b' || (o.kind === 'Project' && o.metadata.name === 'team-b')) objects.delete(k);
      await checkAll(s, objects);
      // a new object under a deleted one's name is found by its own words only
      await put(dash('team-a', 'd2', 5));
      await checkAll(s, objects);
    });

    it('only in the projects, or of the names, a scope names', async () => {
      await checkAll(current(), objects, [
        { kind: 'Dashboard', projects: ['team-b'] },
        { kind: 'Project', names: ['team-b', 'nope'] },
      ]);
      await checkAll(current(), objects, [
        { kind: 'Dashboard', projects: [] },
        { kind: 'Datasource', projects: ['ops', 'team-a'] },
      ]);
    });

    it('is kept across a reopen', async () => {
      await checkAll(await fixture().reopen(), objects);
    });
  });
}
