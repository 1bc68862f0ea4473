import type { ApiClient } from './api-client.js';

// biome-ignore lint/suspicious/noExplicitAny: objects of any kind as the server sent them
type Obj = Record<string, any>;

/** The end of the server's (and Perses') message for a project that does not exist: a create into it, a list under it. */
export const PROJECT_MISSING = /metadata\.project "([^"]*)" doesn't exist$/;

/** Whether `e` is the 400 a server answers for a project that does not exist (a list under it, since dashplane 0.x as Perses does). */
export function isProjectMissing(e: unknown): boolean {
  const err = e as { status?: number; message?: unknown };
  return err.status === 400 && PROJECT_MISSING.test(String(err.message));
}

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
