import type { ErrorDetail } from '../errors.js';
import { joinPath } from '../resources/object-path.js';

/** The proxy block of a datasource plugin spec (API.md §8). */
export interface HTTPProxySpec {
  url: string;
  allowedEndpoints?: { endpointPattern: string; method: string }[];
  headers?: Record<string, string>;
  secret?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The first `{kind: "HTTPProxy", spec}` inside a plugin spec (Perses puts it at `proxy`), with its path. */
export function findHTTPProxy(pluginSpec: unknown, base = 'spec.plugin.spec'): { spec: HTTPProxySpec; path: string } | undefined {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: pluginSpec, path: base, depth: 0 }];
  while (stack.length) {
    const { v, path, depth } = stack.shift()!;
    if (!isObj(v) || depth > 8) continue;
    if (v.kind === 'HTTPProxy' && isObj(v.spec)) return { spec: v.spec as unknown as HTTPProxySpec, path };
    for (const [k, child] of Object.entries(v)) stack.push({ v: child, path: joinPath(path, k), depth: depth + 1 });
  }
  return undefined;
}

/** Save-time rules of a proxy block: an absolute http(s) URL without credentials, compilable patterns. */
export function httpProxyProblems(pluginSpec: unknown, base = 'spec.plugin.spec'): ErrorDetail[] {
  const found = findHTTPProxy(pluginSpec, base);
  if (!found) return [];
  const out: ErrorDetail[] = [];
  const urlPath = `${found.path}.spec.url`;
  let url: URL | undefined;
  try {
    url = new URL(found.spec.url);
  } catch {
    out.push({ path: urlPath, message: 'must be an absolute URL such as http://prometheus:9090' });
  }
  if (url && url.protocol !== 'http:' && url.protocol !== 'https:') out.push({ path: urlPath, message: 'must use http or https' });
  if (url && (url.username || url.password)) out.push({ path: urlPath, message: 'must not contain a user or password; put credentials in a Secret and name it in spec.secret' });
  (found.spec.allowedEndpoints ?? []).forEach((e, i) => {
    try {
      new RegExp(e.endpointPattern);
    } catch {
      out.push({ path: `${found.path}.spec.allowedEndpoints[${i}].endpointPattern`, message: 'is not a valid regular expression' });
    }
  });
  return out;
}

/** Names of the secrets the proxy blocks of these plugin specs use. */
export function secretNames(...pluginSpecs: unknown[]): string[] {
  return pluginSpecs.map((s) => findHTTPProxy(s)?.spec.secret).filter((s): s is string => typeof s === 'string' && s !== '');
}
