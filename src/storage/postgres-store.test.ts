import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ApiError } from '../errors.js';
import { sharedCluster, withClient } from '../../test/helpers/postgres.js';
import { describeServiceContract } from '../../test/service-contract.js';
import { creationScenario, describeStoreContract, obj, type StoreFixture } from '../../test/store-contract.js';
import { SEARCH_KINDS } from '../../test/store-contract-search.js';
import type { Envelope, StoreEvent } from './store.js';
import { PostgresStore } from './postgres-store.js';
import { needsPrograms } from '../../test/helpers/programs.js';

const T0 = '2026-11-26T10:00:00.000Z';

/** Takes a database back from schema 9 to 8 (the search column, the range trim, migration 8's create statement). */
const UNDO_9 = `ALTER TABLE dashplane_objects DROP COLUMN search; DROP FUNCTION dashplane_trim_events(bigint, bigint, bigint);
  DROP FUNCTION dashplane_create_batch(text[], text[], text[], json, integer[], text[], json, text[], text[], text[], text[], text[], bigint, integer[], text[], text[], text[], text[], text[], text[], text, text, text[], boolean[]);
  DELETE FROM dashplane_schema WHERE version >= 9;`;

type StoreAndClient = (store: PostgresStore, c: pg.Client) => Promise<void>;

describe('PostgresStore', () => {
  needsPrograms('postgresql');
  const shared = sharedCluster();

  /** A store on a new database. */
  const fixture = async (): Promise<StoreFixture> => {
    const db = await shared.cluster.createDatabase();
    let store = new PostgresStore({ url: db.url, searchKinds: SEARCH_KINDS });
    await store.open();
    const peers: PostgresStore[] = [];
    return {
      store,
      async reopen() {
        await store.close();
        store = new PostgresStore({ url: db.url, searchKinds: SEARCH_KINDS });
        await store.open();
        return store;
      },
      async peer() {
        const peer = new PostgresStore({ url: db.url, searchKinds: SEARCH_KINDS });
        peers.push(peer);
        await peer.open();
        return peer;
      },
      async destroy() {
        for (const p of peers) await p.close();
        await store.close();
        await db.drop();
      },
    };
  };
  describeStoreContract('PostgresStore', fixture);
  describeServiceContract('PostgresStore', fixture);

  describe('PostgresStore specifics', () => {
    it('a since older than the retained event log is Gone; a retained one replays', async () => {
      const db = await shared.cluster.createDatabase();
      const store = new PostgresStore({ url: db.url, eventLogSize: 3 });
      await store.open();
      try {
        for (let i = 0; i < 6; i++) await store.create(obj('Dashboard', 'p', `d${i}`));
        let err: unknown;
        try {
          store.watch({ since: 1, signal: new AbortController().signal });
        } catch (e) {
          err = e;
        }
        expect((err as ApiError).reason).to.equal('Gone');
        const ac = new AbortController();
        const seen: number[] = [];
        for await (const e of store.watch({ since: 3, signal: ac.signal })) {
          seen.push(e.revision);
          if (seen.length === 3) ac.abort();
        }
        expect(seen).to.deep.equal([4, 5, 6]);
      } finally {
        await store.close();
        await db.drop();
      }
    });

    it('a second store on the same database sees the same data; migrations run once', async () => {
      const db = await shared.cluster.createDatabase();
      const a = new PostgresStore({ url: db.url });
      const b = new PostgresStore({ url: db.url });
      await Promise.all([a.open(), b.open()]);
      try {
        const r = await a.create(obj('Dashboard', 'p', 'x'));
        expect(await b.revision()).to.equal(r);
        expect(await b.get({ kind: 'Dashboard', project: 'p', name: 'x' })).to.not.equal(undefined);
        const { rows } = await withClient(db.url, (c) => c.query('SELECT version FROM dashplane_schema'));
        expect(rows.map((x: { version: number }) => x.version)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      } finally {
        await a.close();
        await b.close();
        await db.drop();
      }
    });

    it('migration 2 gives a database of schema 1 the creation revisions its event log still holds (0 for older objects)', async () => {
      const db = await shared.cluster.createDatabase();
      let store = new PostgresStore({ url: db.url, eventLogSize: 3 });
      await store.open();
      try {
        const { r4, r5 } = await creationScenario(store);
        await store.close();
        // back to what schema 1 held
        await withClient(db.url, (c) =>
          c.query(`${UNDO_9} ALTER TABLE dashplane_objects DROP COLUMN created_revision, DROP COLUMN managers; ALTER TABLE dashplane_history DROP COLUMN manager;
          DROP TABLE dashplane_audit, dashplane_audit_seq; DELETE FROM dashplane_schema WHERE version >= 2`),
        );
        store = new PostgresStore({ url: db.url, eventLogSize: 3 });
        await store.open();
        expect(await store.createdRevision({ kind: 'Project', project: '', name: 'p' })).to.equal(r4);
        expect(await store.createdRevision({ kind: 'Dashboard', project: 'p', name: 'd' })).to.equal(r5);
        expect(
          await store.createdRevision({ kind: 'Project', project: '', name: 'old' }),
          'created before the oldest retained event',
        ).to.equal(0);
      } finally {
        await store.close();
        await db.drop();
      }
    });

    it('migration 3 gives a database of schema 2 empty managers records and history entries of manager "unknown"', async () => {
      const db = await shared.cluster.createDatabase();
      let store = new PostgresStore({ url: db.url });
      await store.open();
      const key = { kind: 'Dashboard', project: 'p', name: 'd' };
      try {
        await store.create(obj('Dashboard', 'p', 'd'), { writer: { by: 'alice', manager: 'dashctl' }, history: { max: 5 } });
        await store.close();
        await withClient(db.url, (c) =>
          c.query(
            `${UNDO_9} ALTER TABLE dashplane_objects DROP COLUMN managers; ALTER TABLE dashplane_history DROP COLUMN manager; DROP TABLE dashplane_audit, dashplane_audit_seq; DELETE FROM dashplane_schema WHERE version >= 3`,
          ),
        );
        store = new PostgresStore({ url: db.url });
        await store.open();
        expect(await store.managers(key)).to.deep.equal([]);
        expect((await store.listVersions(key)).map((v) => [v.updatedBy, v.manager])).to.deep.equal([['alice', 'unknown']]);
        await store.update(obj('Dashboard', 'p', 'd', 1), { expectedVersion: 0, writer: { by: 'bob', manager: 'web-ui' } });
        expect((await store.managers(key)).map((m) => m.manager)).to.deep.equal(['web-ui']);
      } finally {
        await store.close();
        await db.drop();
      }
    });

    it('migration 5 turns a database of schema 4 (jsonb) into documents kept as written, the envelope back in kind, metadata, spec order', async () => {
      const db = await shared.cluster.createDatabase();
      let store = new PostgresStore({ url: db.url });
      await store.open();
      const key = { kind: 'Dashboard', project: 'p', name: 'd' };
      const d = obj('Dashboard', 'p', 'd', 0, { zz: 1, aa: 2 });
      try {
        await store.create(d, { writer: { by: 'alice', manager: 'dashctl' }, history: { max: 5 } });
        await store.appendAudit([{ time: '2026-01-01T00:00:00.000Z', action: 'login', user: 'alice' }]);
        await store.close();
        // back to what schema 4 held: jsonb, keys in its order
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        await c.query(`${UNDO_9} ALTER TABLE dashplane_objects ALTER COLUMN doc TYPE jsonb USING doc::jsonb, ALTER COLUMN managers DROP DEFAULT,
            ALTER COLUMN managers TYPE jsonb USING managers::jsonb, ALTER COLUMN managers SET DEFAULT '[]'::jsonb;
          ALTER TABLE dashplane_history ALTER COLUMN doc TYPE jsonb USING doc::jsonb;
          ALTER TABLE dashplane_events ALTER COLUMN object TYPE jsonb USING object::jsonb;
          ALTER TABLE dashplane_audit ALTER COLUMN entry TYPE jsonb USING entry::jsonb;
          DELETE FROM dashplane_schema WHERE version >= 5`);
        const before = await c.query<{ text: string }>('SELECT doc::text AS text FROM dashplane_objects');
        expect(before.rows[0].text, 'jsonb: spec before metadata').to.match(/^\{"kind": "Dashboard", "spec": /);
        await c.end();
        store = new PostgresStore({ url: db.url });
        await store.open();
        const jsonbSpec = { aa: 2, zz: 1 }; // jsonb's order, lost before the migration
        const envelope = JSON.stringify({ kind: 'Dashboard', metadata: (await store.get(key))!.metadata, spec: jsonbSpec });
        expect(JSON.stringify(await store.get(key))).to.equal(envelope);
        expect(JSON.parse((await store.getText(key))!.text.toString())).to.deep.equal(d);
        expect((await store.getText(key))!.text.toString()).to.match(/^\{"kind":"Dashboard","metadata":\{/);
        expect(JSON.stringify(await store.getVersion(key, 0))).to.equal(envelope);
        expect((await store.managers(key)).map((m) => m.manager)).to.deep.equal(['dashctl']);
        expect((await store.listAudit({ limit: 10 })).entries.map((e) => e.user)).to.deep.equal(['alice']);
        // what is written from now on is kept as written
        const d1 = obj('Dashboard', 'p', 'd', 1, { zz: 1, aa: 2 });
        await store.update(d1, { expectedVersion: 0, writer: { by: 'bob', manager: 'web-ui' }, history: { max: 5 } });
        expect(JSON.stringify(await store.get(key))).to.equal(JSON.stringify(d1));
      } finally {
        await store.close();
        await db.drop();
      }
    });

    it('group commit: concurrent writes share transactions; one that fails (taken name, stale version, missing parent, an error of the database) is refused alone, the others commit with gap-free revisions', async () => {
      await withStoreAndClient(async (store, c) => {
        await store.create(obj('Project', '', 'p'));
        await store.create(obj('Dashboard', 'p', 'taken'));
        const revisions: number[] = [];
        store.onEvent((e) => revisions.push(e.revision));
        const audit = (name: string) => [
          { time: new Date().toISOString(), action: 'create' as const, user: 'ann', kind: 'Dashboard', project: 'p', name },
        ];
        const writes = Array.from({ length: 40 }, (_, i) => {
          if (i === 7) return store.create(obj('Dashboard', 'p', 'taken'), { audit: audit('taken') });
          if (i === 19) return store.update(obj('Dashboard', 'p', 'taken', 5), { expectedVersion: 3 });
          if (i === 23)
            return store.create(obj('Dashboard', 'gone', 'orphan'), {
              parent: { kind: 'Project', project: '', name: 'gone' },
              audit: audit('orphan'),
            });
          // the database refuses it (a key too long for the primary key's index): a create needs no
          // savepoint of its own, so its group runs again with one per write
          if (i === 13)
            return store.create(obj('Dashboard', 'p', randomBytes(1600).toString('hex')), {
              parent: { kind: 'Project', project: '', name: 'p' },
              audit: audit('long'),
            });
          // a create whose second object is taken: its first must not be kept either
          if (i === 31) return store.create(obj('Dashboard', 'p', 'half'), { also: [obj('Dashboard', 'p', 'taken')] });
          return store.create(obj('Dashboard', 'p', `d${i}`), {
            parent: { kind: 'Project', project: '', name: 'p' },
            audit: audit(`d${i}`),
          });
        });
        const outcomes = await Promise.allSettled(writes);
        const refused = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [[i, (o.reason as ApiError).reason]] : []));
        expect(refused).to.deep.equal([
          [7, 'AlreadyExists'],
          [13, undefined],
          [19, 'Conflict'],
          [23, 'NotFound'],
          [31, 'AlreadyExists'],
        ]);
        expect(String((outcomes[13] as PromiseRejectedResult).reason)).to.match(/index row size/);
        const resolved = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
        expect(resolved, 'each write its own event revision, gap-free after the first two').to.have.members(
          Array.from({ length: 35 }, (_, i) => 3 + i),
        );
        expect(revisions).to.deep.equal(Array.from({ length: 35 }, (_, i) => 3 + i));
        expect(await store.get({ kind: 'Dashboard', project: 'p', name: 'half' })).to.equal(undefined);
        expect((await store.get({ kind: 'Dashboard', project: 'p', name: 'taken' }))!.metadata.version).to.equal(0);
        const entries = (await store.listAudit({ limit: 100 })).entries.map((e) => e.name);
        expect(entries).to.have.length(35);
        expect(entries).to.not.include.members(['taken', 'orphan', 'long']);
        // rows written in one transaction carry the same xmin: fewer transactions than writes
        const { rows } = await c.query<{ n: string }>(
          "SELECT count(DISTINCT xmin::text) AS n FROM dashplane_objects WHERE kind = 'Dashboard' AND name LIKE 'd%'",
        );
        expect(Number(rows[0].n), 'transactions for 35 concurrent creates').to.be.below(35);
      });
    });

    it('creates of new objects (history kept) share one statement (migration 8): a taken name, a missing parent or an error of the database is refused alone; the others get what the transaction path gives them', async () => {
      // calls of the function are counted (pg_stat_user_functions)
      await withStoreAndClient({ settings: "SET track_functions = 'pl'" }, async (store, c) => {
        const parent = { kind: 'Project', project: '', name: 'p' };
        await store.create(obj('Project', '', 'p'));
        await store.create(obj('Dashboard', 'p', 'taken'), { parent });
        // an earlier object of a name created again: its history goes, as in the transaction path
        await store.create(obj('Dashboard', 'p', 'd3', 4), { parent, history: { max: 5 }, writer: { by: 'old', manager: 'api' } });
        await store.delete({ kind: 'Dashboard', project: 'p', name: 'd3' });
        const before = await store.revision();
        const events: StoreEvent[] = [];
        store.onEvent((e) => events.push(e));
        const audit = (name: string) => [
          { time: '2026-11-26T10:00:00.000Z', action: 'create' as const, user: 'ann', kind: 'Dashboard', project: 'p', name },
        ];
        const written = new Map<string, Envelope>();
        const writes = Array.from({ length: 30 }, (_, i) => {
          const name = i === 5 ? 'taken' : i === 17 ? randomBytes(1600).toString('hex') : `d${i}`;
          const o = obj('Dashboard', i === 11 ? 'gone' : 'p', name, 0, { i, text: 'x'.repeat(3000) });
          written.set(name, o);
          const p = i === 11 ? { kind: 'Project', project: '', name: 'gone' } : parent;
          return store.create(o, { parent: p, history: { max: 5 }, writer: { by: 'ann', manager: 'dashctl' }, audit: audit(name) });
        });
        const outcomes = await Promise.allSettled(writes);
        const refused = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [[i, (o.reason as ApiError).reason]] : []));
        expect(refused).to.deep.equal([
          [5, 'AlreadyExists'],
          [11, 'NotFound'],
          [17, undefined],
        ]);
        expect(String((outcomes[17] as PromiseRejectedResult).reason)).to.match(/index row size/);
        const revisions = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
        expect(revisions).to.have.members(Array.from({ length: 27 }, (_, i) => before + 1 + i));
        expect(events.map((e) => e.revision)).to.deep.equal(Array.from({ length: 27 }, (_, i) => before + 1 + i));
        for (const e of events) {
          const name = e.object.metadata.name;
          expect(e.type).to.equal('ADDED');
          expect(e.object, `${name}: the object written, published from memory`).to.equal(written.get(name));
          const key = { kind: 'Dashboard', project: 'p', name };
          expect((await store.getText(key))!.text.toString()).to.equal(JSON.stringify(written.get(name)));
          expect(await store.createdRevision(key), `${name}: creation revision`).to.equal(e.revision);
          expect(await store.listVersions(key), `${name}: history`).to.deep.equal([
            { version: 0, updatedAt: written.get(name)!.metadata.updatedAt, updatedBy: 'ann', manager: 'dashctl' },
          ]);
          expect((await store.managers(key)).map((m) => m.manager)).to.deep.equal(['dashctl']);
        }
        const { rows: logged } = await c.query<{ object: string }>(
          'SELECT object::text AS object FROM dashplane_events WHERE revision > $1 ORDER BY revision',
          [before],
        );
        expect(logged.map((r) => r.object)).to.deep.equal(events.map((e) => JSON.stringify(e.object)));
        const entries = (await store.listAudit({ limit: 100 })).entries.filter((e) => e.user === 'ann');
        expect(entries.map((e) => e.name).sort()).to.deep.equal(events.map((e) => e.object.metadata.name).sort());
        const ids = entries.map((e) => e.id).sort((x, y) => x - y);
        expect(ids, 'audit ids, gap-free')
          .to.have.length(27)
          .and.deep.equal(ids.map((_, i) => ids[0] + i));
        // fewer statements than creates: rows one statement wrote carry the same xmin
        const { rows } = await c.query<{ n: string }>(
          "SELECT count(DISTINCT xmin::text) AS n FROM dashplane_objects WHERE kind = 'Dashboard' AND name LIKE 'd%'",
        );
        expect(Number(rows[0].n), 'statements for 27 concurrent creates').to.be.below(27);
        // the store's connections report their counts as they close
        await store.close();
        const calls = async () =>
          Number(
            (
              await c.query<{ n: string }>(
                "SELECT coalesce(sum(calls), 0) AS n FROM pg_stat_user_functions WHERE funcname = 'dashplane_create_batch'",
              )
            ).rows[0].n,
          );
        const deadline = Date.now() + 10_000;
        while ((await calls()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        expect(await calls(), 'calls of the create statement').to.be.within(1, 27);
      });
    });

    it('the create statement finds every row by its key (no sequential scan of objects, history or events, however many there are) and writes each new row once (no update: no dead row)', async () => {
      await withStoreAndClient(async (store, c) => {
        await store.create(obj('Project', '', 'p'));
        await c.query(
          `INSERT INTO dashplane_objects (kind, project, name, doc, version, updated_at, managers)
           SELECT 'Dashboard', 'p', 'n' || i, '{}', 0, '', '[]' FROM generate_series(1, 3000) AS i;
           INSERT INTO dashplane_history (kind, project, name, version, updated_by, manager, doc)
           SELECT 'Dashboard', 'p', 'n' || i, 0, 'x', 'x', '{}' FROM generate_series(1, 3000) AS i;
           INSERT INTO dashplane_events (revision, type, object) SELECT 1000 + i, 'ADDED', '{}' FROM generate_series(1, 3000) AS i;
           ANALYZE`,
        );
        const docs = ['a', 'b', 'c'].map((n) => obj('Dashboard', 'p', n));
        await c.query('BEGIN');
        try {
          const { rows } = await c.query<{ statuses: string[] }>(
            `SELECT (dashplane_create_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 100, $13, $14, $15, $16, $17, $18, $19, 'none', 'none', $20, $21)).statuses`,
            [
              ['Dashboard', 'Dashboard', 'Dashboard'],
              ['p', 'p', 'p'],
              ['a', 'b', 'n7'],
              JSON.stringify(docs),
              [0, 0, 0],
              [T0, T0, T0],
              '[[],[],[]]',
              ['Project', 'Project', 'Project'],
              ['', '', ''],
              ['p', 'p', 'p'],
              ['ann', 'ann', 'ann'],
              ['api', 'api', 'api'],
              [1, 2],
              [T0, T0],
              ['create', 'create'],
              ['ann', 'ann'],
              ['Dashboard', 'Dashboard'],
              ['p', 'p'],
              ['{"time":"x"}', '{"time":"y"}'],
              ["'scpu'", "'sram'", "'sx'"],
              [true, true, true],
            ],
          );
          expect(rows[0].statuses).to.deep.equal(['ok', 'ok', 'taken']);
          const scans = await c.query<{ relname: string; seq_scan: string; n_tup_upd: string }>(
            "SELECT relname, seq_scan, n_tup_upd FROM pg_stat_xact_user_tables WHERE relname IN ('dashplane_objects', 'dashplane_history', 'dashplane_events') ORDER BY relname",
          );
          expect(scans.rows.map((r) => [r.relname, Number(r.seq_scan)])).to.deep.equal([
            ['dashplane_events', 0],
            ['dashplane_history', 0],
            ['dashplane_objects', 0],
          ]);
          // the new rows as they stay: their creation revision and search column written with them
          expect(
            scans.rows.filter((r) => r.relname === 'dashplane_objects').map((r) => Number(r.n_tup_upd)),
            'rows of objects updated',
          ).to.deep.equal([0]);
          const made = await c.query<{ name: string; created_revision: string; search: string }>(
            "SELECT name, created_revision, search::text FROM dashplane_objects WHERE name IN ('a', 'b') ORDER BY name",
          );
          const base = Number(made.rows[0].created_revision);
          expect(made.rows.map((r) => [r.name, Number(r.created_revision) - base, r.search])).to.deep.equal([
            ['a', 0, "'scpu'"],
            ['b', 1, "'sram'"],
          ]);
        } finally {
          await c.query('ROLLBACK');
        }
      });
    });

    it("replicas: concurrent writes on A and B reach each store's listeners in revision order, each once; each store's own writes from memory, the other's from the log", async () => {
      await withReplicas(async (a, b) => {
        await a.create(obj('Project', '', 'p'));
        await b.sync();
        const parent = { kind: 'Project', project: '', name: 'p' };
        const heard = { a: [] as StoreEvent[], b: [] as StoreEvent[] };
        a.onEvent((e) => heard.a.push(e));
        b.onEvent((e) => heard.b.push(e));
        const start = await a.revision();
        const written = new Map<string, Envelope>();
        const create = (s: PostgresStore, name: string, history: boolean) => {
          const o = obj('Dashboard', 'p', name, 0, { text: name.repeat(500) });
          written.set(name, o);
          return s.create(o, { parent, ...(history ? { history: { max: 3 } } : {}) });
        };
        // both paths: creates made in one statement (history kept) and in a transaction (none kept)
        await Promise.all(Array.from({ length: 40 }, (_, i) => create(i % 2 ? a : b, `c${i}`, i % 4 < 2)));
        await a.sync();
        await b.sync();
        const expected = Array.from({ length: 40 }, (_, i) => start + 1 + i);
        for (const [self, events] of [
          [a, heard.a],
          [b, heard.b],
        ] as const) {
          expect(events.map((e) => e.revision)).to.deep.equal(expected);
          let fromMemory = 0;
          for (const e of events) {
            const mine = Number(e.object.metadata.name.slice(1)) % 2 === (self === a ? 1 : 0);
            if (mine) {
              // its own writes are published from memory, unless the log delivered them first (a loaded
              // machine): either way the object written
              expect(e.object, `${e.object.metadata.name}: its own write`).to.deep.equal(written.get(e.object.metadata.name));
              if (e.object === written.get(e.object.metadata.name)) fromMemory++;
            } else {
              expect(e.object).to.deep.equal(written.get(e.object.metadata.name));
              expect(
                e.object === written.get(e.object.metadata.name),
                `${e.object.metadata.name}: the other store's write, read from the log`,
              ).to.equal(false);
            }
          }
          expect(fromMemory, 'own writes published from memory').to.be.greaterThan(0);
        }
      });
    });

    it('key lookups go through the primary key even before statistics know the table grew (migration 6): a GET or an update never scans the project', async () => {
      await withStoreAndClient(async (store, c) => {
        await store.create(obj('Project', '', 'p'));
        // 2,000 objects of one project written behind the planner's back (no ANALYZE since)
        await c.query(
          `INSERT INTO dashplane_objects (kind, project, name, doc, version, updated_at, managers)
           SELECT 'Dashboard', 'p', 'd' || i, json_build_object('kind', 'Dashboard', 'metadata', json_build_object('name', 'd' || i), 'spec', json_build_object('x', repeat('y', 2000))), 0, '', '[]'
             FROM generate_series(1, 2000) AS i`,
        );
        const plans = [
          ['SELECT doc::text FROM dashplane_objects WHERE kind = $1 AND project = $2 AND name = $3', ['Dashboard', 'p', 'd5']],
          ['UPDATE dashplane_objects SET created_revision = 9 WHERE kind = $1 AND project = $2 AND name = $3', ['Dashboard', 'p', 'd5']],
          [
            `UPDATE dashplane_objects o SET created_revision = x.revision FROM (VALUES ($1 COLLATE "C", $2 COLLATE "C", $3 COLLATE "C", $4::bigint)) AS x(kind, project, name, revision)
              WHERE o.kind = x.kind AND o.project = x.project AND o.name = x.name`,
            ['Dashboard', 'p', 'd5', 9],
          ],
        ] as const;
        for (const [sql, values] of plans) {
          const { rows } = await c.query(`EXPLAIN (FORMAT JSON) ${sql}`, [...values]);
          const text = JSON.stringify(rows[0]['QUERY PLAN']);
          expect(text, sql).to.include('"Index Name":"dashplane_objects_pkey"');
          expect(text, sql).to.not.include('Rows Removed by Filter').and.not.include('dashplane_objects_project');
        }
        expect((await store.getText({ kind: 'Dashboard', project: 'p', name: 'd1999' }))!.metadata.name).to.equal('d1999');
      });
    });

    it('documents are stored compressed with lz4 (migration 7): objects, history entries and events', async () => {
      await withStoreAndClient(async (store, c) => {
        await store.create(obj('Project', '', 'p'));
        await store.create(obj('Dashboard', 'p', 'd', 0, { text: 'panel '.repeat(2000) }), { history: { max: 50 } });
        const { rows } = await c.query<{ t: string; method: string }>(
          `SELECT 'objects' AS t, pg_column_compression(doc) AS method FROM dashplane_objects WHERE name = 'd'
           UNION ALL SELECT 'history', pg_column_compression(doc) FROM dashplane_history WHERE name = 'd'
           UNION ALL SELECT 'events', pg_column_compression(object) FROM dashplane_events WHERE object->'metadata'->>'name' = 'd'`,
        );
        expect(rows).to.deep.equal([
          { t: 'objects', method: 'lz4' },
          { t: 'history', method: 'lz4' },
          { t: 'events', method: 'lz4' },
        ]);
        expect((await store.get({ kind: 'Dashboard', project: 'p', name: 'd' }))!.spec).to.deep.equal({ text: 'panel '.repeat(2000) });
      });
    });

    /**
     * A store and a plain client on a new database for `fn`; both closed and the database dropped
     * after. `settings`: an ALTER DATABASE action (SET ...) made before the store connects.
     */
    async function withStoreAndClient(...args: [fn: StoreAndClient] | [opts: { settings: string }, fn: StoreAndClient]): Promise<void> {
      const [opts, fn] = args.length === 1 ? [{}, args[0]] : args;
      const db = await shared.cluster.createDatabase();
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      if ('settings' in opts) await c.query(`ALTER DATABASE ${new URL(db.url).pathname.slice(1)} ${opts.settings}`);
      const store = new PostgresStore({ url: db.url });
      await store.open();
      try {
        await fn(store, c);
      } finally {
        await c.end();
        await store.close();
        await db.drop();
      }
    }

    /** Two stores (replicas) on a new database for `fn`, closed and the database dropped after. */
    async function withReplicas(fn: (a: PostgresStore, b: PostgresStore) => Promise<void>): Promise<void> {
      const db = await shared.cluster.createDatabase();
      const a = new PostgresStore({ url: db.url });
      const b = new PostgresStore({ url: db.url });
      await a.open();
      await b.open();
      try {
        await fn(a, b);
      } finally {
        await a.close();
        await b.close();
        await db.drop();
      }
    }

    it('sync on B, with other syncs in flight, delivers every commit A made before the call', async () => {
      await withReplicas(async (a, b) => {
        const heard = new Set<string>();
        b.onEvent((e) => heard.add(e.object.metadata.name));
        for (let i = 0; i < 30; i++) {
          const background = Array.from({ length: 5 }, () => b.sync()); // in flight, sent before the write
          await a.create(obj('Dashboard', 'p', `s${i}`));
          await b.sync();
          expect(heard.has(`s${i}`), `write ${i}`).to.equal(true);
          await Promise.all(background);
        }
      });
    });

    it("replicas: B's texts read lately are never served after A changed or deleted them (B reads from memory only what no event changed)", async () => {
      await withReplicas(async (a, b) => {
        const key = { kind: 'Dashboard', project: 'p', name: 'x' };
        await a.create(obj('Dashboard', 'p', 'x', 0, { n: 0 }));
        for (let i = 1; i <= 20; i++) {
          expect((await b.getText(key))!.metadata.version, `read ${i}`).to.equal(i - 1);
          expect((await b.getText(key))!.metadata.version, `read ${i} again (from memory)`).to.equal(i - 1);
          await a.update(obj('Dashboard', 'p', 'x', i, { n: i }), { expectedVersion: i - 1 });
          expect(JSON.parse((await b.getText(key))!.text.toString()).spec, `right after write ${i}`).to.deep.equal({ n: i });
        }
        await a.delete(key);
        expect(await b.getText(key)).to.equal(undefined);
      });
    });

    it("replicas: a watch and onEvent on B see A's writes, in order, each once", async () => {
      await withReplicas(async (a, b) => {
        const heard: number[] = [];
        const off = b.onEvent((e) => heard.push(e.revision));
        const ac = new AbortController();
        const seen: number[] = [];
        const done = (async () => {
          for await (const e of b.watch({ signal: ac.signal })) {
            seen.push(e.revision);
            if (seen.length === 12) ac.abort();
          }
        })();
        // interleaved and concurrent writes on both replicas
        await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).create(obj('Dashboard', 'p', `d${i}`))));
        for (let i = 0; i < 6; i++) await (i % 2 ? b : a).update(obj('Dashboard', 'p', `d${i}`, 1), { expectedVersion: 0 });
        await done;
        off();
        expect(seen).to.deep.equal(Array.from({ length: 12 }, (_, i) => i + 1));
        expect(heard).to.deep.equal(seen);
      });
    });

    it('an unreachable or missing database gives a clear error naming it, never the password', async () => {
      const missing = new PostgresStore({ url: shared.cluster.url.replace(/\/[^/]+$/, '/nope').replace('postgres@', 'postgres:s3cret@') });
      const m1 = await missing.open().then(
        () => '',
        (e: Error) => e.message,
      );
      expect(m1)
        .to.match(/"nope"/)
        .and.to.match(/does not exist/)
        .and.not.match(/s3cret/);
      const down = new PostgresStore({ url: 'postgres://u:s3cret@127.0.0.1:1/db' });
      const m2 = await down.open().then(
        () => '',
        (e: Error) => e.message,
      );
      expect(m2)
        .to.match(/"db" on 127\.0\.0\.1:1/)
        .and.not.match(/s3cret/);
    });

    it('a store whose database went away reports Unavailable', async () => {
      const db = await shared.cluster.createDatabase();
      const store = new PostgresStore({ url: db.url });
      await store.open();
      await store.close();
      const e = await store.ping().then(
        () => undefined,
        (x: unknown) => x,
      );
      expect((e as ApiError).reason).to.equal('Unavailable');
      await db.drop();
    });
  });
});
