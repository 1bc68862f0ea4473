import type { FastifyInstance } from 'fastify';
import type { KindRegistry } from '../kinds/registry.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { SchemaCatalog } from '../schemas/catalog.js';
import { documented } from './route-doc.js';

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
  const schema = { description: 'A JSON Schema (draft-07), every $ref inside it', schema: { type: 'object' } };
  app.get<{ Params: { kind: string } }>(
    '/api/v1/schemas/plugins/:kind',
    documented(
      {
        tag: 'System',
        summary: "The JSON Schema of a plugin's spec",
        params: { kind: 'A plugin kind from /api/v1/plugins, e.g. PrometheusDatasource' },
        responses: { 200: schema, 404: { description: 'Unknown plugin kind', schema: 'Error' } },
      },
      true,
    ),
    async (req) => catalog.plugin(req.params.kind),
  );
  app.get<{ Params: { plural: string } }>(
    '/api/v1/schemas/:plural',
    documented(
      {
        tag: 'System',
        summary: "The JSON Schema the server validates a kind's objects with",
        params: { plural: "The kind's plural path segment, e.g. dashboards" },
        responses: { 200: schema, 404: { description: 'Unknown plural', schema: 'Error' } },
      },
      true,
    ),
    async (req) => catalog.kind(o.registry.requirePlural(req.params.plural)),
  );
}
