/**
 * Profiles dashplane under one benchmark's load: `node dist/bench/profile.js P1` starts the server
 * (or P2P: name-prefix lists) with --cpu-prof, runs the load, stops it and prints the top self-time functions
 * (for P3 also the share of each stage of the create path).
 * (Used to find what to fix; see docs/performance.md.)
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  AUTH_ENV,
  adminAuth,
  api,
  autocannon,
  dashboard,
  median,
  pool,
  sequentialLatency,
  startBare,
  startDashplane,
  tempDir,
} from './lib.js';
import { writeFileSync } from 'node:fs';
import { seedOne } from './p1-get.js';
import { watchLatencies } from './p6-watch.js';

const which = (process.argv[2] ?? 'P1').toUpperCase();
const dir = tempDir('profile');
const server = await startDashplane({
  dir: dir.path,
  env: {
    ...AUTH_ENV,
    DASHPLANE_PROXY_ALLOW_LOOPBACK: 'true',
    ...(process.env.PG_URL ? { DASHPLANE_DATABASE_POSTGRES_URL: process.env.PG_URL, DASHPLANE_ENCRYPTION_KEY: 'a'.repeat(64) } : {}),
  },
  nodeArgs: ['--cpu-prof', '--cpu-prof-dir', join(dir.path, 'prof')],
});
try {
  const auth = await adminAuth(server.url);
  const path = await seedOne(server.url, auth);
  if (which === 'P1') console.log(await autocannon({ url: server.url + path, connections: 50, durationS: 10, headers: auth }));
  if (which === 'P3')
    console.log(
      await autocannon({
        url: `${server.url}/api/v1/projects/bench/dashboards`,
        method: 'POST',
        connections: 16,
        durationS: 10,
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(dashboard('c-[<id>]', 'bench')),
        idReplacement: true,
      }),
    );
  if (which === 'P4') {
    const file = join(dir.path, 'upstream.json');
    writeFileSync(file, JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] }, pad: 'x'.repeat(2000) }));
    const upstream = await startBare(['static', file, 'application/json']);
    await api(
      server.url,
      'POST',
      '/api/v1/projects/bench/datasources',
      {
        kind: 'Datasource',
        metadata: { name: 'prom' },
        spec: { plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: upstream.url } } } } },
      },
      auth,
    );
    // each request a new query, as P4 measures (the query cache would answer a repeated one)
    console.log(
      await autocannon({
        url: `${server.url}/proxy/projects/bench/datasources/prom/api/v1/query?query=up&n=[<id>]&fresh=1`,
        connections: 50,
        durationS: 10,
        headers: auth,
        idReplacement: true,
      }),
    );
    await upstream.stop();
  }
  if (which === 'P6') {
    const l = await watchLatencies({ watchUrls: [server.url], writeUrl: server.url, auth, count: 1000, writes: 20, tag: 'prof' });
    l.sort((a, b) => a - b);
    console.log(`p50 ${l[Math.floor(l.length / 2)].toFixed(1)} ms, p99 ${l[Math.floor(l.length * 0.99)].toFixed(1)} ms`);
  }
  if (which === 'P2P') {
    await pool(
      Array.from({ length: 300 }, (_, i) => `d-${String(i).padStart(4, '0')}`),
      16,
      async (n) => void (await api(server.url, 'POST', '/api/v1/projects/bench/dashboards', dashboard(n, 'bench'), auth)),
    );
    const l = await sequentialLatency(`${server.url}/api/v1/projects/bench/dashboards?name=d-01`, auth, 2000);
    console.log(`name prefix (100 of 300) p50 ${median(l).toFixed(2)} ms`);
  }
  if (which === 'P2') {
    for (let i = 0; i < 2000; i++) await api(server.url, 'POST', '/api/v1/projects/bench/dashboards', dashboard(`x${i}`, 'bench'), auth);
    console.log(
      await autocannon({
        url: `${server.url}/api/v1/projects/bench/dashboards?metadata_only=true`,
        connections: 1,
        amount: 50,
        headers: auth,
      }),
    );
  }
} finally {
  await server.stop();
}
const profDir = join(dir.path, 'prof');
const stages = which === 'P3' ? ['--stages', 'create'] : [];
for (const f of readdirSync(profDir))
  console.log(
    execFileSync(process.execPath, [join(import.meta.dirname, 'profile-summary.js'), join(profDir, f), '30', ...stages]).toString(),
  );
dir.cleanup();
