/**
 * P3: creates of valid 10 KB dashboards (schema and plugin validation, history kept, one watch
 * stream open on the project), auth on, 16 connections. Target: >= 1,500 per second.
 * Reference: a bare node:http server that parses the same JSON body and answers it re-serialised.
 */
import { request } from 'node:http';
import {
  AUTH_ENV,
  adminAuth,
  api,
  assertClean,
  autocannon,
  dashboard,
  measured,
  report,
  startBare,
  startDashplane,
  tempDir,
  type Figure,
  type LoadResult,
} from './lib.js';
import { DURATION_S } from './p1-get.js';

export const CONNECTIONS = 16;
const BODY = JSON.stringify(dashboard('c-[<id>]', 'bench'));

/** POST load of new dashboards into project "bench" (round-robin over `urls`). */
export async function createLoad(urls: string[], auth: Record<string, string>): Promise<LoadResult> {
  const r = await autocannon({
    url: urls.map((u) => `${u}/api/v1/projects/bench/dashboards`),
    method: 'POST',
    connections: CONNECTIONS,
    durationS: DURATION_S,
    warmupS: 3,
    headers: { ...auth, 'content-type': 'application/json' },
    body: BODY,
    idReplacement: true,
  });
  assertClean('create load', r);
  return r;
}

/** A watch on the project's dashboards that only counts lines (so the reader costs little). */
export function countingWatch(url: string, auth: Record<string, string>): { lines(): number; close(): void } {
  let lines = 0;
  const req = request(`${url}/api/v1/projects/bench/dashboards?watch=true`, { headers: auth }, (res) => {
    res.on('data', (b: Buffer) => {
      for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++;
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return { lines: () => lines, close: () => req.destroy() };
}

export async function run(): Promise<Figure[]> {
  const dir = tempDir('p3');
  const server = await startDashplane({ dir: dir.path, env: AUTH_ENV });
  const bare = await startBare(['echo-json']);
  try {
    const auth = await adminAuth(server.url);
    await api(server.url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'bench' }, spec: {} }, auth);
    const ref = await autocannon({
      url: `${bare.url}/api/v1/projects/bench/dashboards`,
      method: 'POST',
      connections: CONNECTIONS,
      durationS: DURATION_S,
      warmupS: 3,
      headers: { 'content-type': 'application/json' },
      body: BODY,
      idReplacement: true,
    });
    assertClean('bare POST', ref);
    const watch = countingWatch(server.url, auth);
    const got = await createLoad([server.url], auth);
    watch.close();
    if (watch.lines() < got.total) throw new Error(`the watch saw ${watch.lines()} events for ${got.total} creates`);
    measured.set('P3', got.rps);
    return [
      report({
        id: 'P3',
        what: `create 10 KB dashboards, auth, watch, ${CONNECTIONS} conn`,
        value: got.rps,
        unit: 'req/s',
        refWhat: 'bare node:http parse+echo',
        reference: ref.rps,
        ratio: got.rps / ref.rps,
        target: '>= 1,500/s',
        pass: got.rps >= 1500,
      }),
    ];
  } finally {
    await bare.stop();
    await server.stop();
    dir.cleanup();
  }
}
