/**
 * P2: lists over 10,000 dashboards (10 KB each) in one project, auth on.
 *  - name prefix returning 100 of them: p50 <= 5 ms
 *  - metadata_only list of all 10,000: <= 100 ms
 * Reference: p50 of a GET of one of those dashboards, same server, same run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AUTH_ENV,
  adminAuth,
  api,
  dashboard,
  median,
  pool,
  report,
  sequentialLatency,
  startBare,
  startDashplane,
  tempDir,
  type Child,
  type Figure,
} from './lib.js';

const COUNT = 10_000;

export async function run(): Promise<Figure[]> {
  const dir = tempDir('p2');
  const server = await startDashplane({ dir: dir.path, env: AUTH_ENV });
  let bare: Child | undefined;
  try {
    const auth = await adminAuth(server.url);
    await api(server.url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'bench' }, spec: {} }, auth);
    const seeded = performance.now();
    const names = Array.from({ length: COUNT }, (_, i) => `d-${String(i).padStart(4, '0')}`);
    await pool(
      names,
      16,
      async (name) => void (await api(server.url, 'POST', '/api/v1/projects/bench/dashboards', dashboard(name, 'bench'), auth)),
    );
    console.log(`seeded ${COUNT} dashboards in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    const base = `${server.url}/api/v1/projects/bench/dashboards`;
    const check = await api<unknown[]>(server.url, 'GET', '/api/v1/projects/bench/dashboards?name=d-12', undefined, auth);
    if (check.length !== 100) throw new Error(`name=d-12 returned ${check.length} dashboards, not 100`);
    const all = await api<unknown[]>(server.url, 'GET', '/api/v1/projects/bench/dashboards?metadata_only=true', undefined, auth);
    if (all.length !== COUNT) throw new Error(`metadata_only returned ${all.length} dashboards, not ${COUNT}`);
    const one = median(await sequentialLatency(`${base}/d-1234`, auth, 500));
    const prefix = median(await sequentialLatency(`${base}?name=d-12`, auth, 300));
    const metadataOnly = median(await sequentialLatency(`${base}?metadata_only=true`, auth, 20, 3));
    // context: the same 1 MB answer from a bare node:http server, to the same client
    const answer = join(dir.path, 'prefix.json');
    writeFileSync(answer, Buffer.from(await (await fetch(`${base}?name=d-12`, { headers: auth })).arrayBuffer()));
    bare = await startBare(['static', answer, 'application/json']);
    const floor = median(await sequentialLatency(`${bare.url}/prefix`, {}, 300));
    return [
      report({
        id: 'P2',
        what: 'list name prefix, 100 of 10,000 (p50)',
        value: prefix,
        unit: 'ms',
        refWhat: 'GET one dashboard p50',
        reference: one,
        ratio: prefix / one,
        target: '<= 5 ms',
        pass: prefix <= 5,
      }),
      report({
        id: 'P2',
        what: 'context: the same answer from bare node:http (p50)',
        value: floor,
        unit: 'ms',
        refWhat: 'dashplane',
        reference: prefix,
        ratio: floor / prefix,
        target: '-',
        pass: 'context',
      }),
      report({
        id: 'P2',
        what: 'list metadata_only, all 10,000 (p50)',
        value: metadataOnly,
        unit: 'ms',
        refWhat: 'GET one dashboard p50',
        reference: one,
        ratio: metadataOnly / one,
        target: '<= 100 ms',
        pass: metadataOnly <= 100,
      }),
    ];
  } finally {
    await bare?.stop();
    await server.stop();
    dir.cleanup();
  }
}
