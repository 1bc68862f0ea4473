import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { buildApp } from './api/app.js';
import { anonymousAuthenticator } from './auth/authenticator.js';
import { allowAll, readOnly } from './auth/authorizer.js';
import { readBuildInfo } from './build-info.js';
import type { ServerConfig } from './config.js';
import { buildKindRegistry } from './kinds/index.js';
import { SCHEMAS_DIR } from './paths.js';
import { PluginRegistry } from './plugins/registry.js';
import { ResourceService } from './resources/service.js';
import { LevelStore } from './storage/level-store.js';
import type { Store } from './storage/store.js';

/** A running server: its app, store and the address it listens on. */
export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  service: ResourceService;
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** pino options or false (tests). */
  logger?: boolean | Record<string, unknown>;
}

/** The composition root: config -> registry -> store -> services -> app -> listen. */
export async function startServer(config: Readonly<ServerConfig>, opts: StartOptions = {}): Promise<RunningServer> {
  refuseUnbuiltFeatures(config);
  const registry = buildKindRegistry();
  const plugins = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'), config.plugin?.schemas_dir);
  const store = new LevelStore(config.database!.level!.path!);
  await store.open();
  const authorizer = config.security?.readonly ? readOnly(allowAll) : allowAll;
  const service = new ResourceService({ registry, store, plugins, authorizer });
  const app = buildApp({
    config,
    registry,
    plugins,
    service,
    store,
    authenticator: anonymousAuthenticator,
    build: readBuildInfo(),
    logger: opts.logger ?? { level: config.log?.level ?? 'info' },
  });
  const { host, port } = parseListen(config.listen!);
  try {
    await app.listen({ host, port });
  } catch (e) {
    await app.close();
    await store.close();
    throw new Error(`cannot listen on ${config.listen}: ${(e as Error).message}`);
  }
  const addr = app.server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
  let closing: Promise<void> | undefined;
  return {
    app,
    store,
    service,
    url,
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await store.close();
      })()),
  };
}

/**
 * Settings this build accepts but cannot honour yet fail loudly instead of being ignored:
 * a user who turns on authentication must never get an open server by mistake.
 */
function refuseUnbuiltFeatures(config: Readonly<ServerConfig>): void {
  if (config.security?.enable_auth) {
    throw new Error('security.enable_auth: true is not supported by this version yet (authentication arrives in a later release); refusing to start an open server');
  }
  const pg = config.database?.postgres;
  if (pg && (pg.url || pg.host)) {
    throw new Error('database.postgres is not supported by this version yet; use database.level (the embedded default)');
  }
}

/** "HOST:PORT", "[::1]:PORT" or ":PORT" (all interfaces). */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(listen);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`listen "${listen}" must look like HOST:PORT, e.g. 127.0.0.1:8080`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}
