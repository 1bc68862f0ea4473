/**
 * P1: GET of one 10 KB dashboard, auth on, 50 connections, against a bare node:http server
 * answering the same bytes. Target: at least 60 % of the bare server's requests/s.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_ENV, adminAuth, api, assertClean, autocannon, dashboard, measured, report, startBare, startDashplane, tempDir, type Figure, type LoadResult } from './lib.js';

export const CONNECTIONS = 50;
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);

/** Creates project "bench" and dashboard "d0" (10 KB); returns its path. */
export async function seedOne(url: string, auth: Record<string, string>): Promise<string> {
  await api(url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'bench' }, spec: {} }, auth);
  await api(url, 'POST', '/api/v1/projects/bench/dashboards', dashboard('d0', 'bench'), auth);
  return '/api/v1/projects/bench/dashboards/d0';
}

/** GET load on `path` (round-robin over `urls`). */
export async function getLoad(urls: string[], path: string, auth: Record<string, string>, pid?: number): Promise<LoadResult> {
  const r = await autocannon({ url: urls.map((u) => u + path), connections: CONNECTIONS, durationS: DURATION_S, warmupS: 3, headers: auth, ...(pid !== undefined ? { pid } : {}) });
  assertClean('GET load', r);
  return r;
}

export async function run(): Promise<Figure[]> {
  const dir = tempDir('p1');
  const server = await startDashplane({ dir: dir.path, env: AUTH_ENV });
  let bare;
  let framework;
  try {
    const auth = await adminAuth(server.url);
    const path = await seedOne(server.url, auth);
    const res = await fetch(server.url + path, { headers: auth });
    const bytes = Buffer.from(await res.arrayBuffer());
    writeFileSync(join(dir.path, 'body.json'), bytes);
    bare = await startBare(['static', join(dir.path, 'body.json'), res.headers.get('content-type')!]);
    const ref = await autocannon({ url: bare.url + path, connections: CONNECTIONS, durationS: DURATION_S, warmupS: 3, pid: bare.child.pid });
    assertClean('bare GET', ref);
    const got = await getLoad([server.url], path, auth, server.child.pid);
    const ratio = got.rps / ref.rps;
    measured.set('P1', got.rps);
    const figures = [
      report({
        id: 'P1',
        what: `GET 10 KB dashboard (${bytes.length} B), auth, ${CONNECTIONS} conn`,
        value: got.rps,
        unit: 'req/s',
        refWhat: 'bare node:http, same bytes',
        reference: ref.rps,
        ratio,
        target: 'ratio >= 0.60',
        pass: ratio >= 0.6,
      }),
    ];
    // context: the server's CPU time per request, steadier than requests/s on a machine shared
    // with the load generator (the ratio is the bare server's over ours, as for requests/s)
    figures.push(
      report({
        id: 'P1',
        what: 'context: server CPU time per GET',
        value: got.cpuUs!,
        unit: 'us',
        refWhat: 'bare node:http',
        reference: ref.cpuUs!,
        ratio: ref.cpuUs! / got.cpuUs!,
        target: '-',
        pass: 'context',
      }),
    );
    // context: a Fastify app that only answers the same bytes (no auth, store, logging or metrics)
    framework = await startBare(['fastify-static', join(dir.path, 'body.json'), res.headers.get('content-type')!]);
    const floor = await autocannon({ url: framework.url + path, connections: CONNECTIONS, durationS: DURATION_S, warmupS: 3 });
    assertClean('bare Fastify GET', floor);
    figures.push(
      report({
        id: 'P1',
        what: 'context: bare Fastify app, same bytes',
        value: floor.rps,
        unit: 'req/s',
        refWhat: 'bare node:http',
        reference: ref.rps,
        ratio: floor.rps / ref.rps,
        target: '-',
        pass: 'context',
      }),
    );
    return figures;
  } finally {
    await framework?.stop();
    await bare?.stop();
    await server.stop();
    dir.cleanup();
  }
}
