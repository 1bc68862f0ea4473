import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireProgram } from './programs.js';
import { freePort, stopChild } from './process.js';
import { tempDir } from './server.js';

/** A real Prometheus on 127.0.0.1 that scrapes itself every second. */
/** The default allowedEndpoints of the Perses datasource editor (@perses-dev/prometheus-plugin). */
export const PERSES_EDITOR_ALLOWED_ENDPOINTS = [
  { endpointPattern: '/api/v1/labels', method: 'POST' },
  { endpointPattern: '/api/v1/series', method: 'POST' },
  { endpointPattern: '/api/v1/metadata', method: 'GET' },
  { endpointPattern: '/api/v1/query', method: 'POST' },
  { endpointPattern: '/api/v1/query_range', method: 'POST' },
  { endpointPattern: '/api/v1/parse_query', method: 'POST' },
  { endpointPattern: '/api/v1/label/([a-zA-Z0-9_-]+)/values', method: 'GET' },
];

export interface RunningPrometheus {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Kills the process and removes its configuration and storage. */
  stop(): Promise<void>;
}

/** The prometheus binary: $PROMETHEUS_BIN, else the first `prometheus` on $PATH, else /usr/bin/prometheus (helpers/programs.ts). */
export function prometheusBinary(): string {
  return requireProgram('prometheus');
}

/** A configuration scraping Prometheus itself (on `port`) and `scrape`, every second. */
export function prometheusConfig(port: number, scrape: { job: string; target: string }[]): string {
  return [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    '  - job_name: prometheus',
    '    static_configs:',
    `      - targets: ['127.0.0.1:${port}']`,
    ...scrape.flatMap((s) => [`  - job_name: ${s.job}`, '    static_configs:', `      - targets: ['${s.target}']`]),
    '',
  ].join('\n');
}

async function ok(url: string, init?: RequestInit): Promise<Response | undefined> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(2_000) });
    return res.ok ? res : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts `prometheus` on 127.0.0.1 with a random free port, a temporary configuration (self-scrape
 * every 1 s, plus `scrape` targets) and temporary storage. Resolves once `/-/ready` answers 200 and the `up` series has two
 * samples; tries another port if the chosen one was taken in the meantime.
 */
export async function startPrometheus(
  opts: { timeoutMs?: number; scrape?: { job: string; target: string }[] } = {},
): Promise<RunningPrometheus> {
  const bin = prometheusBinary();
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  let lastError = '';
  for (let attempt = 0; attempt < 3 && Date.now() < deadline; attempt++) {
    const dir = tempDir('dashplane-prometheus-');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const config = join(dir.path, 'prometheus.yml');
    writeFileSync(config, prometheusConfig(port, opts.scrape ?? []));
    const child = spawn(
      bin,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir.path, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=1h',
        '--log.level=warn',
      ],
      { cwd: dir.path, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    let spawnError: Error | undefined;
    child.once('error', (e) => (spawnError = e));
    const stop = async () => {
      await stopChild(child);
      dir.remove();
    };
    try {
      for (;;) {
        if (spawnError) throw new Error(`cannot run ${bin}: ${spawnError.message}`);
        if (child.exitCode !== null || child.signalCode !== null) {
          lastError = `prometheus exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${out}`;
          break;
        }
        if (Date.now() > deadline) throw new Error(`prometheus at ${url} was not ready with an "up" series in time:\n${out}`);
        if (await ok(`${url}/-/ready`)) {
          // The `up` series exists with two samples, so range queries over "the last minute" have data.
          const res = await ok(`${url}/api/v1/query?query=${encodeURIComponent('count_over_time(up[1m])')}`);
          const body = res ? ((await res.json()) as { data?: { result?: { value: [number, string] }[] } }) : undefined;
          if (Number(body?.data?.result?.[0]?.value[1] ?? 0) >= 2) return { url, output: () => out, stop };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      await stop();
    } catch (e) {
      await stop();
      throw e;
    }
  }
  throw new Error(`prometheus did not start: ${lastError}`);
}
