import type { FastifyInstance } from 'fastify';
import type { KindRegistry } from '../kinds/registry.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { SchemaCatalog } from '../schemas/catalog.js';

export interface SchemaRouteOptions {
  registry: KindRegistry;
  plugins: PluginRegistry;
  schemasDir: string;
}

/**
 * The JSON Schemas the server validates with, self-contained (draft-07), anonymous like
 * /api/v1/plugins: `GET /api/v1/schemas/{plural}` for a kind's objects,
 * `GET /api/v1/schemas/plugins/{kind}` for a plugin's `spec`. Built from the kind registry.
 */
export function registerSchemaRoutes(app: FastifyInstance, o: SchemaRouteOptions): void {
  const catalog = new SchemaCatalog({ schemasDir: o.schemasDir, plugins: o.plugins });
  const anonymous = { config: { anonymous: true } };
  app.get<{ Params: { kind: string } }>('/api/v1/schemas/plugins/:kind', anonymous, async (req) => catalog.plugin(req.params.kind));
  app.get<{ Params: { plural: string } }>('/api/v1/schemas/:plural', anonymous, async (req) => catalog.kind(o.registry.requirePlural(req.params.plural)));
}
