import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { assertName } from '../resources/names.js';
import { getPath } from '../resources/object-path.js';
import type { ResourceService } from '../resources/service.js';
import { flag, ifMatch, nameParam, positiveInt, single, type Query } from './request-options.js';

/** Largest page a list may ask for. */
const MAX_LIMIT = 10_000;

type Params = { project?: string; name?: string };
type Req = FastifyRequest<{ Params: Params; Querystring: Query }>;

/**
 * Mounts the standard verbs of API.md §2 for every registered kind, from the registry:
 * global kinds under /api/v1/{plural}, project kinds under /api/v1/projects/{project}/{plural}
 * plus the cross-project collection /api/v1/{plural}.
 */
export function registerResourceRoutes(app: FastifyInstance, registry: KindRegistry, service: ResourceService, config: unknown): void {
  for (const d of registry.all()) {
    if (d.enabledBy && getPath(config, d.enabledBy) === false) continue;
    const h = handlers(d, service);
    const item = `/api/v1/${d.plural}/:name`;
    // Sign-up: anonymous callers may create unless the configuration turns it off.
    const createOptions = { config: { anonymous: d.anonymousCreateUnless !== undefined && getPath(config, d.anonymousCreateUnless) !== true } };
    if (d.scope === 'global') {
      app.get(`/api/v1/${d.plural}`, h.list);
      app.post(`/api/v1/${d.plural}`, createOptions, h.create);
      app.get(item, h.get);
      app.put(item, h.update);
      app.delete(item, h.remove);
    } else {
      const base = `/api/v1/projects/:project/${d.plural}`;
      app.get(base, h.list);
      app.post(base, h.create);
      app.get(`${base}/:name`, h.get);
      app.put(`${base}/:name`, h.update);
      app.delete(`${base}/:name`, h.remove);
      app.get(`/api/v1/${d.plural}`, h.list);
      app.post(`/api/v1/${d.plural}`, h.create);
    }
  }
}

function handlers(d: KindDescriptor, service: ResourceService) {
  /** Path parameters, checked before they touch a storage key. */
  const target = (req: Req) => {
    const { project, name } = req.params;
    if (project !== undefined) assertName(project, 'project in the URL path');
    if (name !== undefined) assertName(name, 'name in the URL path');
    return { project, name };
  };

  return {
    async list(req: Req, reply: FastifyReply) {
      const { project } = target(req);
      const q = req.query;
      const queryProject = nameParam(q, 'project');
      if (project !== undefined && queryProject !== undefined && queryProject !== project) {
        throw badRequest(`query parameter project=${queryProject} contradicts the project "${project}" in the URL path; drop one`);
      }
      const filters: Record<string, string> = {};
      for (const f of d.listFilters ?? []) {
        const v = single(q, f.param);
        if (v !== undefined) filters[f.param] = v;
      }
      const limit = positiveInt(q, 'limit', MAX_LIMIT);
      const continueToken = single(q, 'continue');
      const namePrefix = single(q, 'name');
      const page = await service.list(req.principal, d, {
        ...(d.scope === 'project' && (project ?? queryProject) !== undefined ? { project: project ?? queryProject } : {}),
        ...(namePrefix ? { namePrefix } : {}),
        filters,
        ...(limit !== undefined ? { limit } : {}),
        ...(continueToken !== undefined ? { continueToken } : {}),
      });
      if (page.continueToken) void reply.header('Link', `<${nextUrl(req.url, page.continueToken)}>; rel="next"`);
      if (flag(q, 'metadata_only')) return page.items.map((o) => ({ kind: o.kind, metadata: o.metadata, spec: {} }));
      return page.items;
    },

    async get(req: Req, reply: FastifyReply) {
      const { project, name } = target(req);
      const obj = await service.get(req.principal, d, project ?? '', name!);
      void reply.header('ETag', `"${obj.metadata.version}"`);
      return obj;
    },

    async create(req: Req, reply: FastifyReply) {
      const { project } = target(req);
      const obj = await service.create(req.principal, d, req.body, project !== undefined ? { project } : {}, { dryRun: flag(req.query, 'dryRun') });
      void reply.header('ETag', `"${obj.metadata.version}"`);
      return obj;
    },

    async update(req: Req, reply: FastifyReply) {
      const { project, name } = target(req);
      const obj = await service.update(req.principal, d, req.body, { name: name!, ...(project !== undefined ? { project } : {}) }, writeOptions(req));
      void reply.header('ETag', `"${obj.metadata.version}"`);
      return obj;
    },

    async remove(req: Req, reply: FastifyReply) {
      const { project, name } = target(req);
      await service.delete(req.principal, d, project, name!, writeOptions(req));
      return reply.code(204).send();
    },
  };
}

function writeOptions(req: Req): { dryRun: boolean; ifMatch?: number } {
  const version = ifMatch(req.headers['if-match']);
  return { dryRun: flag(req.query, 'dryRun'), ...(version !== undefined ? { ifMatch: version } : {}) };
}

/** The same request URL with `continue` replaced. */
function nextUrl(url: string, token: string): string {
  const u = new URL(url, 'http://x');
  u.searchParams.set('continue', token);
  return u.pathname + u.search;
}
