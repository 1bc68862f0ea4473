/**
 * Shared pieces of the issue-10 benchmarks: servers in child processes on 127.0.0.1 (dashplane
 * and the bare node:http references), autocannon as a second process, and the figure format
 * every benchmark prints (figure, reference measured in the same run, ratio, target, PASS/MISS).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { freePort, stopChild } from '../test/helpers/process.js';

/** One measured figure. `ratio` is figure / reference (or its inverse when lower is better, see `ratioOf`). */
export interface Figure {
  id: string;
  what: string;
  value: number;
  unit: string;
  refWhat: string;
  reference: number;
  ratio: number;
  /** e.g. "ratio >= 0.60" or "<= 5 ms". */
  target: string;
  /** 'context': not a target, a figure that explains one (e.g. what the framework alone reaches). */
  pass: boolean | 'context';
}

export const AUTH_ENV: Record<string, string> = {
  DASHPLANE_SECURITY_ENABLE_AUTH: 'true',
  DASHPLANE_ADMIN_USER: 'admin',
  DASHPLANE_ADMIN_PASSWORD: 'bench-admin-password',
};

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** `P1  what  value unit | ref ... | ratio | target | PASS`. */
export function formatFigure(f: Figure): string {
  return `${f.id.padEnd(4)} ${f.what.padEnd(52)} ${`${fmt(f.value)} ${f.unit}`.padStart(14)} | ref ${f.refWhat}: ${fmt(f.reference)} ${f.unit} | ratio ${f.ratio.toFixed(2)} | target ${f.target} | ${f.pass === 'context' ? 'context' : f.pass ? 'PASS' : 'MISS'}`;
}

export function report(f: Figure): Figure {
  console.log(formatFigure(f));
  return f;
}

/** A temporary directory removed by `cleanup()` (unless KEEP is set). */
export function tempDir(prefix: string): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), `dashplane-bench-${prefix}-`));
  return { path, cleanup: () => (process.env.KEEP ? console.log(`kept ${path}`) : rmSync(path, { recursive: true, force: true })) };
}

export interface Child {
  child: ChildProcess;
  url: string;
  /** Milliseconds from spawn to the first 200 of /api/v1/health (dashplane) or the port line (bare). */
  startMs: number;
  /** Resident set size of the process now (bytes), from /proc. */
  rss(): number;
  stop(): Promise<void>;
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () => stopChild(child, 10_000);
}

/**
 * `node dist/src/bin/dashplane.js --listen 127.0.0.1:<free port>`, logging at the default level
 * into `<dir>/server-<n>.log`; resolves when /api/v1/health answers 200. `root`: another build's
 * package directory (a figure of an earlier commit, for a before-and-after comparison).
 */
let serverCount = 0;
export async function startDashplane(opts: {
  dir: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
  timeoutMs?: number;
  root?: string;
}): Promise<Child> {
  const port = await freePort();
  const log = join(opts.dir, `server-${++serverCount}.log`);
  const fd = openSync(log, 'a');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...(opts.nodeArgs ?? []), join(opts.root ?? PACKAGE_ROOT, 'dist', 'src', 'bin', 'dashplane.js'), '--listen', `127.0.0.1:${port}`],
    {
      cwd: opts.dir,
      env: { ...process.env, DASHPLANE_DATABASE_LEVEL_PATH: join(opts.dir, 'data'), ...(opts.env ?? {}) },
      stdio: ['ignore', fd, fd],
    },
  );
  closeSync(fd);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`dashplane exited (${child.exitCode}) before it was ready:\n${readFileSync(log, 'utf8').slice(-4000)}`);
    try {
      const r = await fetch(`${url}/api/v1/health`);
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`dashplane was not ready within ${opts.timeoutMs ?? 60_000} ms:\n${readFileSync(log, 'utf8').slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const startMs = performance.now() - started;
  return { child, url, startMs, rss: () => rssOf(child.pid!), stop: stopper(child) };
}

/** bench/bare-server.js in its own process: a bare node:http server (see that file for modes). */
export function startBare(args: string[]): Promise<Child> {
  return startScript('bare-server.js', args);
}

/** A script of dist/bench/ in its own process, ready when it prints "port N" (its port on 127.0.0.1). */
export async function startScript(script: string, args: string[]): Promise<Child> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'dist', 'bench', script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    startMs: performance.now() - started,
    rss: () => rssOf(child.pid!),
    stop: stopper(child),
  };
}

export interface LoadResult {
  /** Mean requests per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  total: number;
  non2xx: number;
  errors: number;
  /** CPU time (user + system) of the `pid` process per request of the measured run, in microseconds. */
  cpuUs?: number;
}

/**
 * autocannon in a child process (`-j`). `warmupS` runs the same load first, unmeasured, so both
 * sides of a ratio are compared with warm JITs and connection pools.
 */
export async function autocannon(o: {
  url: string | string[];
  connections: number;
  durationS?: number | undefined;
  amount?: number | undefined;
  method?: string | undefined;
  headers?: Record<string, string> | undefined;
  body?: string | undefined;
  idReplacement?: boolean | undefined;
  warmupS?: number | undefined;
  /** A server process whose CPU time per request over the measured run goes into `cpuUs`. */
  pid?: number | undefined;
}): Promise<LoadResult> {
  if (o.warmupS) await autocannon({ ...o, warmupS: 0, durationS: o.warmupS, amount: undefined, pid: undefined });
  const cpuBefore = o.pid === undefined ? 0 : cpuMsOf(o.pid);
  const args = ['-j', '-c', String(o.connections)];
  if (o.amount !== undefined) args.push('-a', String(o.amount));
  else args.push('-d', String(o.durationS ?? 10));
  if (o.method) args.push('-m', o.method);
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (o.body !== undefined) args.push('-b', o.body);
  if (o.idReplacement) args.push('-I');
  args.push(...(Array.isArray(o.url) ? o.url : [o.url]));
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'node_modules', 'autocannon', 'autocannon.js'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (text += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`autocannon exited ${code}: ${err}`))));
  });
  const j = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number; average: number };
    non2xx: number;
    errors: number;
    duration: number;
  };
  const cpuUs = o.pid === undefined ? undefined : ((cpuMsOf(o.pid) - cpuBefore) * 1000) / j.requests.total;
  return {
    rps: j.requests.average,
    p50: j.latency.p50,
    p99: j.latency.p99,
    mean: j.latency.average,
    total: j.requests.total,
    non2xx: j.non2xx,
    errors: j.errors,
    ...(cpuUs !== undefined ? { cpuUs } : {}),
  };
}

/** Fails loudly when a load run got errors or non-2xx answers (a broken run is not a figure). */
export function assertClean(what: string, r: LoadResult): void {
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${what}: ${r.non2xx} non-2xx answers and ${r.errors} errors out of ${r.total}`);
}

/** JSON request against a server; throws on a non-2xx status. */
export async function api<T = unknown>(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const r = await fetch(url + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Logs in as the bootstrap admin of AUTH_ENV; returns the Authorization header. */
export async function adminAuth(url: string): Promise<Record<string, string>> {
  const t = await api<{ access_token: string }>(url, 'POST', '/api/auth/providers/native/login', {
    login: 'admin',
    password: AUTH_ENV.DASHPLANE_ADMIN_PASSWORD,
  });
  return { authorization: `Bearer ${t.access_token}` };
}

/**
 * A valid dashboard of about `kb` kilobytes of JSON: Prometheus time-series panels in a grid.
 * `name` may contain autocannon's "[<id>]" placeholder.
 */
export function dashboard(
  name: string,
  project: string,
  kb = 10,
): { kind: string; metadata: { name: string; project: string }; spec: unknown } {
  const count = Math.max(1, Math.round((kb * 1024) / 520));
  const panels: Record<string, unknown> = {};
  const items: unknown[] = [];
  for (let p = 0; p < count; p++) {
    panels[`panel${p}`] = {
      kind: 'Panel',
      spec: {
        display: { name: `Requests per second, panel ${p}`, description: 'HTTP requests by status code' },
        plugin: { kind: 'TimeSeriesChart', spec: {} },
        queries: [
          {
            kind: 'TimeSeriesQuery',
            spec: {
              plugin: {
                kind: 'PrometheusTimeSeriesQuery',
                spec: {
                  query: `sum by (code) (rate(http_requests_total{job="api-${p}",instance=~".+"}[5m]))`,
                  seriesNameFormat: '{{code}}',
                },
              },
            },
          },
        ],
      },
    };
    items.push({ x: (p % 2) * 12, y: Math.floor(p / 2) * 8, width: 12, height: 8, content: { $ref: `#/spec/panels/panel${p}` } });
  }
  return {
    kind: 'Dashboard',
    metadata: { name, project },
    spec: { display: { name: `Dashboard ${name}` }, duration: '1h', panels, layouts: [{ kind: 'Grid', spec: { items } }] },
  };
}

/** Runs `fn` on up to `inFlight` items at a time. */
export async function pool<T>(items: readonly T[], inFlight: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

export function percentile(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/**
 * Latencies (ms, sub-millisecond resolution) of `n` sequential GETs over one keep-alive
 * connection, after `warmup` unmeasured ones; throws on a non-200. `url` may be a function
 * giving each request its own URL.
 */
export async function sequentialLatency(
  url: string | (() => string),
  headers: Record<string, string>,
  n: number,
  warmup = Math.min(50, n),
): Promise<number[]> {
  const { Agent, request } = await import('node:http');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const next = typeof url === 'string' ? () => url : url;
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      const target = next();
      const req = request(target, { agent, headers }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () =>
          res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`GET ${target} answered ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.end();
    });
  try {
    for (let i = 0; i < warmup; i++) await once();
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(await once());
    return out;
  } finally {
    agent.destroy();
  }
}

/** How many interleaved rounds a ratio target takes the median of (BENCH_ROUNDS, default 5). */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** Per-round load results of a measured side and its reference, and the per-round ratios. */
export interface Interleaved {
  got: LoadResult[];
  ref: LoadResult[];
  /** got.rps / ref.rps of each round. */
  ratios: number[];
}

/**
 * `rounds` runs of the reference and of the measured load, alternating (reference first), so a
 * drift of the machine's speed during the benchmark touches both sides alike; the first run of
 * each has its warm-up (`warmupS` of the options), the others start warm.
 */
export async function interleaved(
  rounds: number,
  ref: (warmupS: number) => Promise<LoadResult>,
  got: (warmupS: number) => Promise<LoadResult>,
  warmupS = 3,
): Promise<Interleaved> {
  const out: Interleaved = { got: [], ref: [], ratios: [] };
  for (let i = 0; i < rounds; i++) {
    const r = await ref(i === 0 ? warmupS : 0);
    const g = await got(i === 0 ? warmupS : 0);
    out.ref.push(r);
    out.got.push(g);
    out.ratios.push(g.rps / r.rps);
  }
  return out;
}

/** "min-max" of figures, formatted as the report formats them. */
export const range = (values: readonly number[], digits = 0) =>
  `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;

/** Figures measured earlier in this run, for benchmarks whose reference is another's figure (P8). */
export const measured = new Map<string, number>();

/** CPU time (user + system) the process has used so far, in milliseconds, from /proc. */
export function cpuMsOf(pid: number): number {
  // fields 14 and 15 of /proc/<pid>/stat, after the command name in parentheses
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on every architecture Node runs on. */
const CLOCK_TICKS = 100;
