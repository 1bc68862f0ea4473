import type { UpstreamTls } from '../upstream.js';

/** The database login of a datasource, from its Secret only. */
export interface SqlLogin {
  username: string;
  password: string;
  tls?: UpstreamTls;
}

/** The server's limits for SQL datasources (proxy.sql and proxy.timeout). */
export interface SqlLimits {
  statementTimeoutMs: number;
  maxRows: number;
  maxBytes: number;
  maxConnections: number;
  /** Connecting, or waiting for a free connection of the pool, when the datasource sets no connect timeout of its own. */
  connectTimeoutMs: number;
}

/** How long an unused pooled connection stays open. */
export const POOL_IDLE_MS = 30_000;
