import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';
import type { KindRegistry } from '../kinds/registry.js';
import { ProfileService } from '../profiles/profiles.js';
import type { ResourceService } from '../resources/service.js';
import { SearchService } from '../search/search.js';
import { positiveInt, single, type Query } from './request-options.js';
import { documented } from './route-doc.js';

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

  const tag = 'Web UI';
  const profile = { description: "The caller's profile", schema: PROFILE_SCHEMA };
  app.get(
    '/api/v1/user/profile',
    documented({
      tag,
      summary: "The caller's own profile: recently viewed and starred objects (only those still there and readable), preferences",
      responses: { 200: profile },
    }),
    async (req) => profiles.get(req.principal),
  );
  app.post(
    '/api/v1/user/profile/recent',
    documented({
      tag,
      summary: 'Records that the caller viewed an object (it moves to the front of the recent list)',
      body: { description: 'The object', schema: REF_SCHEMA, required: true },
      responses: { 204: { description: 'Recorded' }, 403: { description: 'The caller may not read the object', schema: 'Error' } },
    }),
    async (req, reply) => {
      await profiles.recordView(req.principal, req.body);
      return reply.code(204).send();
    },
  );
  app.post(
    '/api/v1/user/profile/stars',
    documented({
      tag,
      summary: 'Stars an object for the caller',
      body: { description: 'The object', schema: REF_SCHEMA, required: true },
      responses: { 200: profile, 403: { description: 'The caller may not read the object', schema: 'Error' } },
    }),
    async (req) => profiles.star(req.principal, req.body),
  );
  app.delete(
    '/api/v1/user/profile/stars',
    documented({
      tag,
      summary: 'Unstars an object for the caller',
      query: [
        { name: 'kind', description: "The object's kind", required: true },
        { name: 'project', description: 'Its project (project kinds)' },
        { name: 'name', description: 'Its name', required: true },
      ],
      responses: { 200: profile },
    }),
    async (req: Req) =>
      profiles.unstar(req.principal, {
        kind: single(req.query, 'kind'),
        project: single(req.query, 'project'),
        name: single(req.query, 'name'),
      }),
  );
  app.put(
    '/api/v1/user/profile/preferences',
    documented({
      tag,
      summary: "Merges preferences into the caller's profile; a null value removes one",
      body: {
        description: 'Preferences, e.g. {"theme": "dark"}',
        schema: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
        required: true,
      },
      responses: { 200: profile },
    }),
    async (req) => profiles.setPreferences(req.principal, req.body),
  );

  app.get(
    '/api/v1/search',
    documented({
      tag,
      summary: 'Searches every searchable kind in every project the caller may read',
      description:
        'Every word must match the name, `spec.display.name`, a tag, the project, or any text in the spec (panel titles, query expressions). Best matches first.',
      query: [
        { name: 'query', description: 'Words to find (at most 200 characters)', required: true },
        {
          name: 'limit',
          description: `At most this many results (1 to ${MAX_SEARCH_LIMIT}, default ${DEFAULT_SEARCH_LIMIT})`,
          type: 'integer',
        },
      ],
      responses: { 200: { description: 'Matches, best first', schema: { type: 'array', items: HIT_SCHEMA } } },
    }),
    async (req: Req) => {
      const query = single(req.query, 'query') ?? '';
      if (query.length > MAX_QUERY_LENGTH) throw badRequest(`query parameter "query" is longer than ${MAX_QUERY_LENGTH} characters`);
      return search.search(req.principal, query, positiveInt(req.query, 'limit', MAX_SEARCH_LIMIT) ?? DEFAULT_SEARCH_LIMIT);
    },
  );
}

const REF_SCHEMA = {
  type: 'object',
  required: ['kind', 'name'],
  properties: { kind: { type: 'string' }, project: { type: 'string', description: 'For project kinds' }, name: { type: 'string' } },
};
const SHOWN_REF = {
  ...REF_SCHEMA,
  properties: {
    ...REF_SCHEMA.properties,
    plural: { type: 'string' },
    title: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
  },
};
const PROFILE_SCHEMA = {
  type: 'object',
  required: ['recent', 'starred', 'preferences'],
  properties: {
    recent: { type: 'array', items: SHOWN_REF },
    starred: { type: 'array', items: SHOWN_REF },
    preferences: { type: 'object', additionalProperties: { type: 'string' } },
  },
};
const HIT_SCHEMA = {
  type: 'object',
  required: ['kind', 'plural', 'name', 'score'],
  properties: {
    ...SHOWN_REF.properties,
    tags: { type: 'array', items: { type: 'string' } },
    match: {
      type: 'object',
      properties: { path: { type: 'string' }, text: { type: 'string' } },
      description: 'Where a word matched, when not in the name or title',
    },
    score: { type: 'number' },
  },
};
