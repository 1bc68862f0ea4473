import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Principal } from '../access/authorizer.js';
import { ownerOf, refuseNarrowedCreator, type ApiTokens, type TokenOwner } from '../auth/api-tokens.js';
import { parseTokenRequest } from '../auth/token-request.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { assertName } from '../lib/names.js';
import type { ResourceService } from '../resources/service.js';
import type { Envelope, ObjectStore } from '../storage/store.js';
import { documented, type RouteDoc } from './route-doc.js';

export interface TokenRouteOptions {
  tokens: ApiTokens;
  service: ResourceService;
  registry: KindRegistry;
  store: ObjectStore;
  /** security.authentication.max_token_ttl, as written and in ms. */
  maxTtl: string;
  maxTtlMs: number;
  /** What a narrowed permission may name in `scopes`. */
  knownScopes: ReadonlySet<string>;
}

type Params = { project?: string; name?: string; id?: string };

/**
 * API tokens of every kind that may own them (docs/teams.md): `.../{plural}/{name}/tokens` (list,
 * create) and `.../tokens/{id}` (revoke), plus `/api/v1/user/tokens` for the caller's own. Creating
 * a token needs `update` on its owner (a person's own tokens: only that person); listing needs
 * `read`; revoking needs `update`, or being that very token. The secret is in the create answer
 * only.
 */
export function registerTokenRoutes(app: FastifyInstance, o: TokenRouteOptions): void {
  for (const d of o.registry.all().filter((k) => k.tokenOwner)) {
    const base = d.scope === 'global' ? `/api/v1/${d.plural}/:name/tokens` : `/api/v1/projects/:project/${d.plural}/:name/tokens`;
    const whose = `of a ${d.kind}`;
    app.get<{ Params: Params }>(base, documented(LIST(whose)), async (req) => list(o, req.principal, d, ...named(req.params), false));
    app.post<{ Params: Params }>(base, documented(CREATE(whose)), async (req, reply) =>
      create(o, req.principal, d, ...named(req.params), req.body, reply),
    );
    app.delete<{ Params: Params }>(`${base}/:id`, documented(REVOKE(whose)), async (req, reply) =>
      revoke(o, req.principal, d, ...named(req.params), req.params.id!, reply, false),
    );
  }
  const mine = (p: Principal): [KindDescriptor, string | undefined, string] => {
    const owner = selfOwner(o, p);
    return [o.registry.byName(owner.kind)!, owner.project, owner.name];
  };
  app.get('/api/v1/user/tokens', documented(LIST('of the caller')), async (req) => list(o, req.principal, ...mine(req.principal), true));
  app.post('/api/v1/user/tokens', documented(CREATE('of the caller (a personal access token)')), async (req, reply) =>
    create(o, req.principal, ...mine(req.principal), req.body, reply),
  );
  app.delete<{ Params: Params }>('/api/v1/user/tokens/:id', documented(REVOKE('of the caller')), async (req, reply) =>
    revoke(o, req.principal, ...mine(req.principal), req.params.id!, reply, true),
  );
}

const TOKEN_INFO = { type: 'object', description: 'id, name, owner, createdAt, expiresAt, lastUsedAt, permissions (never the secret)' };
const LIST = (whose: string): RouteDoc => ({
  tag: 'API tokens',
  summary: `The API tokens ${whose}, without their secrets`,
  responses: { 200: { description: 'Tokens', schema: { type: 'array', items: TOKEN_INFO } } },
});
const CREATE = (whose: string): RouteDoc => ({
  tag: 'API tokens',
  summary: `Creates an API token ${whose}; the secret is in this answer only`,
  body: {
    description:
      '{"name", "ttl" | "expiresAt", "permissions"?: [{actions, scopes, projects?}]}: an expiry is required, at most security.authentication.max_token_ttl ahead',
    schema: { type: 'object', required: ['name'] },
  },
  responses: {
    200: { description: 'The token: its information and `token` (dp_<id>_<secret>), shown once', schema: { type: 'object' } },
    429: {
      description:
        'The owner holds security.authentication.max_tokens_per_owner unexpired tokens: revoke one first (`Retry-After`: until the first expires)',
      schema: 'Error',
    },
  },
});
const REVOKE = (whose: string): RouteDoc => ({
  tag: 'API tokens',
  summary: `Revokes an API token ${whose} (at the next request, on every replica)`,
  params: { id: 'the token id (16 hexadecimal digits)' },
  responses: { 204: { description: 'Revoked' } },
});

/** The caller as a token owner: a service account (token-authenticated) or a user. */
function selfOwner(o: TokenRouteOptions, p: Principal): TokenOwner {
  if (p.subject) return p.subject;
  const people = o.registry.all().find((d) => d.isPrincipal)!;
  return { kind: people.kind, name: p.name };
}

function named(params: Params): [string | undefined, string] {
  if (params.project !== undefined) assertName(params.project, 'project in the URL path');
  assertName(params.name, 'name in the URL path');
  return [params.project, params.name!];
}

async function ownerObject(o: TokenRouteOptions, d: KindDescriptor, project: string | undefined, name: string): Promise<Envelope> {
  const obj = await o.store.get({ kind: d.kind, project: d.scope === 'project' ? project! : '', name });
  if (!obj) throw notFound(`${d.kind} "${name}"${d.scope === 'project' ? ` in project "${project}"` : ''} not found`);
  return obj;
}

async function list(o: TokenRouteOptions, p: Principal, d: KindDescriptor, project: string | undefined, name: string, self: boolean) {
  if (!self) await o.service.authorize(p, 'read', d, project, name);
  const owner = await ownerObject(o, d, project, name);
  return o.tokens.list(ownerOf(d, owner), owner.metadata.createdAt);
}

async function create(
  o: TokenRouteOptions,
  p: Principal,
  d: KindDescriptor,
  project: string | undefined,
  name: string,
  body: unknown,
  reply: FastifyReply,
) {
  refuseNarrowedCreator(p);
  if (d.isPrincipal) {
    if (p.subject || p.name !== name)
      throw forbidden(`personal access tokens are created by their own user ("${name}"); an administrator may list and revoke them`);
  } else {
    await o.service.authorize(p, 'update', d, project, name);
  }
  const owner = await ownerObject(o, d, project, name);
  const req = parseTokenRequest(body, { now: Date.now(), maxTtlMs: o.maxTtlMs, maxTtl: o.maxTtl, knownScopes: o.knownScopes });
  const { token, info } = await o.tokens.create(p, d, owner, req);
  return reply.code(200).send({ ...info, token });
}

async function revoke(
  o: TokenRouteOptions,
  p: Principal,
  d: KindDescriptor,
  project: string | undefined,
  name: string,
  id: string,
  reply: FastifyReply,
  self: boolean,
) {
  if (!/^[0-9a-f]{16}$/.test(id))
    throw badRequest(`token id ${JSON.stringify(id.slice(0, 40))} is not an id from the list of tokens (16 hexadecimal digits)`);
  if (self && p.token?.permissions && p.token.id !== id)
    throw forbidden('a narrowed API token may revoke only itself; use a session or an unrestricted token');
  if (!self && p.token?.id !== id) await o.service.authorize(p, 'update', d, project, name);
  const owner = await ownerObject(o, d, project, name);
  await o.tokens.revoke(p, ownerOf(d, owner), owner.metadata.createdAt, id);
  return reply.code(204).send();
}
