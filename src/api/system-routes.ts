import type { FastifyInstance } from 'fastify';
import { publicConfig, type ResolvedConfig } from '../config.js';
import { badRequest, unauthorized } from '../errors.js';
import { isObj } from '../lib/is-obj.js';
import { assertName } from '../lib/names.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { PluginRegistry } from '../plugins/registry.js';
import type { ResourceService } from '../resources/service.js';
import type { MaintenanceStore } from '../storage/store.js';
import { documented } from './route-doc.js';
import { sendWarnings } from './warning-header.js';
import type { BuildInfo } from '../build-info.js';

export interface SystemRouteOptions {
  config: Readonly<ResolvedConfig>;
  registry: KindRegistry;
  plugins: PluginRegistry;
  service: ResourceService;
  store: Pick<MaintenanceStore, 'ping'>;
  build: BuildInfo;
}

/**
 * What the Perses web UI reads of `frontend` as it starts (it throws without it), with Perses'
 * defaults under what the configuration sets (the `datasource` and `variable` sections it reads
 * always have their defaults).
 */
const PERSES_UI_FRONTEND = Object.freeze({
  explorer: { enable: false },
  time_range: { disable_custom: false },
  important_dashboards: [],
  information: '',
});

/** /api/config, /api/v1/health, /api/v1/plugins, /api/validate/{plural}, whoami (auth off). */
export function registerSystemRoutes(app: FastifyInstance, o: SystemRouteOptions): void {
  const shown = publicConfig(o.config) as Record<string, unknown>;
  const shownConfig = { ...shown, frontend: { ...PERSES_UI_FRONTEND, ...(shown.frontend as object) } };
  app.get(
    '/api/config',
    documented(
      {
        tag: 'System',
        summary: 'The server configuration, every secret value replaced by "<secret>"',
        description: 'Clients read `security.enable_auth` and `security.authentication.providers` from it before signing in.',
        responses: { 200: { description: 'The configuration (see docs/configuration.md)', schema: 'ServerConfig' } },
      },
      true,
    ),
    async () => shownConfig,
  );

  // The Perses web UI reports every dashboard it rendered (fire and forget); Perses checks read
  // on the dashboard and answers 404 for a missing one. dashplane keeps no view statistics.
  app.post(
    '/api/v1/view',
    documented({
      tag: 'System',
      summary: 'A dashboard was viewed (what the Perses web UI reports after rendering one); nothing is kept',
      body: { description: '`{"project", "dashboard", "render_time", "render_errors"}`', schema: { type: 'object' }, required: true },
      responses: { 204: { description: 'Noted' }, 404: { description: 'No such dashboard', schema: 'Error' } },
    }),
    async (req, reply) => {
      const b = req.body;
      if (!isObj(b) || typeof b.project !== 'string' || typeof b.dashboard !== 'string') {
        throw badRequest(
          'the body must name the dashboard viewed: {"project": "...", "dashboard": "...", "render_time": <seconds>, "render_errors": <count>}',
        );
      }
      assertName(b.dashboard, 'dashboard');
      assertName(b.project, 'project');
      await o.service.getText(req.principal, o.registry.byName('Dashboard')!, b.project, b.dashboard);
      return reply.code(204).send();
    },
  );

  const health = {
    type: 'object',
    properties: { version: { type: 'string' }, commit: { type: 'string' }, buildTime: { type: 'string' }, database: { type: 'boolean' } },
  };
  app.get(
    '/api/v1/health',
    documented(
      {
        tag: 'System',
        summary: 'Build information and whether the store answers',
        responses: {
          200: { description: 'Serving', schema: health },
          503: { description: 'The store does not answer (`database: false`)', schema: health },
        },
      },
      true,
    ),
    async (_req, reply) => {
      try {
        await o.store.ping();
        return { ...o.build, database: true };
      } catch {
        return reply.code(503).send({ ...o.build, database: false });
      }
    },
  );

  const modules = pluginModules(o.plugins, o.build.version);
  app.get(
    '/api/v1/plugins',
    documented(
      {
        tag: 'System',
        summary: 'The plugin kinds the server knows, as Perses PluginModule objects',
        responses: { 200: { description: 'One PluginModule per module name', schema: { type: 'array', items: { type: 'object' } } } },
      },
      true,
    ),
    async () => modules,
  );

  app.post<{ Params: { plural: string } }>(
    '/api/validate/:plural',
    documented(
      {
        tag: 'System',
        summary: 'Validates an object of any kind fully (schema, plugins, rules) and stores nothing',
        params: { plural: "The kind's plural path segment, e.g. dashboards" },
        body: { description: 'The object, as it would be created', schema: { type: 'object' }, required: true },
        responses: {
          200: {
            description:
              'Valid: an empty body, or `{"warnings": [{"path", "message"}]}` for what does not refuse it (a datasource the object asks for that its project and the global scope lack, where the caller may read them), each also as a `Warning: 299 - "<path>: <message>"` header',
            schema: {
              type: 'object',
              properties: {
                warnings: {
                  type: 'array',
                  items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } },
                },
              },
            },
          },
          400: { description: 'Invalid: every problem with its JSON path', schema: 'Error' },
          404: { description: 'Unknown plural', schema: 'Error' },
        },
      },
      true,
    ),
    async (req, reply) => {
      const warnings = await o.service.validateOnly(req.principal, o.registry.requirePlural(req.params.plural), req.body);
      if (!warnings.length) return reply.code(200).send();
      sendWarnings(reply, warnings);
      return reply.code(200).send({ warnings });
    },
  );

  if (!o.config.security?.enable_auth) {
    app.get(
      '/api/v1/user/whoami',
      documented({
        tag: 'Authentication',
        summary: 'The signed-in user; with authentication off there is none (401)',
        responses: { 401: { description: 'Authentication is disabled on this server', schema: 'Error' } },
      }),
      async () => {
        throw unauthorized('authentication is disabled on this server (security.enable_auth: false), so there is no signed-in user');
      },
    );
  }
}

/**
 * The Perses `PluginModule` list: one module per plugin module name with its plugins. A datasource
 * plugin with suggested proxy endpoints carries them as `spec.allowedEndpoints` (dashplane's;
 * Perses clients ignore it), for forms that create a datasource of that kind.
 */
function pluginModules(plugins: PluginRegistry, version: string) {
  const byModule = new Map<string, { kind: string; spec: { name: string; display: { name: string }; allowedEndpoints?: unknown } }[]>();
  for (const p of plugins.all()) {
    const list = byModule.get(p.module) ?? [];
    const display = { name: p.kind.replace(/([a-z])([A-Z])/g, '$1 $2') };
    list.push({ kind: p.type, spec: { name: p.kind, display, ...(p.allowedEndpoints ? { allowedEndpoints: p.allowedEndpoints } : {}) } });
    byModule.set(p.module, list);
  }
  return [...byModule.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, list]) => ({ kind: 'PluginModule', metadata: { name, version }, spec: { plugins: list } }));
}
