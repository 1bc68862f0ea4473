import type { ErrorDetail } from '../errors.js';
import { nameProblem } from '../lib/names.js';
import { joinPath } from '../lib/object-path.js';
import { isObj, type Obj } from '../lib/is-obj.js';

/** The proxy block of a datasource plugin spec, once `httpProxyProblems` found nothing wrong. */
export interface HTTPProxySpec {
  url: string;
  allowedEndpoints?: { endpointPattern: string; method: string }[];
  headers?: Record<string, string>;
  secret?: string;
}

/** How deep inside a plugin spec proxy blocks are looked for (the same limit for checking and using). */
const MAX_DEPTH = 8;
/** The methods an `allowedEndpoints` entry may name (the same set as Perses). */
const ENDPOINT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** An HTTP header name (RFC 9110 token). */
const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An HTTP header value: visible characters, spaces and tabs; no CR, LF, NUL or other controls. */
const HEADER_VALUE_RE = /^[\t\x20-\x7e\x80-\xff]*$/;

const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** Every `{kind: "HTTPProxy"}` object inside a plugin spec (blocks inside blocks too), breadth-first, with its path. */
function proxyBlocks(pluginSpec: unknown, base: string): { block: Obj; path: string }[] {
  const out: { block: Obj; path: string }[] = [];
  const queue: { v: unknown; path: string; depth: number }[] = [{ v: pluginSpec, path: base, depth: 0 }];
  for (let i = 0; i < queue.length; i++) {
    const { v, path, depth } = queue[i];
    if (!isObj(v) || depth > MAX_DEPTH) continue;
    if (v.kind === 'HTTPProxy') out.push({ block: v, path });
    for (const [k, child] of Object.entries(v)) queue.push({ v: child, path: joinPath(path, k), depth: depth + 1 });
  }
  return out;
}

/**
 * The proxy block `{kind: "HTTPProxy", spec}` of a plugin spec (Perses puts it at `proxy`), with
 * its path. Its fields have the types of `HTTPProxySpec` only when `httpProxyProblems` is empty:
 * callers check that first.
 */
export function findHTTPProxy(pluginSpec: unknown, base = 'spec.plugin.spec'): { spec: HTTPProxySpec; path: string } | undefined {
  const first = proxyBlocks(pluginSpec, base)[0];
  return first && isObj(first.block.spec) ? { spec: first.block.spec as unknown as HTTPProxySpec, path: first.path } : undefined;
}

/** An `allowedEndpoints` pattern as the proxy matches it: anchored on the whole path; undefined when it does not compile. */
export function endpointRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${pattern})$`);
  } catch {
    return undefined;
  }
}

/**
 * Every problem of the proxy block of a plugin spec, with its JSON path: at most one block; `url`
 * an absolute http(s) URL without credentials; `secret` absent or a resource name; `headers`
 * names and values that are valid HTTP; `allowedEndpoints` entries with a compilable pattern and
 * an upper-case method. Run before a save, and before the proxy authorizes or looks up anything.
 */
export function httpProxyProblems(pluginSpec: unknown, base = 'spec.plugin.spec'): ErrorDetail[] {
  const blocks = proxyBlocks(pluginSpec, base);
  if (blocks.length === 0) return [];
  const { block, path } = blocks[0];
  const out: ErrorDetail[] = blocks.slice(1).map((b) => ({ path: b.path, message: `a datasource has a single proxy block and one is already at ${path}; remove this one` }));
  const specPath = joinPath(path, 'spec');
  if (!isObj(block.spec)) return [...out, { path: specPath, message: `must be an object {"url": ..., "secret"?: ..., "headers"?: ..., "allowedEndpoints"?: ...}, not ${typeName(block.spec)}` }];
  const spec = block.spec;
  out.push(...urlProblems(spec.url, joinPath(specPath, 'url')));
  if (spec.secret !== undefined) out.push(...secretProblems(spec.secret, joinPath(specPath, 'secret')));
  if (spec.headers !== undefined) out.push(...headerProblems(spec.headers, joinPath(specPath, 'headers')));
  if (spec.allowedEndpoints !== undefined) out.push(...endpointProblems(spec.allowedEndpoints, joinPath(specPath, 'allowedEndpoints')));
  return out;
}

/** What an upstream URL setting is, for its messages: an example value, and where credentials go instead. */
export interface UrlSetting {
  example: string;
  credentials: string;
}

const DATASOURCE_URL: UrlSetting = { example: 'http://prometheus:9090', credentials: 'put credentials in a Secret and name it in spec.secret' };

/** Problems of a URL the proxy connects to: an absolute http(s) URL without a user or password. */
export function urlProblems(value: unknown, path: string, setting: UrlSetting = DATASOURCE_URL): ErrorDetail[] {
  if (typeof value !== 'string') return [{ path, message: `must be a string, an absolute URL such as ${setting.example} (got ${typeName(value)})` }];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [{ path, message: `must be an absolute URL such as ${setting.example}` }];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return [{ path, message: 'must use http or https' }];
  if (url.username || url.password) return [{ path, message: `must not contain a user or password; ${setting.credentials}` }];
  return [];
}

function secretProblems(value: unknown, path: string): ErrorDetail[] {
  const fix = 'the name of a Secret of the same project (a GlobalSecret for a GlobalDatasource), or leave "secret" out for no credentials';
  if (typeof value !== 'string') return [{ path, message: `must be a string, ${fix} (got ${typeName(value)})` }];
  const problem = nameProblem(value);
  return problem ? [{ path, message: `must be ${fix}: a name ${problem}` }] : [];
}

function headerProblems(value: unknown, path: string): ErrorDetail[] {
  if (!isObj(value)) return [{ path, message: `must be an object of header name -> value, e.g. {"X-Scope-OrgID": "tenant-1"} (got ${typeName(value)})` }];
  const out: ErrorDetail[] = [];
  for (const [name, v] of Object.entries(value)) {
    const p = joinPath(path, name);
    if (!TOKEN_RE.test(name)) out.push({ path: p, message: "is not a valid HTTP header name (letters, digits and !#$%&'*+.^_`|~- only)" });
    else if (typeof v !== 'string') out.push({ path: p, message: `must be a string (got ${typeName(v)})` });
    else if (!HEADER_VALUE_RE.test(v)) out.push({ path: p, message: 'must not contain control characters (CR, LF, NUL, ...)' });
  }
  return out;
}

function endpointProblems(value: unknown, path: string): ErrorDetail[] {
  if (!Array.isArray(value)) return [{ path, message: `must be an array of {"endpointPattern": "/api/v1/query", "method": "GET"} (got ${typeName(value)})` }];
  const out: ErrorDetail[] = [];
  value.forEach((e: unknown, i) => {
    const p = joinPath(path, i);
    if (!isObj(e)) return void out.push({ path: p, message: `must be an object {"endpointPattern": "/api/v1/query", "method": "GET"} (got ${typeName(e)})` });
    const pattern = e.endpointPattern;
    if (typeof pattern !== 'string' || pattern === '') out.push({ path: joinPath(p, 'endpointPattern'), message: 'must be a non-empty string, a regular expression matched against the whole path' });
    else if (!endpointRegExp(pattern)) out.push({ path: joinPath(p, 'endpointPattern'), message: 'is not a valid regular expression' });
    if (typeof e.method !== 'string' || !ENDPOINT_METHODS.includes(e.method)) out.push({ path: joinPath(p, 'method'), message: `must be one of ${ENDPOINT_METHODS.join(', ')} (upper case)` });
  });
  return out;
}

/** Names of the secrets the proxy blocks of these plugin specs use (every block, so none escapes a permission check). */
export function secretNames(...pluginSpecs: unknown[]): string[] {
  return pluginSpecs.flatMap((s) => proxyBlocks(s, '').map((b) => (isObj(b.block.spec) ? b.block.spec.secret : undefined))).filter((s): s is string => typeof s === 'string' && s !== '');
}
