import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';
import type { KindRegistry } from '../kinds/registry.js';
import { ProfileService } from '../profiles/profiles.js';
import type { ResourceService } from '../resources/service.js';
import { SearchService } from '../search/search.js';
import { positiveInt, single, type Query } from './request-options.js';

/** Longest search query. */
const MAX_QUERY_LENGTH = 200;
const DEFAULT_SEARCH_LIMIT = 20;
const MAX_SEARCH_LIMIT = 100;

export interface ProfileRouteOptions {
  registry: KindRegistry;
  service: ResourceService;
}

type Req = FastifyRequest<{ Querystring: Query }>;

/**
 * The caller's own profile (recently viewed, starred, preferences) and the search across
 * projects, both for the web UI. Every caller has exactly one profile: their own (with auth off,
 * the one anonymous profile); there is no route to anyone else's.
 *
 * - `GET /api/v1/user/profile` -> `{recent, starred, preferences}`
 * - `POST /api/v1/user/profile/recent` `{kind, project?, name}` -> 204
 * - `POST /api/v1/user/profile/stars` `{kind, project?, name}`, `DELETE /api/v1/user/profile/stars?kind=&project=&name=` -> the profile
 * - `PUT /api/v1/user/profile/preferences` `{"theme": "dark", "other": null}` (merged) -> the profile
 * - `GET /api/v1/search?query=&limit=` -> matches, best first
 */
export function registerProfileRoutes(app: FastifyInstance, o: ProfileRouteOptions): void {
  const profiles = new ProfileService({ store: o.service.store, registry: o.registry, service: o.service });
  const search = new SearchService({ registry: o.registry, service: o.service });

  app.get('/api/v1/user/profile', async (req) => profiles.get(req.principal));
  app.post('/api/v1/user/profile/recent', async (req, reply) => {
    await profiles.recordView(req.principal, req.body);
    return reply.code(204).send();
  });
  app.post('/api/v1/user/profile/stars', async (req) => profiles.star(req.principal, req.body));
  app.delete('/api/v1/user/profile/stars', async (req: Req) =>
    profiles.unstar(req.principal, { kind: single(req.query, 'kind'), project: single(req.query, 'project'), name: single(req.query, 'name') }),
  );
  app.put('/api/v1/user/profile/preferences', async (req) => profiles.setPreferences(req.principal, req.body));

  app.get('/api/v1/search', async (req: Req) => {
    const query = single(req.query, 'query') ?? '';
    if (query.length > MAX_QUERY_LENGTH) throw badRequest(`query parameter "query" is longer than ${MAX_QUERY_LENGTH} characters`);
    return search.search(req.principal, query, positiveInt(req.query, 'limit', MAX_SEARCH_LIMIT) ?? DEFAULT_SEARCH_LIMIT);
  });
}
