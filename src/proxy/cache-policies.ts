import type { ResolvedConfig } from '../config.js';
import { durationMs } from '../lib/duration.js';

/** How the query cache treats one datasource (proxy.cache, and its entry in proxy.cache.datasources). */
export interface CachePolicy {
  /** Share and keep its answers (false: every request goes upstream as it came). */
  enable: boolean;
  /** How long an answer is kept; 0 keeps nothing (requests in flight are still shared). */
  ttlMs: number;
  /** Align the times of its kind's query calls. */
  align: boolean;
  /** What times without a step are aligned to. */
  resolutionMs: number;
}

/** An entry of proxy.cache.datasources: its path's segments ("*" for any) and what it sets. */
interface Entry {
  segments: string[];
  policy: CachePolicy;
}

/**
 * The query cache's settings per datasource, from the configuration (read once): the defaults of
 * proxy.cache and the first entry of proxy.cache.datasources whose path matches the datasource's
 * (`projects/demo/datasources/prom`, as after /proxy/ in its URLs; a `*` segment matches any name).
 * Kept in the server's configuration, not in the datasource: Perses' HTTPProxy spec has no field
 * for it, and a Perses server refuses a datasource with an unknown one.
 */
export class CachePolicies {
  private readonly defaults: CachePolicy;
  private readonly entries: Entry[];

  constructor(config: Readonly<ResolvedConfig['proxy']['cache']>) {
    this.defaults = Object.freeze({
      enable: config.enable,
      ttlMs: durationMs(config.ttl),
      align: config.align,
      resolutionMs: durationMs(config.resolution),
    });
    this.entries = config.datasources.map((e) => ({
      segments: e.datasource.split('/'),
      policy: Object.freeze({
        enable: e.enable ?? this.defaults.enable,
        ttlMs: e.ttl !== undefined ? durationMs(e.ttl) : this.defaults.ttlMs,
        align: e.align ?? this.defaults.align,
        resolutionMs: e.resolution !== undefined ? durationMs(e.resolution) : this.defaults.resolutionMs,
      }),
    }));
  }

  /** The policy of the datasource served at `path` (`globaldatasources/NAME`, `projects/P/datasources/NAME`, `projects/P/dashboards/D/datasources/NAME`). */
  of(path: string): CachePolicy {
    if (this.entries.length === 0) return this.defaults;
    const segments = path.split('/');
    for (const e of this.entries) {
      if (e.segments.length === segments.length && e.segments.every((s, i) => s === '*' || s === segments[i])) return e.policy;
    }
    return this.defaults;
  }
}

/** The path of a datasource as its entries in proxy.cache.datasources name it. */
export function datasourcePath(project: string | undefined, dashboard: string | undefined, name: string): string {
  if (project === undefined) return `globaldatasources/${name}`;
  return dashboard === undefined
    ? `projects/${project}/datasources/${name}`
    : `projects/${project}/dashboards/${dashboard}/datasources/${name}`;
}
