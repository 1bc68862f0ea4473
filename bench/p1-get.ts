/**
 * P1: GET of one 10 KB dashboard, auth on, 50 connections, against a bare node:http server
 * answering the same bytes with the same headers (issue 38: like for like). Target: at least 50 %
 * of the bare server's requests/s, the median of ROUNDS (5) interleaved runs of the two.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AUTH_ENV,
  adminAuth,
  api,
  assertClean,
  autocannon,
  dashboard,
  interleaved,
  measured,
  median,
  range,
  report,
  ROUNDS,
  startBare,
  startDashplane,
  tempDir,
  type Figure,
  type LoadResult,
} from './lib.js';

export const CONNECTIONS = 50;
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);

/** Creates project "bench" and dashboard "d0" (10 KB); returns its path. */
export async function seedOne(url: string, auth: Record<string, string>): Promise<string> {
  await api(url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'bench' }, spec: {} }, auth);
  await api(url, 'POST', '/api/v1/projects/bench/dashboards', dashboard('d0', 'bench'), auth);
  return '/api/v1/projects/bench/dashboards/d0';
}

/** GET load on `path` (round-robin over `urls`). */
export async function getLoad(urls: string[], path: string, auth: Record<string, string>, pid?: number, warmupS = 3): Promise<LoadResult> {
  const r = await autocannon({
    url: urls.map((u) => u + path),
    connections: CONNECTIONS,
    durationS: DURATION_S,
    warmupS,
    headers: auth,
    ...(pid !== undefined ? { pid } : {}),
  });
  assertClean('GET load', r);
  return r;
}

export async function run(): Promise<Figure[]> {
  const dir = tempDir('p1');
  const server = await startDashplane({ dir: dir.path, env: AUTH_ENV });
  let bare;
  let plain;
  let framework;
  try {
    const auth = await adminAuth(server.url);
    const path = await seedOne(server.url, auth);
    const res = await fetch(server.url + path, { headers: auth });
    const bytes = Buffer.from(await res.arrayBuffer());
    const type = res.headers.get('content-type')!;
    writeFileSync(join(dir.path, 'body.json'), bytes);
    // the reference sends the same bytes with the same headers (issue 38: like for like)
    bare = await startBare(['static-like', join(dir.path, 'body.json'), type]);
    const runs = await interleaved(
      ROUNDS,
      async (warmupS) => {
        const r = await autocannon({
          url: bare!.url + path,
          connections: CONNECTIONS,
          durationS: DURATION_S,
          warmupS,
          pid: bare!.child.pid,
        });
        assertClean('bare GET', r);
        return r;
      },
      async (warmupS) => getLoad([server.url], path, auth, server.child.pid, warmupS),
    );
    const ratio = median(runs.ratios);
    const rps = median(runs.got.map((r) => r.rps));
    measured.set('P1', rps);
    const figures = [
      report({
        id: 'P1',
        what: `GET 10 KB dashboard (${bytes.length} B), auth, ${CONNECTIONS} conn, median of ${ROUNDS} interleaved (ratios ${range(runs.ratios, 2)})`,
        value: rps,
        unit: 'req/s',
        refWhat: 'bare node:http, same bytes and headers',
        reference: median(runs.ref.map((r) => r.rps)),
        ratio,
        target: 'ratio >= 0.50',
        pass: ratio >= 0.5,
      }),
    ];
    // context: the server's CPU time per request, steadier than requests/s on a machine shared
    // with the load generator (the ratio is the bare server's over ours, as for requests/s)
    figures.push(
      report({
        id: 'P1',
        what: `context: server CPU time per GET (median; ${range(runs.got.map((r) => r.cpuUs!))})`,
        value: median(runs.got.map((r) => r.cpuUs!)),
        unit: 'us',
        refWhat: 'bare node:http, same headers',
        reference: median(runs.ref.map((r) => r.cpuUs!)),
        ratio: median(runs.ref.map((r, i) => r.cpuUs! / runs.got[i].cpuUs!)),
        target: '-',
        pass: 'context',
      }),
    );
    // context: the same bytes without dashplane's headers, and through a bare Fastify app with them
    plain = await startBare(['static', join(dir.path, 'body.json'), type]);
    const noHeaders = await autocannon({ url: plain.url + path, connections: CONNECTIONS, durationS: DURATION_S, warmupS: 3 });
    assertClean('bare GET without our headers', noHeaders);
    framework = await startBare(['fastify-static', join(dir.path, 'body.json'), type]);
    const floor = await autocannon({ url: framework.url + path, connections: CONNECTIONS, durationS: DURATION_S, warmupS: 3 });
    assertClean('bare Fastify GET', floor);
    const ref = median(runs.ref.map((r) => r.rps));
    figures.push(
      report({
        id: 'P1',
        what: 'context: bare node:http, same bytes, no headers of ours',
        value: noHeaders.rps,
        unit: 'req/s',
        refWhat: 'bare node:http, same headers',
        reference: ref,
        ratio: noHeaders.rps / ref,
        target: '-',
        pass: 'context',
      }),
      report({
        id: 'P1',
        what: 'context: bare Fastify app, same bytes and headers',
        value: floor.rps,
        unit: 'req/s',
        refWhat: 'bare node:http, same headers',
        reference: ref,
        ratio: floor.rps / ref,
        target: '-',
        pass: 'context',
      }),
    );
    return figures;
  } finally {
    await framework?.stop();
    await plain?.stop();
    await bare?.stop();
    await server.stop();
    dir.cleanup();
  }
}
