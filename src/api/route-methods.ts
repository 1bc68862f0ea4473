/** A mounted route as the route table records it: its method(s) and URL template. */
interface RouteEntry {
  method: string | string[];
  url: string;
}

/**
 * The methods each path is served with, read from the route table once: what a 405 names in
 * `Allow` and what a CORS preflight answers in `Access-Control-Allow-Methods`. Templates
 * (`/api/v1/projects/:project/dashboards`, `/proxy/.../*`) match paths case-insensitively; the web
 * UI's catch-all (`/*`) says nothing about a path and is left out.
 */
export function routeMethods(table: readonly RouteEntry[]): (path: string) => string[] {
  let routes: { methods: Set<string>; pattern: RegExp }[] | undefined;
  return (path) => {
    routes ??= routePatterns(table);
    return [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]))].sort();
  };
}

function routePatterns(table: readonly RouteEntry[]): { methods: Set<string>; pattern: RegExp }[] {
  const byUrl = new Map<string, Set<string>>();
  for (const r of table) {
    if (r.url === '/*') continue;
    const methods = byUrl.get(r.url) ?? new Set<string>();
    for (const m of Array.isArray(r.method) ? r.method : [r.method]) methods.add(m);
    byUrl.set(r.url, methods);
  }
  return [...byUrl].map(([url, methods]) => {
    const body = url
      .replace(/\/+$/, '')
      .split('/')
      .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return { methods, pattern: new RegExp(`^${body}/?$`, 'i') };
  });
}
