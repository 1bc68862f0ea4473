import { badRequest, forbidden } from '../errors.js';
import { endpointRegExp, type HTTPProxySpec } from './http-proxy.js';
import { findProxy, proxyProblems } from './proxy-block.js';
import type { AlignKind } from './align.js';
import type { SQLProxySpec } from './sql/sql-proxy-spec.js';

/** A datasource spec as the proxy reads it. */
export interface DatasourceSpec {
  plugin?: { kind?: string; spec?: Record<string, unknown> };
}

/** An `allowedEndpoints` entry, its pattern compiled (anchored on the whole decoded path). */
interface AllowedEndpoint {
  method: string;
  pattern: RegExp;
}

/** A read-only query call of the datasource's kind (its plugin's catalog entry), its pattern compiled. */
export interface QueryRule {
  method: string;
  pattern: RegExp;
  align?: AlignKind;
}

/** A query call as a datasource kind declares it (schemas/plugins/catalog.json `queries`). */
export interface QueryEndpoint {
  method: string;
  endpointPattern: string;
  align?: AlignKind;
}

/** What the HTTP proxy needs of one datasource: its checked HTTPProxy block, its compiled endpoint rules. */
export interface HttpPlan {
  kind: 'HTTPProxy';
  proxy: HTTPProxySpec;
  /** Undefined or empty: every method and path may go through. */
  allowed?: readonly AllowedEndpoint[];
  /** What the answers depend on besides the request: the URL, the configured headers, the Secret's name. */
  upstream: string;
  /** The read-only query calls of the datasource's plugin kind (none: only GETs are shared, as they come). */
  queries: readonly QueryRule[];
}

/** What the SQL proxy needs of one datasource: its checked SQLProxy block. */
export interface SqlPlan {
  kind: 'SQLProxy';
  proxy: SQLProxySpec;
}

/** What the proxy needs of one datasource, worked out once from its spec; `kind` says which proxy serves it. */
export type ProxyPlan = HttpPlan | SqlPlan;

/**
 * The plan of a datasource spec: its proxy block checked (objects stored before a rule existed
 * may hold shapes it refuses: nothing is used before this), its endpoint patterns compiled.
 * Throws the 400 a request through it gets when the block is invalid or missing.
 */
export function proxyPlan(
  name: string,
  spec: DatasourceSpec,
  queriesOf: (pluginKind: string) => readonly QueryEndpoint[] | undefined = () => undefined,
): ProxyPlan {
  const problems = proxyProblems(spec.plugin?.spec);
  if (problems.length) throw badRequest(`the datasource's proxy block is not valid: ${problems[0].path}: ${problems[0].message}`, problems);
  const found = findProxy(spec.plugin?.spec);
  if (!found) {
    throw badRequest(
      spec.plugin?.spec?.directUrl
        ? `datasource "${name}" has only a directUrl: clients query it directly, not through dashplane; give it a proxy block ({kind: HTTPProxy, spec: {url}}) to use the proxy`
        : `datasource "${name}" has no proxy block ({kind: HTTPProxy, spec: {url}}, or {kind: SQLProxy, spec: {driver, host, database}}) in spec.plugin.spec`,
    );
  }
  if (found.kind === 'SQLProxy') return { kind: 'SQLProxy', proxy: found.spec };
  const { url, headers, secret, allowedEndpoints: rules } = found.spec;
  const kind = spec.plugin?.kind;
  const queries = (typeof kind === 'string' ? queriesOf(kind) : undefined) ?? [];
  // proxyProblems refused any pattern that does not compile (and the catalog's are tested)
  return {
    kind: 'HTTPProxy',
    proxy: found.spec,
    ...(rules?.length ? { allowed: rules.map((r) => ({ method: r.method, pattern: endpointRegExp(r.endpointPattern)! })) } : {}),
    upstream: JSON.stringify([url, headers ?? null, secret ?? null]),
    queries: queries.map((q) => ({
      method: q.method,
      pattern: endpointRegExp(q.endpointPattern)!,
      ...(q.align ? { align: q.align } : {}),
    })),
  };
}

/** The query rule of the datasource's kind a call matches (same rule as allowedEndpoints: exact method, whole decoded path). */
export function queryRule(plan: HttpPlan, method: string, decodedPath: string): QueryRule | undefined {
  for (const r of plan.queries) if (r.method === method && r.pattern.test(decodedPath)) return r;
  return undefined;
}

/** `allowedEndpoints`, when present: exact method and a pattern matching the whole decoded path (403 otherwise). */
export function checkAllowed(plan: HttpPlan, method: string, decodedPath: string): void {
  if (!plan.allowed?.length) return;
  for (const r of plan.allowed) if (r.method === method && r.pattern.test(decodedPath)) return;
  throw forbidden(`${method} ${decodedPath || '/'} is not among this datasource's allowedEndpoints`);
}

/**
 * What the proxy works out of a stored object (a datasource's plan, a Secret's credentials), kept
 * by the object it was read as. Stores hand out the same text object while the stored object is
 * unchanged (their cache of texts read lately), so a request does not parse the holder (a whole
 * dashboard, for a dashboard's own datasource), check and compile its proxy block or decrypt its
 * Secret again. A change is a new text, hence a new value; old ones go with their texts.
 */
export class DerivedCache<T> {
  private readonly values = new WeakMap<object, Map<string, T>>();

  /**
   * The value for `key` (a datasource name in a dashboard; '' when an object has one) derived
   * from `source` by `make` the first time; not kept when `keep` says so (e.g. it read files).
   */
  get(source: object, key: string, make: () => T, keep: (value: T) => boolean = () => true): T {
    let byKey = this.values.get(source);
    const found = byKey?.get(key);
    if (found !== undefined) return found;
    const value = make();
    if (!keep(value)) return value;
    if (!byKey) {
      byKey = new Map();
      this.values.set(source, byKey);
    }
    byKey.set(key, value);
    return value;
  }
}
