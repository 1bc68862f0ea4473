import type { FastifyInstance } from 'fastify';
import { publicConfig, type ServerConfig } from '../config.js';
import { unauthorized } from '../errors.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { PluginRegistry } from '../plugins/registry.js';
import type { ResourceService } from '../resources/service.js';
import type { Store } from '../storage/store.js';

/** What /api/v1/health reports about this build. */
export interface BuildInfo {
  version: string;
  commit: string;
  buildTime: string;
}

export interface SystemRouteOptions {
  config: Readonly<ServerConfig>;
  registry: KindRegistry;
  plugins: PluginRegistry;
  service: ResourceService;
  store: Store;
  build: BuildInfo;
}

/** /api/config, /api/v1/health, /api/v1/plugins, /api/validate/{plural}, whoami (auth off). */
export function registerSystemRoutes(app: FastifyInstance, o: SystemRouteOptions): void {
  const shownConfig = publicConfig(o.config);
  const anonymous = { config: { anonymous: true } };
  app.get('/api/config', anonymous, async () => shownConfig);

  app.get('/api/v1/health', anonymous, async (_req, reply) => {
    try {
      await o.store.ping();
      return { ...o.build, database: true };
    } catch {
      return reply.code(503).send({ ...o.build, database: false });
    }
  });

  const modules = pluginModules(o.plugins, o.build.version);
  app.get('/api/v1/plugins', anonymous, async () => modules);

  app.post<{ Params: { plural: string } }>('/api/validate/:plural', anonymous, async (req, reply) => {
    await o.service.validateOnly(req.principal, o.registry.requirePlural(req.params.plural), req.body);
    return reply.code(200).send();
  });

  if (!o.config.security?.enable_auth) {
    app.get('/api/v1/user/whoami', async () => {
      throw unauthorized('authentication is disabled on this server (security.enable_auth: false), so there is no signed-in user');
    });
  }
}

/** The Perses `PluginModule` list: one module per plugin module name with its plugins. */
function pluginModules(plugins: PluginRegistry, version: string) {
  const byModule = new Map<string, { kind: string; spec: { name: string; display: { name: string } } }[]>();
  for (const p of plugins.all()) {
    const list = byModule.get(p.module) ?? [];
    list.push({ kind: p.type, spec: { name: p.kind, display: { name: p.kind.replace(/([a-z])([A-Z])/g, '$1 $2') } } });
    byModule.set(p.module, list);
  }
  return [...byModule.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, list]) => ({ kind: 'PluginModule', metadata: { name, version }, spec: { plugins: list } }));
}
