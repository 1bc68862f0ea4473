import type { ApiClient } from './api-client.js';

// biome-ignore lint/suspicious/noExplicitAny: objects of any kind as the server sent them
type Obj = Record<string, any>;

/** Items per page when listing (the server pages with `limit` + a `Link: rel="next"` header). */
const PAGE = 500;

/** Every item of a list route, following `Link: <...>; rel="next"` pages. */
export async function listAll(api: ApiClient, path: string, query: Record<string, string | boolean | undefined> = {}): Promise<Obj[]> {
  const items: Obj[] = [];
  let next: string | undefined = path;
  let q: Record<string, string | number | boolean | undefined> = { ...query, limit: PAGE };
  while (next) {
    const res = await api.call<Obj[]>('GET', next, { query: q });
    if (!Array.isArray(res.body)) throw new Error(`GET ${next}: expected a JSON array`);
    items.push(...res.body);
    const link = nextLink(res.headers.get('link'));
    if (!link) break;
    // The server names the next page by its own path and query (`/api/v1/...?...&continue=T`).
    const u = new URL(link, 'http://server');
    next = u.pathname;
    q = Object.fromEntries(u.searchParams.entries());
  }
  return items;
}

function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1];
  }
  return undefined;
}
