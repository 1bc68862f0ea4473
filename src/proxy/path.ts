import { ApiError, badRequest } from '../errors.js';
import { trimRuns } from '../lib/trim-runs.js';

/**
 * A request target in origin form: `/path?query` as it came, or the path and query of an
 * absolute-form target (`http://host/path?query`, RFC 9112 §3.2.2), cut where the router cuts
 * it (the authority ends at the first "/" or "?"), so the route and the proxied path agree.
 */
function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const m = /^https?:\/\/[^/?#]+/i.exec(target);
  if (!m || target.includes('#')) throw badRequest('the request target must be a path ("/proxy/...") or an absolute http(s) URL');
  const rest = target.slice(m[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * The parts of a proxy request target after the first `skip` path segments (the route up to the
 * datasource name): the raw (still encoded) suffix, "" or starting with "/", and the query.
 */
export function splitTarget(target: string, skip: number): { suffix: string; query: string } {
  const [pathPart, query = ''] = originForm(target).split(/\?(.*)/s, 2);
  const rest = pathPart.split('/').slice(skip);
  return { suffix: rest.length ? `/${rest.join('/')}` : '', query };
}

/**
 * The part of a proxy request URL after the datasource name, checked so it cannot leave the
 * datasource's base path: every segment is percent-decoded once and may not be `.`, `..`, or hold
 * a slash or backslash (`/..%2f`, `%2e%2e`, `..%5c` all refused with 400).
 */
export function proxySuffix(rawSuffix: string): { raw: string; decoded: string } {
  if (rawSuffix !== '' && !rawSuffix.startsWith('/')) throw badRequest('the proxied path must start with "/"');
  const segments = rawSuffix.split('/').slice(1);
  const decoded: string[] = [];
  for (const seg of segments) {
    let d: string;
    try {
      d = decodeURIComponent(seg);
    } catch {
      throw badRequest('the proxied path has a malformed percent-encoding');
    }
    if (d === '.' || d === '..' || d.includes('/') || d.includes('\\') || d.includes('\0')) {
      throw badRequest('the proxied path may not contain "." or ".." segments or encoded slashes: it must stay under the datasource URL');
    }
    decoded.push(d);
  }
  return { raw: rawSuffix, decoded: segments.length ? `/${decoded.join('/')}` : '' };
}

/**
 * The upstream URL: the datasource URL's path, then the checked suffix; its query string (a
 * tenant, an API version), then the caller's, as Perses' reverse proxy joins them.
 */
export function upstreamUrl(base: string, suffix: string, query: string): URL {
  const url = new URL(base);
  const basePath = trimRuns(url.pathname, '/', { start: false });
  url.pathname = basePath + suffix;
  const own = url.search.replace(/^\?/, '');
  const asked = query.replace(/^\?/, '');
  url.search = own && asked ? `${own}&${asked}` : own + asked;
  if (!url.pathname.startsWith(basePath)) throw new ApiError('BadRequest', 'the proxied path leaves the datasource URL');
  return url;
}
