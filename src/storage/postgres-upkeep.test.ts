import { expect } from 'chai';
import pg from 'pg';
import { sharedCluster, withClient } from '../../test/helpers/postgres.js';
import { needsPrograms } from '../../test/helpers/programs.js';
import { waitFor } from '../../test/helpers/wait.js';
import { obj } from '../../test/store-contract.js';
import { PostgresPool } from './postgres-pool.js';
import { PostgresStore } from './postgres-store.js';
import { PostgresUpkeep } from './postgres-upkeep.js';

/** What pg_stat_user_tables says of a table's analyses, vacuums and dead rows. */
async function tableStats(url: string, table: string): Promise<{ analysed: boolean; vacuumed: boolean; dead: number }> {
  const { rows } = await withClient(url, (c) =>
    c.query<{ analysed: boolean; vacuumed: boolean; dead: string }>(
      `SELECT last_analyze IS NOT NULL AS analysed, last_vacuum IS NOT NULL AS vacuumed, n_dead_tup AS dead
         FROM pg_stat_user_tables WHERE relname = $1`,
      [table],
    ),
  );
  return { ...rows[0], dead: Number(rows[0].dead) };
}

/** Creates dashboards [from, to) in project p, 100 at a time (the store groups them). */
async function createMany(store: PostgresStore, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 100)
    await Promise.all(Array.from({ length: Math.min(100, to - i) }, (_, j) => store.create(obj('Dashboard', 'p', `d${i + j}`))));
}

describe('PostgreSQL upkeep: analyses and vacuums where autovacuum comes too late', () => {
  needsPrograms('postgresql');
  const shared = sharedCluster();

  it('a store analyses the objects table soon after 1,000 writes (a search is planned from statistics, not guesses)', async () => {
    const db = await shared.cluster.createDatabase();
    const logged: string[] = [];
    const store = new PostgresStore({ url: db.url, searchKinds: ['Project', 'Dashboard'], log: (_level, msg) => logged.push(msg) });
    await store.open();
    try {
      await store.create(obj('Project', '', 'p'));
      await createMany(store, 0, 400);
      expect(store.upkeep.done.analysed, 'not at 400 writes').to.equal(0);
      await createMany(store, 400, 1_600);
      await waitFor('the analyse', () => store.upkeep.done.analysed > 0 || undefined);
      expect((await tableStats(db.url, 'dashplane_objects')).analysed).to.equal(true);
      expect(logged.join('\n')).to.match(/ANALYZE dashplane_objects \(\d+ rows changed since the last analyse\)/);
    } finally {
      await store.close();
      await db.drop();
    }
  });

  it('vacuums the event log once its trimmed rows pass the limit; another look finds nothing to do', async () => {
    const db = await shared.cluster.createDatabase();
    const store = new PostgresStore({ url: db.url, eventLogSize: 10 });
    await store.open();
    const pool = new PostgresPool('upkeep test');
    pool.pool = new pg.Pool({ connectionString: db.url, max: 2 });
    const logged: string[] = [];
    const upkeep = new PostgresUpkeep({
      db: pool,
      log: (_level, msg) => logged.push(msg),
      limits: { changedMin: 1e9, eventsDeadMax: 200 },
    });
    try {
      await store.create(obj('Project', '', 'p'));
      await createMany(store, 0, 400);
      // the counters reach pg_stat_user_tables within a second or so of the writes
      await waitFor('the dead rows counted', async () => ((await tableStats(db.url, 'dashplane_events')).dead >= 200 ? true : undefined));
      upkeep.check();
      await upkeep.settled();
      expect(upkeep.done).to.deep.equal({ analysed: 0, vacuumed: 1 });
      expect(logged.join('\n')).to.match(/VACUUM dashplane_events \(\d+ dead rows\)/);
      expect((await tableStats(db.url, 'dashplane_events')).vacuumed).to.equal(true);
      await waitFor('the vacuum counted', async () => ((await tableStats(db.url, 'dashplane_events')).dead < 200 ? true : undefined));
      upkeep.check();
      await upkeep.settled();
      expect(upkeep.done.vacuumed, 'nothing left to vacuum').to.equal(1);
    } finally {
      await pool.pool.end();
      await store.close();
      await db.drop();
    }
  });
});
