/**
 * P5: 100,000 dashboards stored (2 KB each, with their history entry), auth on.
 *  - resident memory of the server <= 220 MB, after start and after listing and reading them
 *  - start to ready (spawn to the first 200 of /api/v1/health) <= 1.5 s
 * Reference: the same server on an empty store, same run. The store is filled through
 * LevelStore directly (what the server writes, without 100,000 HTTP round trips).
 */
import { join } from 'node:path';
import { searchableKinds } from '../src/admin/open-store.js';
import { LevelStore } from '../src/storage/level-store.js';
import type { Envelope } from '../src/storage/store.js';
import { AUTH_ENV, adminAuth, api, dashboard, report, startDashplane, tempDir, type Child, type Figure } from './lib.js';

const COUNT = Number(process.env.BENCH_P5_COUNT ?? 100_000);
const MB = 1024 * 1024;

async function seed(dataDir: string): Promise<void> {
  // indexed for search as the server indexes (a store filled without it is indexed at the server's start, during the measurement)
  const store = new LevelStore(dataDir, { searchKinds: searchableKinds() });
  await store.open();
  const at = new Date().toISOString();
  const meta = (name: string, project?: string) => ({ name, ...(project ? { project } : {}), createdAt: at, updatedAt: at, version: 0 });
  await store.create({ kind: 'Project', metadata: meta('bench'), spec: {} });
  const history = { max: 50 };
  const chunk = 500;
  for (let i = 0; i < COUNT; i += chunk) {
    const writes: Promise<number>[] = [];
    for (let j = i; j < Math.min(COUNT, i + chunk); j++) {
      const d = dashboard(`d-${String(j).padStart(6, '0')}`, 'bench', 2);
      writes.push(
        store.create({ ...d, metadata: meta(d.metadata.name, 'bench') } as Envelope, {
          parent: { kind: 'Project', project: '', name: 'bench' },
          history,
        }),
      );
    }
    await Promise.all(writes);
  }
  await store.close();
}

/** RSS after start, then after a metadata_only list of everything, a prefix list and some GETs. */
async function exercise(server: Child): Promise<{ afterStart: number; afterUse: number }> {
  const afterStart = server.rss();
  const auth = await adminAuth(server.url);
  const all = await api<unknown[]>(server.url, 'GET', '/api/v1/projects/bench/dashboards?metadata_only=true', undefined, auth);
  if (all.length !== COUNT) throw new Error(`metadata_only listed ${all.length}, not ${COUNT}`);
  await api(server.url, 'GET', '/api/v1/projects/bench/dashboards?name=d-0012', undefined, auth);
  for (let i = 0; i < 200; i++)
    await api(server.url, 'GET', `/api/v1/projects/bench/dashboards/d-${String(i * 397).padStart(6, '0')}`, undefined, auth);
  return { afterStart, afterUse: Math.max(afterStart, server.rss()) };
}

export async function run(): Promise<Figure[]> {
  const empty = tempDir('p5-empty');
  const full = tempDir('p5-full');
  try {
    // first start of each creates the admin; the measured start is the second (a restart)
    const e0 = await startDashplane({ dir: empty.path, env: AUTH_ENV });
    await e0.stop();
    const e = await startDashplane({ dir: empty.path, env: AUTH_ENV });
    const refStart = e.startMs;
    const refRss = (await exerciseEmpty(e)) / MB;
    await e.stop();
    const seeded = performance.now();
    await seed(join(full.path, 'data'));
    console.log(`stored ${COUNT} dashboards in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    const f0 = await startDashplane({ dir: full.path, env: AUTH_ENV });
    await f0.stop();
    const f = await startDashplane({ dir: full.path, env: AUTH_ENV });
    const start = f.startMs;
    let rss: { afterStart: number; afterUse: number };
    try {
      rss = await exercise(f);
    } finally {
      await f.stop();
    }
    console.log(
      `RSS with ${COUNT}: ${(rss.afterStart / MB).toFixed(0)} MB after start, ${(rss.afterUse / MB).toFixed(0)} MB after listing and reading`,
    );
    const mem = rss.afterUse / MB;
    return [
      report({
        id: 'P5',
        what: `resident memory, ${COUNT.toLocaleString('en-US')} dashboards stored`,
        value: mem,
        unit: 'MB',
        refWhat: 'empty store',
        reference: refRss,
        ratio: mem / refRss,
        target: '<= 220 MB',
        pass: mem <= 220,
      }),
      report({
        id: 'P5',
        what: `start to ready, ${COUNT.toLocaleString('en-US')} dashboards stored`,
        value: start,
        unit: 'ms',
        refWhat: 'empty store',
        reference: refStart,
        ratio: start / refStart,
        target: '<= 1,500 ms',
        pass: start <= 1500,
      }),
    ];
  } finally {
    empty.cleanup();
    full.cleanup();
  }
}

async function exerciseEmpty(server: Child): Promise<number> {
  const auth = await adminAuth(server.url);
  await api(server.url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'bench' }, spec: {} }, auth);
  await api(server.url, 'GET', '/api/v1/projects/bench/dashboards?metadata_only=true', undefined, auth);
  return server.rss();
}
