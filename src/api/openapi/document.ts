import type { KindRegistry } from '../../kinds/registry.js';
import { REASONS } from '../error-handler.js';
import type { ResourceOp } from '../resource-router.js';
import type { BodyDoc, ResponseDoc, RouteDoc } from '../route-doc.js';
import type { BuildInfo } from '../../build-info.js';
import { schemaComponents } from './components.js';
import { requestHeaders, resourceDoc } from './resource-docs.js';

type Json = Record<string, unknown>;

/** A route as Fastify mounted it (collected by an onRoute hook). */
export interface MountedRoute {
  method: string | string[];
  url: string;
  config?: { doc?: RouteDoc; resource?: { kind: string; op: ResourceOp }; anonymous?: unknown } | undefined;
}

export interface OpenApiOptions {
  routes: readonly MountedRoute[];
  registry: KindRegistry;
  build: BuildInfo;
  schemasDir: string;
  authEnabled: boolean;
}

/** The methods an OpenAPI path item may hold; HEAD is left out (Fastify answers it wherever GET is). */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch', 'trace'];

/** Marks an operation made for a route that carries no description (a test fails on it). */
export const UNDOCUMENTED = 'x-dashplane-undocumented';

const PARAMS: Record<string, string> = {
  project: 'The project',
  name: "The object's name (case-sensitive)",
  version: 'A version number from the versions list',
  path: 'The rest of the path',
};

/** `/api/v1/projects/:project/x/*` -> `/api/v1/projects/{project}/x/{path}`. */
export function openApiPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}');
}

/**
 * The OpenAPI 3.1 document of the routes this server mounts: paths from the route table (each
 * route's own `config.doc`, or for resource routes a description made from the kind registry),
 * component schemas from schemas/.
 */
export function buildOpenApi(o: OpenApiOptions): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of o.routes) {
    const methods = (Array.isArray(r.method) ? r.method : [r.method]).map((m) => m.toLowerCase()).filter((m) => METHODS.includes(m));
    if (methods.length === 0) continue;
    const path = openApiPath(r.url);
    paths[path] ??= {};
    const item = paths[path];
    for (const m of methods) item[m] = operation(o, r, m, path);
  }
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'dashplane HTTP API',
      version: o.build.version,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      description:
        'Declarative dashboard resources (`kind`, `metadata`, `spec`), wire-compatible with Perses. ' +
        'Generated from the routes this server mounts and the schemas it validates with; docs/api.md in the repository explains the contract. ' +
        (o.authEnabled
          ? 'Authentication is on: send `Authorization: Bearer <access token>` (or the session cookies).'
          : 'Authentication is off on this server: every route is open.'),
    },
    servers: [{ url: '/' }],
    ...(o.authEnabled ? { security: [{ bearerAuth: [] }, { cookieAuth: [] }] } : {}),
    tags: tags(o.registry),
    paths: sorted,
    components: {
      schemas: { ...schemaComponents(o.schemasDir), ...EXTRA_SCHEMAS, Error: errorSchema() },
      responses: {
        Error: {
          description: 'An error; its status follows from `reason`',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

function operation(o: OpenApiOptions, r: MountedRoute, method: string, path: string): Json {
  const resource = r.config?.resource;
  const d = resource ? o.registry.byName(resource.kind) : undefined;
  const doc = d && resource ? resourceDoc(d, resource.op) : r.config?.doc;
  const operationId = `${method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;
  if (!doc)
    return {
      operationId,
      summary: 'Undocumented route',
      [UNDOCUMENTED]: true,
      responses: { default: { $ref: '#/components/responses/Error' } },
    };
  const params = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: doc.params?.[name] ?? PARAMS[name] ?? name,
    schema: { type: 'string' },
  }));
  const query = (doc.query ?? []).map((q) => ({
    name: q.name,
    in: 'query',
    required: q.required ?? false,
    description: q.description,
    schema: { type: q.type ?? 'string' },
  }));
  const headers = (resource ? requestHeaders(resource.op) : []).map((h) => ({
    ...h,
    in: 'header',
    required: false,
    schema: { type: 'string' },
  }));
  const anonymous = r.config?.anonymous !== undefined && r.config.anonymous !== false;
  const withBody = method !== 'get' && method !== 'delete' && method !== 'options' && method !== 'trace';
  return {
    operationId,
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    ...(params.length + query.length + headers.length ? { parameters: [...params, ...query, ...headers] } : {}),
    ...(doc.body && withBody ? { requestBody: requestBody(doc.body) } : {}),
    ...(o.authEnabled && anonymous ? { security: [{}, { bearerAuth: [] }, { cookieAuth: [] }] } : {}),
    responses: {
      ...Object.fromEntries(Object.entries(doc.responses).map(([status, res]) => [status, response(res)])),
      default: { $ref: '#/components/responses/Error' },
    },
  };
}

const schemaOf = (s: Json | string): Json => (typeof s === 'string' ? { $ref: `#/components/schemas/${s}` } : s);

function requestBody(b: BodyDoc): Json {
  const types = b.types ?? ['application/json', 'application/yaml'];
  return {
    description: b.description,
    required: b.required ?? false,
    content: Object.fromEntries(types.map((t) => [t, b.schema ? { schema: schemaOf(b.schema) } : {}])),
  };
}

function response(r: ResponseDoc): Json {
  const headers = r.headers
    ? { headers: Object.fromEntries(Object.entries(r.headers).map(([n, d]) => [n, { description: d, schema: { type: 'string' } }])) }
    : {};
  if (!r.schema && !r.type) return { description: r.description, ...headers };
  return {
    description: r.description,
    ...headers,
    content: { [r.type ?? 'application/json']: r.schema ? { schema: schemaOf(r.schema) } : {} },
  };
}

function tags(registry: KindRegistry): Json[] {
  return [
    ...registry
      .all()
      .map((d) => ({ name: d.kind, description: `${d.kind} objects (${d.scope === 'global' ? 'global' : 'in a project'}, /${d.plural})` })),
    { name: 'System', description: 'Configuration, health, plugins, validation, metrics, this document' },
    { name: 'Authentication', description: 'Sign-in, tokens, sessions, the caller' },
    { name: 'Proxy', description: 'Datasource proxy' },
    { name: 'Web UI', description: 'The web UI' },
  ];
}

/** Every error answer: `{message, reason, details?}`; the status follows from `reason`. */
function errorSchema(): Json {
  return {
    type: 'object',
    required: ['message', 'reason'],
    properties: {
      message: { type: 'string', description: 'What went wrong and how to fix it' },
      reason: { type: 'string', enum: [...REASONS], description: 'A stable machine word; docs/api.md lists each with its status' },
      details: {
        type: 'array',
        items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
      },
    },
  };
}

const EXTRA_SCHEMAS: Record<string, Json> = {
  Tokens: {
    type: 'object',
    required: ['access_token', 'token_type', 'refresh_token', 'expiry', 'expires_in'],
    properties: {
      access_token: { type: 'string' },
      token_type: { const: 'Bearer' },
      refresh_token: { type: 'string' },
      expiry: { type: 'string', format: 'date-time' },
      expires_in: { type: 'integer' },
    },
  },
  LoginRequest: {
    type: 'object',
    required: ['login', 'password'],
    properties: { login: { type: 'string' }, password: { type: 'string', writeOnly: true } },
  },
  VersionEntry: {
    type: 'object',
    required: ['version', 'updatedAt', 'updatedBy'],
    properties: {
      version: { type: 'integer' },
      updatedAt: { type: 'string', format: 'date-time' },
      updatedBy: { type: 'string' },
      manager: { type: 'string', description: 'The field manager of the write (dashctl, web-ui, api, restore...)' },
    },
  },
  DeletedEntry: {
    type: 'object',
    required: ['name', 'version', 'updatedAt', 'updatedBy', 'manager'],
    properties: {
      name: { type: 'string' },
      version: { type: 'integer', description: 'Its last version' },
      updatedAt: { type: 'string', format: 'date-time' },
      updatedBy: { type: 'string' },
      manager: { type: 'string' },
    },
  },
  ManagerEntry: {
    type: 'object',
    required: ['version', 'updatedAt', 'updatedBy', 'manager'],
    properties: {
      version: { type: 'integer' },
      updatedAt: { type: 'string', format: 'date-time' },
      updatedBy: { type: 'string' },
      manager: { type: 'string' },
    },
  },
  WatchEvent: {
    type: 'object',
    description:
      'One line of a watch stream (application/x-ndjson). A stream that ends before its client leaves (the client fell behind, its credential expired or was revoked) ends with an ERROR whose object is {kind: "Status", code, reason, message}; its revision, when present, is where to resume with since (absent: watch again without since)',
    required: ['type'],
    properties: {
      type: { enum: ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] },
      revision: { type: 'integer' },
      object: { type: 'object', description: 'The object (absent in a BOOKMARK; a Status in an ERROR)' },
    },
  },
};

const SECURITY_SCHEMES: Json = {
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from a login or refresh' },
  cookieAuth: {
    type: 'apiKey',
    in: 'cookie',
    name: 'jwtSignature',
    description: 'The session cookies jwtPayload + jwtSignature, as a browser sends them',
  },
};
