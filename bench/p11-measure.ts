/**
 * P11's measurements against a running server: search latencies, the latency of other requests
 * while searches run, and create throughput (overall, and within a window such as the metadata
 * index's load). HTTP/1.1 keep-alive clients in the benchmark's process.
 */
import { Agent, request } from 'node:http';
import { corpusDashboard } from './p11-corpus.js';

/** One HTTP request over `agent`; resolves to [status, milliseconds]. */
function call(agent: Agent, url: string, method: string, headers: Record<string, string>, body?: string): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      url,
      { agent, method, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' } },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve([res.statusCode ?? 0, performance.now() - t0]));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Latencies (ms) of each query, `rounds` times in turn, one at a time; throws on an answer other than 200. */
export async function searchLatencies(
  url: string,
  headers: Record<string, string>,
  queries: readonly string[],
  rounds: number,
): Promise<Map<string, number[]>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const out = new Map<string, number[]>(queries.map((q) => [q, []]));
  try {
    for (let r = 0; r < rounds; r++) {
      for (const q of queries) {
        const [status, ms] = await call(agent, `${url}/api/v1/search?query=${encodeURIComponent(q)}&limit=20`, 'GET', headers);
        if (status !== 200) throw new Error(`search "${q}" answered ${status}`);
        out.get(q)!.push(ms);
      }
    }
  } finally {
    agent.destroy();
  }
  return out;
}

/**
 * Latencies of GETs of `path`, one after the other, while `load` runs (or for `ms` when it is a
 * number): what other requests wait while it runs. `gapMs` pauses between one answer and the next
 * request (0: back to back, a client as busy as the load itself).
 */
export async function probeLatencies(
  url: string,
  headers: Record<string, string>,
  path: string,
  load: Promise<unknown> | number,
  gapMs = 0,
): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const out: number[] = [];
  let running = true;
  const done = typeof load === 'number' ? new Promise((r) => setTimeout(r, load)) : load;
  void done.finally(() => (running = false));
  try {
    while (running) {
      const [status, ms] = await call(agent, url + path, 'GET', headers);
      if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
      out.push(ms);
      if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
    }
    await done;
  } finally {
    agent.destroy();
  }
  return out;
}

/** Searches back to back on `clients` connections until `stop` resolves; returns how many ran. */
export async function searchLoad(
  url: string,
  headers: Record<string, string>,
  queries: readonly string[],
  clients: number,
  stop: Promise<unknown>,
): Promise<number> {
  let running = true;
  void stop.finally(() => (running = false));
  let count = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = c; running; i++) {
          const [status] = await call(
            agent,
            `${url}/api/v1/search?query=${encodeURIComponent(queries[i % queries.length])}&limit=20`,
            'GET',
            headers,
          );
          if (status !== 200) throw new Error(`search answered ${status}`);
          count++;
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  return count;
}

/**
 * Creates of new 2 KB dashboards (the corpus's, numbered from `first`) into `project` on
 * `connections` connections until `stop` resolves; resolves to the completion time
 * (performance.now()) of each.
 */
export async function createLoad(
  url: string,
  headers: Record<string, string>,
  o: { project: string; first: number; connections: number; stop: Promise<unknown> },
): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: o.connections });
  const done: number[] = [];
  let running = true;
  void o.stop.finally(() => (running = false));
  let next = o.first;
  try {
    await Promise.all(
      Array.from({ length: o.connections }, async () => {
        while (running) {
          const d = corpusDashboard(next++);
          const body = JSON.stringify({ ...d, metadata: { ...d.metadata, project: o.project } });
          const [status] = await call(agent, `${url}/api/v1/projects/${o.project}/dashboards`, 'POST', headers, body);
          if (status !== 200) throw new Error(`create answered ${status}`);
          done.push(performance.now());
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return done;
}

/** Completions per second within [from, to]. */
export const rateWithin = (done: readonly number[], from: number, to: number) =>
  (done.filter((t) => t >= from && t <= to).length * 1000) / Math.max(1, to - from);
