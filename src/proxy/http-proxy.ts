import type { ErrorDetail } from '../errors.js';
import { nameProblem } from '../lib/names.js';
import { joinPath } from '../lib/object-path.js';
import { isObj } from '../lib/is-obj.js';

/** The proxy block of a datasource plugin spec, once `httpProxySpecProblems` found nothing wrong. */
export interface HTTPProxySpec {
  url: string;
  allowedEndpoints?: { endpointPattern: string; method: string }[];
  headers?: Record<string, string>;
  secret?: string;
}

/** The methods an `allowedEndpoints` entry may name (the same set as Perses). */
const ENDPOINT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** An HTTP header name (RFC 9110 token). */
const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An HTTP header value: visible characters, spaces and tabs; no CR, LF, NUL or other controls. */
const HEADER_VALUE_RE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** How a JSON value is named in messages: "a string", "an object", "null". */
export const typeName = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** An `allowedEndpoints` pattern as the proxy matches it: anchored on the whole path; undefined when it does not compile. */
export function endpointRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${pattern})$`);
  } catch {
    return undefined;
  }
}

/**
 * Every problem of the `spec` of an HTTPProxy block (at `specPath`), with its JSON path: `url` an
 * absolute http(s) URL without credentials; `secret` absent or a resource name; `headers` names and
 * values that are valid HTTP; `allowedEndpoints` entries with a compilable pattern and an
 * upper-case method. When it is empty the spec has the types of `HTTPProxySpec`.
 */
export function httpProxySpecProblems(spec: unknown, specPath: string): ErrorDetail[] {
  if (!isObj(spec))
    return [
      {
        path: specPath,
        message: `must be an object {"url": ..., "secret"?: ..., "headers"?: ..., "allowedEndpoints"?: ...}, not ${typeName(spec)}`,
      },
    ];
  const out = urlProblems(spec.url, joinPath(specPath, 'url'));
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

const DATASOURCE_URL: UrlSetting = {
  example: 'http://prometheus:9090',
  credentials: 'put credentials in a Secret and name it in spec.secret',
};

/** Problems of a URL the proxy connects to: an absolute http(s) URL without a user or password. */
export function urlProblems(value: unknown, path: string, setting: UrlSetting = DATASOURCE_URL): ErrorDetail[] {
  if (typeof value !== 'string')
    return [{ path, message: `must be a string, an absolute URL such as ${setting.example} (got ${typeName(value)})` }];
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

/** Problems of a proxy block's `secret`: absent is fine (checked by the caller), else a resource name. */
export function secretProblems(value: unknown, path: string): ErrorDetail[] {
  const fix = 'the name of a Secret of the same project (a GlobalSecret for a GlobalDatasource), or leave "secret" out for no credentials';
  if (typeof value !== 'string') return [{ path, message: `must be a string, ${fix} (got ${typeName(value)})` }];
  const problem = nameProblem(value);
  return problem ? [{ path, message: `must be ${fix}: a name ${problem}` }] : [];
}

function headerProblems(value: unknown, path: string): ErrorDetail[] {
  if (!isObj(value))
    return [{ path, message: `must be an object of header name -> value, e.g. {"X-Scope-OrgID": "tenant-1"} (got ${typeName(value)})` }];
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
  if (!Array.isArray(value))
    return [{ path, message: `must be an array of {"endpointPattern": "/api/v1/query", "method": "GET"} (got ${typeName(value)})` }];
  const out: ErrorDetail[] = [];
  value.forEach((e: unknown, i) => {
    const p = joinPath(path, i);
    if (!isObj(e))
      return void out.push({
        path: p,
        message: `must be an object {"endpointPattern": "/api/v1/query", "method": "GET"} (got ${typeName(e)})`,
      });
    const pattern = e.endpointPattern;
    if (typeof pattern !== 'string' || pattern === '')
      out.push({
        path: joinPath(p, 'endpointPattern'),
        message: 'must be a non-empty string, a regular expression matched against the whole path',
      });
    else if (!endpointRegExp(pattern)) out.push({ path: joinPath(p, 'endpointPattern'), message: 'is not a valid regular expression' });
    if (typeof e.method !== 'string' || !ENDPOINT_METHODS.includes(e.method))
      out.push({ path: joinPath(p, 'method'), message: `must be one of ${ENDPOINT_METHODS.join(', ')} (upper case)` });
  });
  return out;
}
