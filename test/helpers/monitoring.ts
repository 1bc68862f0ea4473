import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startNodeExporter } from './node-exporter.js';
import { programPath } from './programs.js';
import { prometheusConfig, startPrometheus, type RunningPrometheus } from './prometheus.js';
import { freePort, stopChild } from './process.js';
import { tempDir } from './server.js';
import { waitFor } from './wait.js';

/**
 * A Prometheus scraping a node exporter, shared by the browser suites of one run. The whole run
 * gets one pair, started by Mocha's global setup (test/global-fixtures.ts) in the main process
 * and named to the worker processes by this variable: each suite starting its own paid the two
 * starts and the wait for samples, and Explore's instant queries (their time aligned down to the
 * minute) found nothing until Prometheus had run past a minute boundary.
 */
export const MONITORING_ENV = 'MOCHA_DASHPLANE_MONITORING';

/** What the variable holds. */
interface SharedMonitoring {
  prometheusUrl: string;
  nodeExporterTarget: string;
}

/** Prometheus scraping a node exporter (`node` job), with samples of both. */
export interface Monitoring {
  prom: RunningPrometheus;
  /** host:port of the node exporter. */
  nodeExporterTarget: string;
  /** Stops the pair, unless it is the run's shared one (the global teardown stops that). */
  stop(): Promise<void>;
}

let started: { children: ChildProcess[]; dir: ReturnType<typeof tempDir> } | undefined;

/**
 * Global setup: spawns the shared pair without waiting for it (the suites wait when they first
 * use it) and names it in MONITORING_ENV. Without the binaries nothing is started, and each suite
 * reports the missing package when it starts its own.
 */
export async function startSharedMonitoring(): Promise<void> {
  const prometheus = programPath('prometheus');
  const nodeExporter = programPath('node-exporter');
  if (!prometheus || !nodeExporter) return;
  const dir = tempDir('dashplane-monitoring-');
  const nodeExporterTarget = `127.0.0.1:${await freePort()}`;
  const port = await freePort();
  const config = join(dir.path, 'prometheus.yml');
  writeFileSync(config, prometheusConfig(port, [{ job: 'node', target: nodeExporterTarget }]));
  const children = [
    spawn(nodeExporter, [`--web.listen-address=${nodeExporterTarget}`, '--log.level=warn'], { stdio: 'ignore' }),
    spawn(
      prometheus,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir.path, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=1h',
        '--log.level=warn',
      ],
      {
        cwd: dir.path,
        stdio: 'ignore',
      },
    ),
  ];
  for (const c of children) c.on('error', () => {}); // reported by the suites' wait
  started = { children, dir };
  process.env[MONITORING_ENV] = JSON.stringify({
    prometheusUrl: `http://127.0.0.1:${port}`,
    nodeExporterTarget,
  } satisfies SharedMonitoring);
}

/** Global teardown: stops the shared pair. */
export async function stopSharedMonitoring(): Promise<void> {
  if (!started) return;
  await Promise.all(started.children.map((c) => stopChild(c)));
  started.dir.remove();
  started = undefined;
}

/** Waits until Prometheus at `url` holds two samples of the node exporter's memory metric. */
async function nodeSamples(url: string, timeoutMs: number): Promise<void> {
  await waitFor(
    `two node exporter samples in Prometheus at ${url}`,
    async () => {
      const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent('count_over_time(node_memory_MemTotal_bytes[1m])')}`).catch(
        () => undefined,
      );
      if (!r?.ok) return false;
      const body = (await r.json()) as { data: { result: { value: [number, string] }[] } };
      return Number(body.data.result[0]?.value[1] ?? 0) >= 2;
    },
    timeoutMs,
    250,
  );
}

/** The run's shared pair when there is one, else a pair of this suite's own. */
export async function startMonitoring(): Promise<Monitoring> {
  const shared = process.env[MONITORING_ENV];
  if (shared) {
    const m = JSON.parse(shared) as SharedMonitoring;
    await nodeSamples(m.prometheusUrl, 30_000);
    return {
      prom: { url: m.prometheusUrl, output: () => '(the run-wide Prometheus: its output is not kept)', stop: async () => {} },
      nodeExporterTarget: m.nodeExporterTarget,
      stop: async () => {},
    };
  }
  const nodeExporter = await startNodeExporter();
  try {
    const prom = await startPrometheus({ scrape: [{ job: 'node', target: nodeExporter.target }] });
    try {
      await nodeSamples(prom.url, 20_000);
    } catch (e) {
      await prom.stop();
      throw e;
    }
    return {
      prom,
      nodeExporterTarget: nodeExporter.target,
      stop: async () => {
        await prom.stop();
        await nodeExporter.stop();
      },
    };
  } catch (e) {
    await nodeExporter.stop();
    throw e;
  }
}
