import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { notFound } from '../errors.js';
import { documented } from './route-doc.js';

/**
 * Paths the UI never answers: an unknown API or proxy route stays a JSON 404, and so do Perses'
 * remote plugin modules (/plugins/<module>/...), which the Perses UI would otherwise parse as HTML.
 */
const RESERVED = /^\/(?:api|proxy|metrics|plugins)(?:\/|$)/i;

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
  /** Precompressed copies built next to the file (`x.js.br`, `x.js.gz`), by content coding. */
  encoded?: Partial<Record<Coding, Buffer>>;
}

/** A content coding the UI files are precompressed with. */
export type Coding = 'br' | 'gzip';
/** File suffix of each content coding, in order of preference. */
const CODINGS: [Coding, string][] = [
  ['br', '.br'],
  ['gzip', '.gz'],
];

export interface StaticRouteOptions {
  /** The built UI (ui/dist); when it is missing, `/` explains how to build it. */
  dir: string;
  /** api_prefix: the page's own links to its files point under it. */
  prefix?: string;
}

/** True for paths the UI answers without credentials (the page must load to show sign-in). */
function isUiPath(url: string): boolean {
  return !RESERVED.test(url);
}

/**
 * Serves the built web UI: files by path, hashed assets with long cache headers, and index.html
 * for every other GET (client-side routes) except under /api, /proxy, /metrics and /plugins.
 */
export function registerStaticRoutes(app: FastifyInstance, o: StaticRouteOptions): void {
  const assets = loadAssets(o.dir);
  const built = assets.get('index.html') ?? missingUi(o.dir);
  const index = o.prefix ? underPrefix(built, o.prefix) : built;
  assets.delete('index.html');
  const send = (request: FastifyRequest, reply: FastifyReply, a: Asset) => {
    const coding = a.encoded ? pickCoding(request.headers['accept-encoding'], a.encoded) : undefined;
    // each representation has its own strong ETag
    const etag = coding ? `${a.etag.slice(0, -1)}-${coding}"` : a.etag;
    void reply.header('Content-Type', a.type).header('Cache-Control', a.cache).header('ETag', etag);
    if (a.encoded) void reply.header('Vary', 'Accept-Encoding');
    if (coding) void reply.header('Content-Encoding', coding);
    if (a.type.startsWith('text/html'))
      void reply.header('Content-Security-Policy', CSP).header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'same-origin');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.send(coding ? a.encoded![coding] : a.body);
  };
  app.get(
    '/*',
    documented(
      {
        tag: 'Web UI',
        summary: 'The web UI: its files, and index.html for every other path (client-side routes)',
        description: 'Never answers under /api, /proxy, /metrics or /plugins (those stay JSON 404s).',
        params: { path: 'A UI file or client-side route' },
        responses: {
          200: { description: 'The file, or the UI page', type: 'text/html' },
          304: { description: 'Not modified (If-None-Match)' },
        },
      },
      isUiPath,
    ),
    async (request, reply) => {
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
    },
  );
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
      if (CODINGS.some(([, suffix]) => name.endsWith(suffix) && existsSync(full.slice(0, -suffix.length)))) continue; // a precompressed copy
      const body = readFileSync(full);
      const encoded: Asset['encoded'] = {};
      for (const [coding, suffix] of CODINGS) if (existsSync(full + suffix)) encoded[coding] = readFileSync(full + suffix);
      out.set(rel, {
        body,
        type: TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream',
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
        cache: HASHED.test(rel) ? 'public, max-age=31536000, immutable' : 'no-cache',
        ...(Object.keys(encoded).length > 0 ? { encoded } : {}),
      });
    }
  };
  walk(dir);
  return out;
}

/**
 * The preferred coding the client accepts (RFC 9110 §12.5.3: q-values, `*`, `q=0` refuses) among
 * those built for the file; undefined means the file as it is.
 */
function pickCoding(header: string | string[] | undefined, available: Partial<Record<Coding, Buffer>>): Coding | undefined {
  const q = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(token, Number.isFinite(value) ? value : 0);
  }
  let best: Coding | undefined;
  let bestQ = 0;
  for (const [coding] of CODINGS) {
    const weight = q.get(coding) ?? (coding === 'gzip' ? q.get('x-gzip') : undefined) ?? q.get('*') ?? 0;
    if (available[coding] && weight > bestQ) {
      best = coding;
      bestQ = weight;
    }
  }
  return best;
}

function missingUi(dir: string): Asset {
  const body = Buffer.from(
    '<!doctype html><meta charset="utf-8"><title>dashplane</title>' +
      `<p>The web UI is not built (no ${escapeHtml(join(dir, 'index.html'))}). Run <code>npm run build</code> and restart the server.` +
      '<p>The HTTP API is at <a href="/api/v1/projects">/api/v1</a>.',
  );
  return { body, type: 'text/html; charset=utf-8', etag: '"missing-ui"', cache: 'no-cache' };
}

/**
 * The page served under api_prefix: its root-relative links to its files (`src="/assets/..."`)
 * point under the prefix, and a `dashplane-prefix` meta element names it for the UI's scripts.
 */
function underPrefix(page: Asset, prefix: string): Asset {
  const html = page.body
    .toString('utf8')
    .replace(/(\s(?:src|href)=")\/(?!\/)/g, `$1${prefix}/`)
    .replace(/<head>/i, `<head>\n    <meta name="dashplane-prefix" content="${escapeHtml(prefix)}" />`);
  const body = Buffer.from(html);
  return { body, type: page.type, cache: page.cache, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
