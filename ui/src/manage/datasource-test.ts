import type { Resource } from '../api';
import type { KindUi } from '../kinds';

/** What a connection test found. */
export interface TestResult {
  ok: boolean;
  /** One line: what answered, or exactly what went wrong. */
  text: string;
  /** Not tried: the page may not make the call (a directUrl, under the page's connect-src 'self'). */
  untested?: boolean;
  /** The answer's status, when there was one. */
  status?: number;
  ms: number;
}

const enc = encodeURIComponent;

type Endpoint = { endpointPattern?: unknown; method?: unknown };
type HttpSpec = { kind?: string; spec?: { directUrl?: string; proxy?: { spec?: { allowedEndpoints?: Endpoint[] } } } };
type Probe = { method: string; path: string; body?: string; type?: string };

/**
 * How each kind of datasource is tested: its service's name, the calls a test may make (best first,
 * each one a call its Perses plugin makes, so the suggested allowedEndpoints let it through), and
 * what a working service answers.
 */
const TESTS: Record<string, { service: string; probes: readonly Probe[]; answered(body: unknown): boolean }> = {
  // the build information names the version; a query or the label names prove the rest
  PrometheusDatasource: {
    service: 'Prometheus',
    probes: [
      { method: 'GET', path: '/api/v1/status/buildinfo' },
      { method: 'GET', path: '/api/v1/query?query=1' },
      { method: 'POST', path: '/api/v1/query', body: 'query=1', type: 'application/x-www-form-urlencoded' },
      { method: 'GET', path: '/api/v1/labels' },
    ],
    answered: (b) => (b as { status?: string })?.status === 'success',
  },
  LokiDatasource: {
    service: 'Loki',
    probes: [{ method: 'GET', path: '/loki/api/v1/labels' }],
    answered: (b) => (b as { status?: string })?.status === 'success',
  },
  TempoDatasource: {
    service: 'Tempo',
    probes: [{ method: 'GET', path: '/api/v2/search/tags' }],
    answered: (b) => Array.isArray((b as { scopes?: unknown })?.scopes),
  },
  PyroscopeDatasource: {
    service: 'Pyroscope',
    probes: [{ method: 'POST', path: '/querier.v1.QuerierService/ProfileTypes', body: '{}', type: 'application/json' }],
    answered: (b) => typeof b === 'object' && b !== null && !('code' in b),
  },
};

/**
 * The call a test makes, through dashplane's proxy (for a directUrl, the call the page may not make): the first probe
 * the datasource's allowedEndpoints let through (matched whole, as the proxy does), else the first.
 */
export function testCall(kind: KindUi, r: Resource): (Probe & { url: string }) | undefined {
  const plugin = (r.spec as { plugin?: HttpSpec }).plugin;
  const how = plugin?.kind ? TESTS[plugin.kind] : undefined;
  if (!plugin || !how) return undefined;
  const base = plugin.spec?.directUrl
    ? plugin.spec.directUrl.replace(/\/+$/, '')
    : kind.scope === 'project'
      ? `/proxy/projects/${enc(r.metadata.project!)}/datasources/${enc(r.metadata.name)}`
      : `/proxy/globaldatasources/${enc(r.metadata.name)}`;
  const allowed = plugin.spec?.directUrl ? undefined : plugin.spec?.proxy?.spec?.allowedEndpoints;
  const probe =
    (Array.isArray(allowed) &&
      allowed.length > 0 &&
      how.probes.find((p) => allowed.some((e) => lets(e, p.method, p.path.split('?')[0])))) ||
    how.probes[0];
  return { ...probe, url: `${base}${probe.path}` };
}

/** The URL a test calls (undefined: the datasource cannot be tested here). */
export function testUrl(kind: KindUi, r: Resource): string | undefined {
  return testCall(kind, r)?.url;
}

function lets(e: Endpoint, method: string, path: string): boolean {
  if (typeof e.endpointPattern !== 'string' || typeof e.method !== 'string' || e.method.toUpperCase() !== method) return false;
  try {
    return new RegExp(`^(?:${e.endpointPattern})$`).test(path);
  } catch {
    return false;
  }
}

/**
 * Queries the saved datasource as the dashboards will (through the proxy, with a call its
 * allowedEndpoints let through): the service's version (or that it answered) on success, else
 * the status and the exact message of whoever answered (dashplane's proxy or the service), or the
 * network error.
 */
export async function testDatasource(kind: KindUi, r: Resource): Promise<TestResult> {
  const call = testCall(kind, r);
  const started = performance.now();
  if (!call)
    return {
      ok: false,
      text: `Only ${Object.values(TESTS)
        .map((t) => t.service)
        .join(', ')} datasources can be tested here.`,
      ms: 0,
    };
  const plugin = (r.spec as { plugin?: HttpSpec }).plugin!;
  const { service, answered } = TESTS[plugin.kind!];
  const directUrl = plugin.spec?.directUrl;
  if (directUrl) {
    // the browser would block the call before it leaves (connect-src 'self', src/api/static-routes.ts): say so rather than "No answer"
    return {
      ok: false,
      untested: true,
      ms: 0,
      text: `this page cannot call ${directUrl}: dashplane's Content-Security-Policy (connect-src 'self') lets its pages call only dashplane, so its web UI reaches datasources only through the proxy. The direct URL serves other clients; choose “Through dashplane (proxy)” to use and test it here.`,
    };
  }
  const { url } = call;
  let res: Response;
  try {
    res = await fetch(url, {
      method: call.method,
      credentials: 'same-origin',
      headers: { Accept: 'application/json', ...(call.type ? { 'Content-Type': call.type } : {}) },
      ...(call.body ? { body: call.body } : {}),
    });
  } catch (e) {
    return { ok: false, text: `No answer from ${url}: ${(e as Error).message}`, ms: Math.round(performance.now() - started) };
  }
  const ms = Math.round(performance.now() - started);
  const text = await res.text();
  let body: { status?: string; data?: { version?: string; revision?: string }; message?: string; error?: string } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (res.ok && answered(body) && body?.data?.version) {
    return {
      ok: true,
      status: res.status,
      ms,
      text: `${service} ${body.data.version}${body.data.revision ? ` (revision ${body.data.revision.slice(0, 12)})` : ''} answered in ${ms} ms.`,
    };
  }
  if (res.ok && answered(body))
    return { ok: true, status: res.status, ms, text: `${service} answered ${call.method} ${call.path} in ${ms} ms.` };
  const why = body?.message ?? body?.error ?? (text.trim().slice(0, 300) || res.statusText);
  return { ok: false, status: res.status, ms, text: `${res.status} ${res.statusText}: ${why}` };
}
