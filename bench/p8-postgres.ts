/**
 * P8: three replicas on one PostgreSQL 15 database (the test helper's throwaway cluster), auth on.
 *  - P1's GET load and P3's create load, spread round-robin over the replicas: within 2x of
 *    LevelDB (reference: P1/P3 of this run, or measured here when they did not run)
 *  - replica-to-replica watch latency: watches on replicas B and C, writes on A, p99 <= 100 ms
 *    (reference: watches on A itself)
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres } from '../test/helpers/postgres.js';
import { AUTH_ENV, adminAuth, api, measured, percentile, report, startDashplane, tempDir, type Child, type Figure } from './lib.js';
import { getLoad, seedOne } from './p1-get.js';
import { createLoad } from './p3-create.js';
import { watchLatencies } from './p6-watch.js';

const WATCHERS = 100;
const WRITES = 50;

/** P1 and P3 on LevelDB, when this run has not measured them yet. */
async function levelReference(): Promise<{ get: number; create: number }> {
  if (measured.has('P1') && measured.has('P3')) return { get: measured.get('P1')!, create: measured.get('P3')! };
  const dir = tempDir('p8-level');
  const server = await startDashplane({ dir: dir.path, env: AUTH_ENV });
  try {
    const auth = await adminAuth(server.url);
    const path = await seedOne(server.url, auth);
    const get = measured.get('P1') ?? (await getLoad([server.url], path, auth)).rps;
    const create = measured.get('P3') ?? (await createLoad([server.url], auth)).rps;
    return { get, create };
  } finally {
    await server.stop();
    dir.cleanup();
  }
}

export async function run(): Promise<Figure[]> {
  const level = await levelReference();
  const dir = tempDir('p8');
  const pg = await startPostgres();
  const replicas: Child[] = [];
  try {
    const db = await pg.createDatabase();
    // one user holds every stream, as many as watch.max_streams_per_user allows by default (100): room for the ones closing
    const streams = { DASHPLANE_WATCH_MAX_STREAMS_PER_USER: String(2 * WATCHERS) };
    const env = {
      ...AUTH_ENV,
      ...streams,
      DASHPLANE_DATABASE_POSTGRES_URL: db.url,
      DASHPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    };
    for (const name of ['a', 'b', 'c']) {
      const d = join(dir.path, name);
      mkdirSync(d);
      replicas.push(await startDashplane({ dir: d, env }));
    }
    const urls = replicas.map((r) => r.url);
    const auth = await adminAuth(urls[0]);
    const path = await seedOne(urls[0], auth);
    for (const u of urls) await api(u, 'GET', path, undefined, auth);
    const get = (await getLoad(urls, path, auth)).rps;
    const create = (await createLoad(urls, auth)).rps;
    const same = await watchLatencies({ watchUrls: [urls[0]], writeUrl: urls[0], auth, count: WATCHERS, writes: WRITES, tag: 'same' });
    const cross = await watchLatencies({
      watchUrls: urls.slice(1),
      writeUrl: urls[0],
      auth,
      count: WATCHERS,
      writes: WRITES,
      tag: 'cross',
    });
    const p99 = percentile(cross, 99);
    return [
      report({
        id: 'P8',
        what: 'GET 10 KB dashboard, 3 PostgreSQL replicas',
        value: get,
        unit: 'req/s',
        refWhat: 'LevelDB (P1)',
        reference: level.get,
        ratio: get / level.get,
        target: 'ratio >= 0.50',
        pass: get / level.get >= 0.5,
      }),
      report({
        id: 'P8',
        what: 'create 10 KB dashboards, 3 PostgreSQL replicas',
        value: create,
        unit: 'req/s',
        refWhat: 'LevelDB (P3)',
        reference: level.create,
        ratio: create / level.create,
        target: 'ratio >= 0.50',
        pass: create / level.create >= 0.5,
      }),
      report({
        id: 'P8',
        what: `replica-to-replica watch, ${WATCHERS} watchers (p99)`,
        value: p99,
        unit: 'ms',
        refWhat: 'same-replica p99',
        reference: percentile(same, 99),
        ratio: p99 / percentile(same, 99),
        target: '<= 100 ms',
        pass: p99 <= 100,
      }),
    ];
  } finally {
    for (const r of replicas) await r.stop();
    await pg.stop();
    dir.cleanup();
  }
}
