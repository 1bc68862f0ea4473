/**
 * P6: 1,000 watch streams open on a project's dashboards, then one write (a 10 KB dashboard) at a
 * time: every watcher must get the event; p99 from sending the write to each watcher's arrival
 * <= 100 ms (over WRITES writes). Reference: the same with one watcher. Auth on.
 */
import { request, type ClientRequest } from 'node:http';
import { AUTH_ENV, adminAuth, api, dashboard, percentile, report, startDashplane, tempDir, type Figure } from './lib.js';

const WATCHERS = 1000;
const WRITES = 20;
/** Unmeasured writes before the measured ones. */
const WARMUP = 3;

/**
 * A raw watch stream that records when each named object's event line arrived (when its last
 * byte did). Bytes stay bytes and the name is found by a native search, so the client's own cost
 * (a thousand 10 KB lines per write, on the same two cores as the server) stays small.
 */
const NAME = Buffer.from('"name":"w-');
const QUOTE = 0x22;

class Watch {
  readonly seen = new Map<string, number>();
  private req?: ClientRequest;
  /** Chunks of the line being received. */
  private partial: Buffer[] = [];

  static open(url: string, auth: Record<string, string>): Promise<Watch> {
    const w = new Watch();
    return new Promise((resolve, reject) => {
      w.req = request(url, { headers: auth, agent: false }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch answered ${res.statusCode}`));
        res.on('data', (chunk: Buffer) => w.take(chunk));
        res.on('error', () => undefined);
        resolve(w);
      });
      w.req.on('error', reject);
      w.req.end();
    });
  }

  private take(chunk: Buffer): void {
    const now = performance.now();
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl >= 0; nl = chunk.indexOf(10, from)) {
      this.partial.push(chunk.subarray(from, nl));
      const line = this.partial.length === 1 ? this.partial[0] : Buffer.concat(this.partial);
      this.partial = [];
      from = nl + 1;
      // metadata may come after the spec (PostgreSQL's jsonb order): a native search for the name
      const at = line.indexOf(NAME);
      const end = at < 0 ? -1 : line.indexOf(QUOTE, at + NAME.length);
      if (end > 0) {
        const name = line.toString('latin1', at + NAME.length - 2, end);
        if (!this.seen.has(name)) this.seen.set(name, now);
      }
    }
    if (from < chunk.length) this.partial.push(chunk.subarray(from));
  }

  close(): void {
    this.req?.destroy();
  }
}

/**
 * Opens `count` watches spread over `watchUrls` on a new, empty project, makes `writes`
 * sequential creates there through `writeUrl`; returns every watcher's latency (ms) for every write.
 */
export async function watchLatencies(o: {
  watchUrls: string[];
  writeUrl: string;
  auth: Record<string, string>;
  count: number;
  writes: number;
  tag: string;
}): Promise<number[]> {
  // a project of its own: no initial snapshot to transfer to every watch before the first event
  const project = `watch-${o.tag}`;
  await api(o.writeUrl, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: project }, spec: {} }, o.auth);
  const watches: Watch[] = [];
  try {
    for (let i = 0; i < o.count; i += 50) {
      watches.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(50, o.count - i) }, (_, j) =>
            Watch.open(`${o.watchUrls[(i + j) % o.watchUrls.length]}/api/v1/projects/${project}/dashboards?watch=true`, o.auth),
          ),
        )),
      );
    }
    const latencies: number[] = [];
    // the first WARMUP writes are not measured (warm JITs on both sides, as autocannon's warm-up)
    for (let n = -WARMUP; n < o.writes; n++) {
      const name = `w-${o.tag}-${n < 0 ? `warm${-n}` : n}`;
      const t0 = performance.now();
      await api(o.writeUrl, 'POST', `/api/v1/projects/${project}/dashboards`, dashboard(name, project), o.auth);
      const deadline = Date.now() + 10_000;
      while (watches.some((w) => !w.seen.has(name))) {
        if (Date.now() > deadline)
          throw new Error(
            `${watches.filter((w) => !w.seen.has(name)).length} of ${watches.length} watchers did not get ${name} within 10 s`,
          );
        await new Promise((r) => setTimeout(r, 1));
      }
      if (n >= 0) for (const w of watches) latencies.push(w.seen.get(name)! - t0);
    }
    return latencies;
  } finally {
    for (const w of watches) w.close();
  }
}

export async function run(): Promise<Figure[]> {
  const dir = tempDir('p6');
  // one user holds every stream here: past the default watch.max_streams_per_user (100)
  const server = await startDashplane({
    dir: dir.path,
    env: { ...AUTH_ENV, DASHPLANE_WATCH_MAX_STREAMS_PER_USER: String(WATCHERS + 100) },
  });
  try {
    const auth = await adminAuth(server.url);
    await api(server.url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'bench' }, spec: {} }, auth);
    const one = percentile(
      await watchLatencies({ watchUrls: [server.url], writeUrl: server.url, auth, count: 1, writes: WRITES, tag: 'one' }),
      99,
    );
    const all = await watchLatencies({ watchUrls: [server.url], writeUrl: server.url, auth, count: WATCHERS, writes: WRITES, tag: 'many' });
    const p99 = percentile(all, 99);
    console.log(
      `${WATCHERS} watchers x ${WRITES} writes: p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...all).toFixed(1)} ms`,
    );
    return [
      report({
        id: 'P6',
        what: `${WATCHERS} watch streams, one write, all get it (p99)`,
        value: p99,
        unit: 'ms',
        refWhat: 'one watcher p99',
        reference: one,
        ratio: p99 / one,
        target: '<= 100 ms',
        pass: p99 <= 100,
      }),
    ];
  } finally {
    await server.stop();
    dir.cleanup();
  }
}
