import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { BuildInfo } from '../build-info.js';
import { PROBLEM_TYPES } from '../controllers/provisioning/apply.js';
import type { SourceStatus } from '../controllers/provisioning/status.js';
import { RequestHistogram } from './histogram.js';
import { documented } from './route-doc.js';

/**
 * The server's own Prometheus metrics (GET /metrics). One object, created by the composition
 * root and handed to the parts that count something.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests = new RequestHistogram(
    'dashplane_http_request_duration_seconds',
    'HTTP requests by route template, method and status.',
    ['route', 'method', 'status'],
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    this.registry,
  );
  private readonly storeOperations = new RequestHistogram(
    'dashplane_store_operation_duration_seconds',
    'Store operations by name and outcome.',
    ['operation', 'outcome'],
    [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
    this.registry,
  );
  private readonly proxyRequests = new RequestHistogram(
    'dashplane_proxy_upstream_duration_seconds',
    'Datasource proxy exchanges (until response headers) by datasource and status (error kind on failure).',
    ['datasource', 'status'],
    [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30],
    this.registry,
  );
  private readonly proxyCache = new Counter({
    name: 'dashplane_proxy_cache_requests_total',
    help: 'Requests through HTTP datasources by datasource and where their answer came from: hit (kept by the query cache), coalesced (shared with an identical request in flight), miss (sent upstream), bypass (sent upstream unshared).',
    labelNames: ['datasource', 'result'],
    registers: [this.registry],
  });
  /** The query cache counter's children by label values (prom-client hashes the labels of every call otherwise). */
  private readonly proxyCacheChildren = new Map<string, { inc(): void }>();
  readonly reaperDeletions = new Counter({
    name: 'dashplane_reaper_deletions_total',
    help: 'Expired objects deleted by the reaper.',
    registers: [this.registry],
  });
  readonly loginFailures = new Counter({
    name: 'dashplane_login_failures_total',
    help: 'Failed native logins.',
    registers: [this.registry],
  });
  readonly loginRateLimited = new Counter({
    name: 'dashplane_login_rate_limited_total',
    help: 'Native logins refused by the rate limit (429).',
    registers: [this.registry],
  });
  readonly signUpRateLimited = new Counter({
    name: 'dashplane_sign_up_rate_limited_total',
    help: 'Self-service sign-ups refused by the rate limit (429).',
    registers: [this.registry],
  });
  readonly provisioningWrites = new Counter({
    name: 'dashplane_provisioning_writes_total',
    help: 'Objects provisioning created, updated, or took back once its file held what someone else wrote, by source and action.',
    labelNames: ['source', 'action'],
    registers: [this.registry],
  });

  constructor(build: BuildInfo, watchStreams: () => number) {
    new Gauge({
      name: 'dashplane_build_info',
      help: 'Build information (always 1).',
      labelNames: ['version', 'commit'],
      registers: [this.registry],
    }).set({ version: build.version, commit: build.commit }, 1);
    new Gauge({
      name: 'dashplane_watch_streams',
      help: 'Open watch streams.',
      registers: [this.registry],
      collect() {
        this.set(watchStreams());
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'dashplane_' });
  }

  /**
   * Gauges of the provisioning sources' last passes: what each could not write, by problem type
   * (every type, 0 included, so an alert can compare), the resources it held, when it last ran.
   */
  watchProvisioning(status: () => SourceStatus[]): void {
    const registers = [this.registry];
    new Gauge({
      name: 'dashplane_provisioning_problems',
      help: 'What the last pass of a provisioning source could not write, by type (read, fetch, unsupported, duplicate, unknown-project, invalid, conflict, failed); GET /api/v1/admin/provisioning says which and why.',
      labelNames: ['source', 'type'],
      registers,
      collect() {
        this.reset();
        for (const s of status())
          for (const type of PROBLEM_TYPES) this.set({ source: s.source, type }, s.problems.filter((p) => p.type === type).length);
      },
    });
    new Gauge({
      name: 'dashplane_provisioning_objects',
      help: 'Resources a provisioning source held at its last read.',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const s of status()) this.set({ source: s.source }, s.objects);
      },
    });
    new Gauge({
      name: 'dashplane_provisioning_last_pass_timestamp_seconds',
      help: 'When the last pass of a provisioning source ended (absent before the first).',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const s of status())
          if (s.lastPassAt) this.set({ source: s.source }, Date.parse(s.lastPassAt) / 1000 + (s.lastPassSeconds ?? 0));
      },
    });
  }

  /** Gauges of the query cache: the answers it keeps and their bytes, the shared requests in flight and their callers. */
  watchProxyCache(stats: () => { entries: number; bytes: number; inFlight: number; waiting: number }): void {
    const registers = [this.registry];
    new Gauge({
      name: 'dashplane_proxy_cache_entries',
      help: 'Answers the query cache of HTTP datasources keeps (proxy.cache.max_entries at most).',
      registers,
      collect() {
        this.set(stats().entries);
      },
    });
    new Gauge({
      name: 'dashplane_proxy_cache_bytes',
      help: 'Bytes the answers the query cache keeps are counted as: bodies, headers and keys (proxy.cache.max_size_mb at most).',
      registers,
      collect() {
        this.set(stats().bytes);
      },
    });
    new Gauge({
      name: 'dashplane_proxy_cache_in_flight',
      help: 'Shared requests of the query cache in flight to their datasources.',
      registers,
      collect() {
        this.set(stats().inFlight);
      },
    });
    new Gauge({
      name: 'dashplane_proxy_cache_waiting',
      help: 'Callers waiting on the shared requests in flight (each counts its sender).',
      registers,
      collect() {
        this.set(stats().waiting);
      },
    });
  }

  /** One request through an HTTP datasource and where its answer came from (hit, coalesced, miss, bypass). */
  countProxyCache(datasource: string, result: string): void {
    const key = `${datasource}\x00${result}`;
    let child = this.proxyCacheChildren.get(key);
    if (!child) {
      child = this.proxyCache.labels(datasource, result);
      this.proxyCacheChildren.set(key, child);
    }
    child.inc();
  }

  /** Times `fn` into the store histogram. */
  async timeStore<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    const start = performance.now();
    let outcome = 'ok';
    try {
      return await fn();
    } catch (e) {
      outcome = (e as { reason?: string }).reason ?? 'error';
      throw e;
    } finally {
      this.storeOperations.observe([operation, outcome], (performance.now() - start) / 1000);
    }
  }

  /** The per-request histogram. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.httpRequests.observe([route, method, String(status)], seconds);
  }

  /** A datasource proxy exchange, until the upstream's response headers (or its failure). */
  observeProxy(datasource: string, status: string, seconds: number): void {
    this.proxyRequests.observe([datasource, status], seconds);
  }
}

/** GET /metrics (anonymous); each request is observed by the app's onResponse hook (app.ts). */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.get(
    '/metrics',
    documented(
      {
        tag: 'System',
        summary: "The server's own Prometheus metrics (text exposition format)",
        responses: { 200: { description: 'Metrics', type: 'text/plain; version=0.0.4', schema: { type: 'string' } } },
      },
      true,
    ),
    async (_req, reply) => {
      void reply.header('Content-Type', metrics.registry.contentType);
      return metrics.registry.metrics();
    },
  );
}
