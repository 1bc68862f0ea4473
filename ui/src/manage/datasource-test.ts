import type { Resource } from '../api';
import type { KindUi } from './kinds';

/** What a connection test found. */
export interface TestResult {
  ok: boolean;
  /** One line: what answered, or exactly what went wrong. */
  text: string;
  /** The answer's status, when there was one. */
  status?: number;
  ms: number;
}

const enc = encodeURIComponent;

/** The call a test makes: Prometheus' build information, through dashplane's proxy (or directly for a directUrl). */
export function testUrl(kind: KindUi, r: Resource): string | undefined {
  const spec = (r.spec as { plugin?: { kind?: string; spec?: { directUrl?: string } } }).plugin;
  if (spec?.kind !== 'PrometheusDatasource') return undefined;
  if (spec.spec?.directUrl) return `${spec.spec.directUrl.replace(/\/+$/, '')}/api/v1/status/buildinfo`;
  const base = kind.scope === 'project' ? `/proxy/projects/${enc(r.metadata.project!)}/datasources/${enc(r.metadata.name)}` : `/proxy/globaldatasources/${enc(r.metadata.name)}`;
  return `${base}/api/v1/status/buildinfo`;
}

/**
 * Queries the saved datasource as the dashboards will (GET /api/v1/status/buildinfo through the
 * proxy): the Prometheus version on success, else the status and the exact message of whoever
 * answered (dashplane's proxy or Prometheus), or the network error.
 */
export async function testDatasource(kind: KindUi, r: Resource): Promise<TestResult> {
  const url = testUrl(kind, r);
  const started = performance.now();
  if (!url) return { ok: false, text: 'Only Prometheus datasources can be tested here.', ms: 0 };
  let res: Response;
  try {
    res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
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
  if (res.ok && body?.status === 'success' && body.data?.version) {
    return { ok: true, status: res.status, ms, text: `Prometheus ${body.data.version}${body.data.revision ? ` (revision ${body.data.revision.slice(0, 12)})` : ''} answered in ${ms} ms.` };
  }
  const why = body?.message ?? body?.error ?? (text.trim().slice(0, 300) || res.statusText);
  return { ok: false, status: res.status, ms, text: `${res.status} ${res.statusText}: ${why}` };
}
