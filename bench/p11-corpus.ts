/**
 * P11's dashboards: about 2 KB each, generated the same every run from their number. They are
 * not copies of one template (P5's are, so every word of their specs is in every one of them):
 * services, topics, panel titles, metrics and tags are drawn from vocabularies, the common ones
 * far more often than the rare ones (a Zipf law, as words are), so a word of a search matches
 * from a few to hundreds of thousands of the 1,000,000.
 */

/** Dashboards per project. */
export const PER_PROJECT = 1_000;

export const projectName = (i: number) => `team-${String(i).padStart(4, '0')}`;

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'shi', 'ber', 'dan', 'gol', 'pex', 'qua', 'zin', 'tor', 'wel'];
/** 500 service names: pseudo-words made of syllables (checkout-like words nobody else uses). */
export const SERVICES = Array.from({ length: 500 }, (_, i) => SYLLABLES[i % 16] + SYLLABLES[(i >> 4) % 16] + SYLLABLES[(i * 7 + 3) % 16]);
export const TOPICS = [
  'latency',
  'errors',
  'saturation',
  'traffic',
  'cpu',
  'memory',
  'disk',
  'network',
  'kafka',
  'redis',
  'postgres',
  'kubernetes',
  'ingress',
  'dns',
  'cache',
  'queue',
  'storage',
  'billing',
  'auth',
  'search',
  'payments',
  'gateway',
  'scheduler',
  'batch',
  'streaming',
  'mobile',
  'frontend',
  'backend',
  'slo',
  'capacity',
];
const KINDS = ['overview', 'details', 'troubleshooting', 'golden signals', 'capacity planning', 'on-call', 'SLO burn rate', 'debug'];
const PANEL_TITLES = [
  'Request rate',
  'Error ratio',
  'p99 latency',
  'p50 latency',
  'CPU usage',
  'Memory working set',
  'Disk IO',
  'Network receive',
  'Network transmit',
  'Pod restarts',
  'Consumer lag',
  'Queue depth',
  'Cache hit ratio',
  'Open connections',
  'GC pause time',
  'Thread count',
  'Heap used',
  'Replication delay',
  'Active sessions',
  'Throttled requests',
  'Saturation',
  'Uptime',
  'Build info',
  'Certificate expiry',
];
const METRICS = [
  'http_requests_total',
  'http_request_duration_seconds_bucket',
  'node_cpu_seconds_total',
  'node_memory_MemAvailable_bytes',
  'container_memory_working_set_bytes',
  'container_cpu_usage_seconds_total',
  'kube_pod_container_status_restarts_total',
  'kafka_consumergroup_lag',
  'redis_connected_clients',
  'pg_stat_database_tup_fetched',
  'process_resident_memory_bytes',
  'go_gc_duration_seconds',
  'jvm_memory_used_bytes',
  'node_network_receive_bytes_total',
  'node_network_transmit_bytes_total',
  'node_disk_io_time_seconds_total',
  'grpc_server_handled_total',
  'nginx_ingress_controller_requests',
  'coredns_dns_requests_total',
  'probe_ssl_earliest_cert_expiry',
];
const TAGS = ['tier1', 'tier2', 'tier3', 'prod', 'staging', 'sre', 'platform', 'data', 'web', 'mobile', 'payments', 'infra'];

/** A deterministic pseudo-random number in [0, 1) for (n, salt). */
function rand(n: number, salt: number): number {
  let x = (n * 2654435761 + salt * 40503 + 0x9e3779b9) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  x ^= x >>> 16;
  return (x >>> 0) / 4294967296;
}

const cdfs = new Map<number, Float64Array>();

/** An index into a vocabulary of `size`, Zipf-distributed (s = 1): word i drawn in proportion to 1/(i+1). */
function zipf(size: number, u: number): number {
  let cdf = cdfs.get(size);
  if (!cdf) {
    cdf = new Float64Array(size);
    let sum = 0;
    for (let i = 0; i < size; i++) cdf[i] = sum += 1 / (i + 1);
    for (let i = 0; i < size; i++) cdf[i] /= sum;
    cdfs.set(size, cdf);
  }
  let lo = 0;
  let hi = size - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const pick = <T>(list: readonly T[], n: number, salt: number) => list[zipf(list.length, rand(n, salt))];

const capital = (s: string) => s[0].toUpperCase() + s.slice(1);

/** Dashboard number `n` (0-based) of the corpus, in its project. */
export function corpusDashboard(n: number): {
  kind: 'Dashboard';
  metadata: { name: string; project: string; tags?: string[] };
  spec: unknown;
} {
  const service = SERVICES[Math.floor(rand(n, 1) * SERVICES.length)];
  const topic = pick(TOPICS, n, 2);
  const kind = pick(KINDS, n, 3);
  const project = projectName(Math.floor(n / PER_PROJECT));
  const panelCount = 3 + Math.floor(rand(n, 4) * 2);
  const panels: Record<string, unknown> = {};
  const items: unknown[] = [];
  for (let p = 0; p < panelCount; p++) {
    const metric = pick(METRICS, n * 7 + p, 5);
    const title = pick(PANEL_TITLES, n * 11 + p, 6);
    panels[`p${p}`] = {
      kind: 'Panel',
      spec: {
        display: { name: title, ...(rand(n * 13 + p, 7) < 0.3 ? { description: `${title} of ${service} (${topic})` } : {}) },
        plugin: { kind: 'TimeSeriesChart', spec: {} },
        queries: [
          {
            kind: 'TimeSeriesQuery',
            spec: {
              plugin: {
                kind: 'PrometheusTimeSeriesQuery',
                spec: { query: `sum by (instance) (rate(${metric}{service="${service}",job="${topic}"}[5m]))` },
              },
            },
          },
        ],
      },
    };
    items.push({ x: (p % 2) * 12, y: Math.floor(p / 2) * 8, width: 12, height: 8, content: { $ref: `#/spec/panels/p${p}` } });
  }
  const tagCount = Math.floor(rand(n, 8) * 3);
  const tags = [...new Set(Array.from({ length: tagCount }, (_, t) => pick(TAGS, n * 3 + t, 9)))];
  return {
    kind: 'Dashboard',
    metadata: { name: `${service}-${topic}-${String(n).padStart(7, '0')}`, project, ...(tags.length ? { tags } : {}) },
    spec: {
      display: { name: `${capital(service)} ${topic} ${kind}`, description: `${capital(topic)} of the ${service} service` },
      duration: '1h',
      variables: [
        {
          kind: 'ListVariable',
          spec: { name: 'instance', plugin: { kind: 'PrometheusLabelValuesVariable', spec: { labelName: 'instance' } } },
        },
      ],
      panels,
      layouts: [{ kind: 'Grid', spec: { items } }],
    },
  };
}
