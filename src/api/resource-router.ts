import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { assertName } from '../lib/names.js';
import { getPath } from '../lib/object-path.js';
import { HistoryService } from '../resources/history.js';
import { jsonOf } from '../lib/json-of.js';
import type { ResourceService, UpdateResult } from '../resources/service.js';
import type { HistoryStore, ObjectStore, StoredText } from '../storage/store.js';
import { UNCHANGED_HEADER } from './headers.js';
import { sendWarnings } from './warning-header.js';
import { fieldManager, flag, ifMatch, nameParam, positiveInt, single, skipUnchanged, type Query } from './request-options.js';
import type { WatchEvent, Watcher, WatchQuery } from '../controllers/watcher.js';
import type { LongStreams, StreamLine } from './long-streams.js';

/** Largest page a list may ask for. */
const MAX_LIMIT = 10_000;

type Params = { project?: string; name?: string; version?: string };
type Req = FastifyRequest<{ Params: Params; Querystring: Query }>;

/** What a resource route does, attached to the route (`config.resource`) for the OpenAPI document. */
export type ResourceOp =
  | 'list'
  | 'create'
  | 'listAll'
  | 'createAny'
  | 'get'
  | 'update'
  | 'delete'
  | 'managers'
  | 'versions'
  | 'version'
  | 'restore'
  | 'deleted';

/** One route of a kind: method, URL template and operation. */
export interface KindRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  op: ResourceOp;
}

/**
 * The standard verbs of a kind (docs/api.md, "Resources"): global kinds under /api/v1/{plural},
 * project kinds under /api/v1/projects/{project}/{plural} plus the cross-project collection
 * /api/v1/{plural}; every object's field managers; history routes for kinds that keep versions.
 */
export function kindRoutes(d: KindDescriptor): KindRoute[] {
  const one = d.scope === 'global' ? `/api/v1/${d.plural}/:name` : `/api/v1/projects/:project/${d.plural}/:name`;
  const out: KindRoute[] = [];
  if (d.scope === 'global') {
    out.push({ method: 'GET', url: `/api/v1/${d.plural}`, op: 'list' }, { method: 'POST', url: `/api/v1/${d.plural}`, op: 'create' });
  } else {
    const base = `/api/v1/projects/:project/${d.plural}`;
    out.push(
      { method: 'GET', url: base, op: 'list' },
      { method: 'POST', url: base, op: 'create' },
      { method: 'GET', url: `/api/v1/${d.plural}`, op: 'listAll' },
      { method: 'POST', url: `/api/v1/${d.plural}`, op: 'createAny' },
    );
  }
  out.push(
    { method: 'GET', url: one, op: 'get' },
    { method: 'PUT', url: one, op: 'update' },
    { method: 'DELETE', url: one, op: 'delete' },
    { method: 'GET', url: `${one}/managers`, op: 'managers' },
  );
  if (d.history) {
    out.push(
      { method: 'GET', url: `${one}/versions`, op: 'versions' },
      { method: 'GET', url: `${one}/versions/:version`, op: 'version' },
      { method: 'POST', url: `${one}/versions/:version/restore`, op: 'restore' },
      // deleted objects whose history is kept ("deleted" where a name would be could shadow an object of that name)
      {
        method: 'GET',
        url: d.scope === 'global' ? `/api/v1/deleted/${d.plural}` : `/api/v1/projects/:project/deleted/${d.plural}`,
        op: 'deleted',
      },
    );
  }
  return out;
}

/** The kinds whose routes this configuration serves (a kind may be switched off, e.g. ephemeral dashboards). */
function servedKinds(registry: KindRegistry, config: unknown): KindDescriptor[] {
  return registry.all().filter((d) => isServed(d, config));
}

/** Whether this configuration serves the kind's routes (enabledBy, disabledBy). */
export function isServed(d: KindDescriptor, config: unknown): boolean {
  if (d.enabledBy && getPath(config, d.enabledBy) === false) return false;
  return !d.disabledBy?.some((keys) => keys.every((k) => getPath(config, k) === true));
}

/**
 * Mounts the routes of `kindRoutes` for every served kind, from the registry. `store`: what the
 * history routes read (writes go through `service`).
 */
export function registerResourceRoutes(
  app: FastifyInstance,
  registry: KindRegistry,
  service: ResourceService,
  store: HistoryStore & Pick<ObjectStore, 'get'>,
  config: unknown,
  watcher: Watcher,
  streams: LongStreams,
): void {
  const history = new HistoryService({ service, store });
  for (const d of servedKinds(registry, config)) {
    const h = handlers(d, service, history, watcher, streams);
    const byOp: Record<ResourceOp, (req: Req, reply: FastifyReply) => unknown> = {
      list: h.list,
      listAll: h.list,
      create: h.create,
      createAny: h.create,
      get: h.get,
      update: h.update,
      delete: h.remove,
      managers: h.managers,
      versions: h.versions,
      version: h.version,
      restore: h.restore,
      deleted: h.deleted,
    };
    // Sign-up: anonymous callers may create unless the configuration turns it off.
    const signUp = d.scope === 'global' && d.anonymousCreateUnless !== undefined && getPath(config, d.anonymousCreateUnless) !== true;
    const signUpOff = d.scope === 'global' && d.anonymousCreateUnless !== undefined && !signUp;
    for (const r of kindRoutes(d)) {
      const anonymous = signUp && r.op === 'create';
      // an anonymous sign-up where it is turned off is told so, not just to sign in
      const unauthenticated =
        signUpOff && r.op === 'create'
          ? `sign-up is turned off on this server (${d.anonymousCreateUnless}); ask an administrator to create your ${d.kind}, then sign in`
          : undefined;
      app.route({
        method: r.method,
        url: r.url,
        config: {
          resource: { kind: d.kind, op: r.op },
          ...(anonymous ? { anonymous } : {}),
          ...(unauthenticated ? { unauthenticated } : {}),
        },
        handler: byOp[r.op] as never,
      });
    }
  }
}

function handlers(d: KindDescriptor, service: ResourceService, history: HistoryService, watcher: Watcher, streams: LongStreams) {
  /** Path parameters, checked before they touch a storage key. */
  const target = (req: Req) => {
    const { project, name } = req.params;
    // the name first, as Perses checks them
    if (name !== undefined) assertName(name, 'name in the URL path');
    if (project !== undefined) assertName(project, 'project in the URL path');
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
      if (flag(q, 'watch')) {
        const since = single(q, 'since');
        if (since !== undefined && !/^\d{1,15}$/.test(since))
          throw badRequest(`query parameter "since" must be a revision number, not ${JSON.stringify(since)}`);
        const project1 = d.scope === 'project' ? (project ?? queryProject) : undefined;
        return streamWatch(
          req,
          reply,
          watcher,
          streams,
          d,
          {
            ...(project1 !== undefined ? { project: project1 } : {}),
            ...(d.scope === 'project' && project !== undefined ? { projectInPath: true } : {}),
            ...(namePrefix ? { namePrefix } : {}),
            filters,
            ...(since !== undefined ? { since: Number(since) } : {}),
          },
          flag(q, 'metadata_only') ? metadataLine : eventLine,
        );
      }
      const page = await service.listText(req.principal, d, {
        ...(d.scope === 'project' && (project ?? queryProject) !== undefined ? { project: project ?? queryProject } : {}),
        ...(d.scope === 'project' && project !== undefined ? { projectInPath: true } : {}),
        ...(namePrefix ? { namePrefix } : {}),
        filters,
        ...(limit !== undefined ? { limit } : {}),
        ...(continueToken !== undefined ? { continueToken } : {}),
        ...(flag(q, 'metadata_only') ? { metadataOnly: true } : {}),
      });
      if (page.continueToken) void reply.header('Link', `<${nextUrl(req.originalUrl, page.continueToken)}>; rel="next"`);
      return sendJsonArray(reply, page.items);
    },

    async get(req: Req, reply: FastifyReply) {
      const { project, name } = target(req);
      const found = await service.getText(req.principal, d, project ?? '', name!);
      void reply.header('ETag', `"${found.metadata.version}"`);
      return sendJsonText(reply, found.text);
    },

    async create(req: Req, reply: FastifyReply) {
      const { project } = target(req);
      const manager = fieldManager(req.headers, req.query);
      const obj = await service.create(req.principal, d, req.body, project !== undefined ? { project } : {}, {
        dryRun: flag(req.query, 'dryRun'),
        ...(manager ? { manager } : {}),
      });
      void reply.header('ETag', `"${obj.metadata.version}"`);
      sendWarnings(reply, await service.warnings(req.principal, d, obj));
      return sendJsonText(reply, jsonOf(obj));
    },

    async update(req: Req, reply: FastifyReply) {
      const { project, name } = target(req);
      const manager = fieldManager(req.headers, req.query);
      const done = await service.update(
        req.principal,
        d,
        req.body,
        { name: name!, ...(project !== undefined ? { project } : {}) },
        {
          ...writeOptions(req),
          ...(manager ? { manager } : {}),
          skipUnchanged: skipUnchanged(req.headers),
        },
      );
      sendWarnings(reply, await service.warnings(req.principal, d, done.object));
      return sendWritten(reply, done);
    },

    async versions(req: Req) {
      const { project, name } = target(req);
      return history.listVersions(req.principal, d, project ?? '', name!);
    },

    async version(req: Req) {
      const { project, name } = target(req);
      return history.getVersion(req.principal, d, project ?? '', name!, versionParam(req.params));
    },

    async restore(req: Req, reply: FastifyReply) {
      const { project, name } = target(req);
      return sendWritten(
        reply,
        await history.restore(req.principal, d, project ?? '', name!, versionParam(req.params), {
          ...writeOptions(req),
          skipUnchanged: skipUnchanged(req.headers),
        }),
      );
    },

    async deleted(req: Req) {
      const { project } = target(req);
      return history.listDeleted(req.principal, d, project ?? '');
    },

    async managers(req: Req) {
      const { project, name } = target(req);
      return history.listManagers(req.principal, d, project ?? '', name!);
    },

    async remove(req: Req, reply: FastifyReply) {
      const { project, name } = target(req);
      const manager = fieldManager(req.headers, req.query);
      await service.delete(req.principal, d, project, name!, { ...writeOptions(req), ...(manager ? { manager } : {}) });
      return reply.code(204).send();
    },
  };
}

/** The object an update answers, its ETag, and whether the update changed nothing. */
function sendWritten(reply: FastifyReply, done: UpdateResult): FastifyReply {
  void reply.header('ETag', `"${done.object.metadata.version}"`);
  if (done.unchanged) void reply.header(UNCHANGED_HEADER, 'true');
  return sendJsonText(reply, jsonOf(done.object));
}

/** A response body that is already JSON (stored objects are served as stored, not re-serialised). */
function sendJsonText(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/**
 * A list's answer, `[a,b,...]` of the items' JSON texts. A long one goes out in chunks of
 * CHUNK_ITEMS items, each written when the socket takes it: a list of 100,000 never holds its
 * whole answer (nor, for metadata_only, all its item texts) at once.
 */
function sendJsonArray(reply: FastifyReply, items: readonly StoredText[]): FastifyReply {
  if (items.length <= CHUNK_ITEMS) return sendJsonText(reply, joined(items, 0, items.length, true));
  return reply.type('application/json; charset=utf-8').send(Readable.from(arrayChunks(items), { objectMode: false, highWaterMark: 1 }));
}

const CHUNK_ITEMS = 1000;

function* arrayChunks(items: readonly StoredText[]): Generator<Buffer> {
  yield OPEN;
  for (let i = 0; i < items.length; i += CHUNK_ITEMS) {
    if (i > 0) yield COMMA;
    const part = joined(items, i, Math.min(items.length, i + CHUNK_ITEMS), false);
    yield typeof part === 'string' ? Buffer.from(part) : part;
  }
  yield CLOSE;
}

/**
 * `a,b,...` of the texts of items[from..to), in brackets when `brackets` (one copy of the bytes
 * either way): bytes when any is bytes (stored bytes are not decoded and encoded again).
 */
function joined(items: readonly StoredText[], from: number, to: number, brackets: boolean): string | Buffer {
  const texts: (string | Buffer)[] = [];
  for (let i = from; i < to; i++) texts.push(items[i].text);
  if (texts.every((t) => typeof t === 'string')) return brackets ? `[${texts.join(',')}]` : texts.join(',');
  const parts: Buffer[] = brackets ? [OPEN] : [];
  texts.forEach((t, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(typeof t === 'string' ? Buffer.from(t) : t);
  });
  if (brackets) parts.push(CLOSE);
  return Buffer.concat(parts);
}

function versionParam(params: { version?: string }): number {
  const v = params.version ?? '';
  if (!/^\d{1,9}$/.test(v)) throw badRequest(`version must be a number, not ${JSON.stringify(v)}`);
  return Number(v);
}

/**
 * `?watch=true`: newline-delimited JSON events. Permission and `since` are checked first, so a
 * refusal is an ordinary 403/410; then the stream runs until the client leaves, the server shuts
 * down, or the watcher ends it with a final ERROR (the client fell behind, its credential expired
 * or was revoked: docs/api.md §6).
 */
function streamWatch(
  req: FastifyRequest,
  reply: FastifyReply,
  watcher: Watcher,
  streams: LongStreams,
  d: KindDescriptor,
  q: WatchQuery,
  lineOf: (e: WatchEvent) => Buffer,
) {
  // events as lines (one shared Buffer per event), the final ERROR as its error
  const line = (e: WatchEvent): StreamLine =>
    e.type === 'ERROR' ? { error: e.error, ...(e.revision !== undefined ? { revision: e.revision } : {}) } : lineOf(e);
  return streams.serve(req, reply, (life) => watcher.open(req.principal, d, q, life), line);
}

/**
 * The line of a watch event, `JSON.stringify(e)` + newline as UTF-8, with the object as `objectJson`
 * gives it: made once per event and shared by every stream that sends that form of it.
 */
function cachedLines(objectJson: (o: NonNullable<WatchEvent['object']>) => string): (e: WatchEvent) => Buffer {
  const lines = new WeakMap<object, { type: string; revision: number; line: Buffer }>();
  return (e) => {
    if (!e.object) return Buffer.from(`${JSON.stringify({ type: e.type, revision: e.revision })}\n`);
    const cached = lines.get(e.object);
    if (cached && cached.type === e.type && cached.revision === e.revision) return cached.line;
    const line = Buffer.from(`{"type":${JSON.stringify(e.type)},"revision":${e.revision},"object":${objectJson(e.object)}}\n`);
    lines.set(e.object, { type: e.type, revision: e.revision, line });
    return line;
  };
}

/** Lines of watch streams: the object as stored. */
const eventLine = cachedLines(jsonOf);
/** With `?metadata_only=true`: the object as a metadata_only list item, `{kind, metadata, spec: {}}`. */
const metadataLine = cachedLines((o) => JSON.stringify({ kind: o.kind, metadata: o.metadata, spec: {} }));

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
