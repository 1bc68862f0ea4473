/**
 * The reference servers of the benchmarks: bare `node:http`, one process, keep-alive on.
 *   static FILE CONTENT-TYPE   answers every request with the file's bytes
 *   static-like FILE CONTENT-TYPE  the same, with the headers dashplane sends on a GET of a
 *                              resource (a new X-Request-Id each, the version, nosniff,
 *                              Cache-Control, ETag): P1's like-for-like reference
 *   echo-json                  reads the JSON body, parses it and answers it re-serialised
 *   fastify-static FILE TYPE   `static-like` through a bare Fastify app (the framework's own floor)
 *   proxy UPSTREAM-URL         a minimal pass-through reverse proxy: node:http + one undici Pool,
 *                              path and query appended, body and headers streamed (what a user
 *                              would otherwise put in front of the datasource)
 *   proxy-like UPSTREAM-URL    the same, adding the headers dashplane adds to a proxied answer
 *                              (X-Request-Id, the version, nosniff, Cache-Control, the sandbox
 *                              CSP, Cross-Origin-Resource-Policy, X-Dashplane-Cache): P4's reference
 * Prints "port N" once listening on 127.0.0.1.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify from 'fastify';
import { Pool } from 'undici';

const [mode, file, type] = process.argv.slice(2);
/** What dashplane's onRequest hook sets on every answer (src/api/app.ts). */
const dashplaneHeaders = () => ({
  'x-request-id': randomUUID(),
  'x-dashplane-version': '0.1.0',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
});
let handler: (req: IncomingMessage, res: ServerResponse) => void;
if (mode === 'static' || mode === 'static-like') {
  const bytes = readFileSync(file);
  const like = mode === 'static-like';
  handler = (_req, res) => {
    res.writeHead(200, { ...(like ? { ...dashplaneHeaders(), etag: '"0"' } : {}), 'content-type': type, 'content-length': bytes.length });
    res.end(bytes);
  };
} else if (mode === 'echo-json') {
  handler = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  };
} else if (mode === 'fastify-static') {
  const text = readFileSync(file, 'utf8');
  const app = Fastify({ logger: false });
  app.get('/*', async (_req, reply) =>
    reply
      .headers({ ...dashplaneHeaders(), etag: '"0"' })
      .type(type)
      .send(text),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(`port ${(app.server.address() as { port: number }).port}`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
  handler = () => undefined;
} else if (mode === 'proxy' || mode === 'proxy-like') {
  const upstream = new Pool(file, { connections: 128 });
  const like = mode === 'proxy-like';
  handler = (req, res) => {
    const { host: _h, connection: _c, ...headers } = req.headers;
    upstream
      .request({ method: req.method as 'GET', path: req.url!, headers, body: req.method === 'GET' || req.method === 'HEAD' ? null : req })
      .then(
        (up) => {
          const own = like
            ? {
                ...dashplaneHeaders(),
                'content-security-policy': 'sandbox',
                'cross-origin-resource-policy': 'same-origin',
                'x-dashplane-cache': 'miss',
              }
            : {};
          res.writeHead(up.statusCode, { ...(up.headers as Record<string, string>), ...own });
          up.body.pipe(res);
        },
        () => {
          res.writeHead(502).end();
        },
      );
  };
} else {
  console.error(
    'usage: bare-server static[-like] FILE CONTENT-TYPE | echo-json | fastify-static FILE CONTENT-TYPE | proxy[-like] UPSTREAM-URL',
  );
  process.exit(2);
}
if (mode !== 'fastify-static') {
  const server = createServer({ keepAliveTimeout: 60_000 }, handler);
  server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as { port: number }).port}`));
  process.on('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
