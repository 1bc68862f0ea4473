import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { notFound } from '../errors.js';
import { documented } from './route-doc.js';

/** Paths the UI never answers: an unknown API or proxy route stays a JSON 404. */
const RESERVED = /^\/(?:api|proxy|metrics)(?:\/|$)/i;

/** Vite puts content-hashed files under assets/: they never change, so browsers keep them a year. */
const HASHED = /^assets\//;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The page's own scripts and styles only. Emotion (MUI) injects style elements, so styles allow
 * 'unsafe-inline'; scripts do not. Datasources are reached through /proxy, so connect-src is 'self'.
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  cache: string;
}

export interface StaticRouteOptions {
  /** The built UI (ui/dist); when it is missing, `/` explains how to build it. */
  dir: string;
}

/** True for paths the UI answers without credentials (the page must load to show sign-in). */
export function isUiPath(url: string): boolean {
  return !RESERVED.test(url);
}

/**
 * Serves the built web UI: files by path, hashed assets with long cache headers, and index.html
 * for every other GET (client-side routes) except under /api, /proxy and /metrics.
 */
export function registerStaticRoutes(app: FastifyInstance, o: StaticRouteOptions): void {
  const assets = loadAssets(o.dir);
  const index = assets.get('index.html') ?? missingUi(o.dir);
  assets.delete('index.html');
  const send = (request: FastifyRequest, reply: FastifyReply, a: Asset) => {
    void reply.header('Content-Type', a.type).header('Cache-Control', a.cache).header('ETag', a.etag);
    if (a.type.startsWith('text/html')) void reply.header('Content-Security-Policy', CSP).header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'same-origin');
    if (request.headers['if-none-match'] === a.etag) return reply.code(304).send();
    return reply.send(a.body);
  };
  app.get('/*', documented({
    tag: 'Web UI',
    summary: 'The web UI: its files, and index.html for every other path (client-side routes)',
    description: 'Never answers under /api, /proxy or /metrics (those stay JSON 404s).',
    params: { path: 'A UI file or client-side route' },
    responses: { 200: { description: 'The file, or the UI page', type: 'text/html' }, 304: { description: 'Not modified (If-None-Match)' } },
  }, isUiPath), async (request, reply) => {
    const path = request.url.split('?')[0];
    if (RESERVED.test(path)) throw notFound(`no route for ${request.method} ${path}`);
    let file: string;
    try {
      file = decodeURIComponent(path).replace(/^\/+/, '');
    } catch {
      file = '';
    }
    const asset = assets.get(file);
    if (asset) return send(request, reply, asset);
    // A missing hashed file is a stale page asking for an old build: 404, not the HTML page.
    if (HASHED.test(file)) throw notFound(`no such UI file: /${file} (reload the page: the UI was updated)`);
    return send(request, reply, index);
  });
}

function loadAssets(dir: string): Map<string, Asset> {
  const out = new Map<string, Asset>();
  if (!existsSync(dir)) return out;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      const rel = relative(dir, full).split(sep).join('/');
      if (rel.startsWith('.')) continue; // build stamps
      const body = readFileSync(full);
      out.set(rel, {
        body,
        type: TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream',
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
        cache: HASHED.test(rel) ? 'public, max-age=31536000, immutable' : 'no-cache',
      });
    }
  };
  walk(dir);
  return out;
}

function missingUi(dir: string): Asset {
  const body = Buffer.from(
    '<!doctype html><meta charset="utf-8"><title>dashplane</title>' +
      `<p>The web UI is not built (no ${escapeHtml(join(dir, 'index.html'))}). Run <code>npm run build</code> and restart the server.` +
      '<p>The HTTP API is at <a href="/api/v1/projects">/api/v1</a>.',
  );
  return { body, type: 'text/html; charset=utf-8', etag: '"missing-ui"', cache: 'no-cache' };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
