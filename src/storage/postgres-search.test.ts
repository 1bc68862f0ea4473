import { expect } from 'chai';
import pg from 'pg';
import { sharedCluster, withClient } from '../../test/helpers/postgres.js';
import { needsPrograms } from '../../test/helpers/programs.js';
import { waitFor } from '../../test/helpers/wait.js';
import { obj } from '../../test/store-contract.js';
import { wordTerms } from '../lib/search-terms.js';
import { PostgresStore } from './postgres-store.js';
import type { Store } from './store.js';

const KINDS = ['Project', 'Dashboard'];

async function names(store: Store, query: string): Promise<string[] | undefined> {
  const found = await store.search({
    words: query.split(' ').map((word) => ({ word, terms: wordTerms(word) })),
    scopes: KINDS.map((kind) => ({ kind })),
  });
  if (!found) return undefined;
  const out: string[] = [];
  for await (const c of found) out.push(c.text.metadata.name);
  return out.sort();
}

describe('PostgresStore search column and event log', () => {
  needsPrograms('postgresql');
  const shared = sharedCluster();

  it('rows written without the search column (before it, or by a store without it) are indexed in the background; until then the store answers no candidates', async () => {
    const db = await shared.cluster.createDatabase();
    const plain = new PostgresStore({ url: db.url });
    await plain.open();
    let store: PostgresStore | undefined;
    try {
      await plain.create(obj('Project', '', 'p'));
      for (let i = 0; i < 450; i++)
        await plain.create(obj('Dashboard', 'p', `d${i}`, 0, { display: { name: i === 7 ? 'Kafka lag' : 'Other' } }));
      expect(await names(plain, 'kafka'), 'a store without the index').to.equal(undefined);
      store = new PostgresStore({ url: db.url, searchKinds: KINDS });
      await store.open();
      // a write by the store without the index while the other indexes: its row is indexed too, with its new text
      await plain.update(obj('Dashboard', 'p', 'd8', 1, { display: { name: 'Kafka consumers' } }), { expectedVersion: 0 });
      const found = await waitFor('the index', () => names(store!, 'kafka'));
      expect(found).to.deep.equal(['d7', 'd8']);
      const { rows } = await withClient(db.url, (c) =>
        c.query<{ n: string }>('SELECT count(*) AS n FROM dashplane_objects WHERE search IS NULL'),
      );
      expect(Number(rows[0].n)).to.equal(0);
    } finally {
      await store?.close();
      await plain.close();
      await db.drop();
    }
  });

  it('the event log keeps the last event_log_size events; a smaller size set later trims the rest within 1,024 revisions', async function () {
    this.timeout(60_000);
    const db = await shared.cluster.createDatabase();
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const logged = async () =>
      (await c.query<{ first: string; n: string }>('SELECT min(revision) AS first, count(*) AS n FROM dashplane_events')).rows[0];
    let store = new PostgresStore({ url: db.url, eventLogSize: 50 });
    await store.open();
    try {
      await store.create(obj('Project', '', 'p'));
      await Promise.all(
        Array.from({ length: 80 }, (_, i) =>
          store.create(obj('Dashboard', 'p', `a${i}`), { parent: { kind: 'Project', project: '', name: 'p' }, history: { max: 5 } }),
        ),
      );
      let rev = await store.revision();
      expect(await logged()).to.deep.equal({ first: String(rev - 49), n: '50' });
      await store.close();
      store = new PostgresStore({ url: db.url, eventLogSize: 5 });
      await store.open();
      await store.create(obj('Dashboard', 'p', 'b'), { parent: { kind: 'Project', project: '', name: 'p' }, history: { max: 5 } });
      rev = await store.revision();
      // a write trims what its own revisions push out: the older events stay for now
      expect(Number((await logged()).n)).to.be.greaterThan(5);
      await Promise.all(
        Array.from({ length: 1_024 }, (_, i) =>
          store.create(obj('Dashboard', 'p', `c${i}`), { parent: { kind: 'Project', project: '', name: 'p' }, history: { max: 5 } }),
        ),
      );
      rev = await store.revision();
      expect(await logged()).to.deep.equal({ first: String(rev - 4), n: '5' });
    } finally {
      await c.end();
      await store.close();
      await db.drop();
    }
  });
});
