import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { notFound } from '../errors.js';
import type { KindRegistry } from '../kinds/registry.js';
import { buildOpenApi, type MountedRoute } from './openapi/document.js';
import { documented } from './route-doc.js';
import { CSP } from './static-routes.js';
import type { BuildInfo } from '../build-info.js';

export interface OpenApiRouteOptions {
  /** The route table, filled by an onRoute hook; read when the document is first asked for. */
  routes: readonly MountedRoute[];
  registry: KindRegistry;
  build: BuildInfo;
  schemasDir: string;
  authEnabled: boolean;
}

/** The files of the Swagger UI distribution the page loads, with their media types. */
const VIEWER_FILES: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** Starts Swagger UI on the document; no inline script, so the page keeps the UI's strict CSP. */
const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>dashplane HTTP API</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
<link rel="stylesheet" href="/api/docs/index.css">
<link rel="icon" type="image/png" href="/api/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;

interface File {
  body: Buffer;
  type: string;
  etag: string;
}

const file = (body: Buffer | string, type: string): File => {
  const b = Buffer.from(body);
  return { body: b, type, etag: `"${createHash('sha256').update(b).digest('base64url').slice(0, 22)}"` };
};

/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 document of this server (anonymous), made once from
 * the route table when first asked for. `GET /api/docs`: the document rendered by Swagger UI,
 * served from the swagger-ui-dist package (no CDN), under the web UI's Content-Security-Policy.
 */
export function registerOpenApiRoutes(app: FastifyInstance, o: OpenApiRouteOptions): void {
  let document: string | undefined;
  app.get(
    '/api/openapi.json',
    documented(
      {
        tag: 'System',
        summary: 'This document: the OpenAPI 3.1 description of every route this server answers',
        responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object' } } },
      },
      true,
    ),
    async (_req, reply) => {
      document ??= JSON.stringify(buildOpenApi(o));
      return reply.type('application/json; charset=utf-8').send(document);
    },
  );

  const files = new Map<string, File>([
    ['', file(PAGE, 'text/html; charset=utf-8')],
    ['init.js', file(INIT_JS, 'text/javascript; charset=utf-8')],
  ]);
  const viewerFile = (name: string): File => {
    const known = files.get(name);
    if (known) return known;
    const type = VIEWER_FILES[name];
    if (!type) throw notFound(`no such file: /api/docs/${name}`);
    const loaded = file(readFileSync(join(swaggerUiDir(), name)), type);
    files.set(name, loaded);
    return loaded;
  };
  const send = (request: FastifyRequest, reply: FastifyReply, f: File) => {
    void reply.header('Content-Type', f.type).header('Cache-Control', 'no-cache').header('ETag', f.etag);
    if (f.type.startsWith('text/html'))
      void reply.header('Content-Security-Policy', CSP).header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'same-origin');
    if (request.headers['if-none-match'] === f.etag) return reply.code(304).send();
    return reply.send(f.body);
  };
  const viewer = {
    tag: 'System',
    params: { file: 'A file of the viewer' },
    responses: { 200: { description: 'The page or file', type: 'text/html' }, 304: { description: 'Not modified (If-None-Match)' } },
  };
  app.get(
    '/api/docs',
    documented({ ...viewer, summary: 'The API reference: this document rendered by Swagger UI' }, true),
    async (request, reply) => send(request, reply, viewerFile('')),
  );
  app.get<{ Params: { file: string } }>(
    '/api/docs/:file',
    documented({ ...viewer, summary: 'A file of the API reference page (scripts, styles)' }, true),
    async (request, reply) => send(request, reply, viewerFile(request.params.file)),
  );
}

/** Where the swagger-ui-dist package is installed (its documented getAbsoluteFSPath). */
function swaggerUiDir(): string {
  const getAbsoluteFSPath = createRequire(import.meta.url)('swagger-ui-dist/absolute-path.js') as () => string;
  return getAbsoluteFSPath();
}
