import { createRequire } from 'node:module';

/**
 * The Prometheus client of `@perses-dev/prometheus-plugin` (`model/prometheus-client.js`), the code
 * the web UI's panels query with, called from Node with a proxy URL as the datasource URL: its
 * range query is `POST /api/v1/query_range` with a form body.
 */
const client = createRequire(import.meta.url)('@perses-dev/prometheus-plugin/lib/cjs/model/prometheus-client.js') as {
  rangeQuery(
    params: Record<string, unknown>,
    o: { datasourceUrl: string; headers: Record<string, string> },
  ): Promise<{ status: string; data: unknown; rawResponse: Response }>;
};

/** A range query as a viewer's browser sends it, and what it got back. */
export interface ViewerQuery {
  query: string;
  start: number;
  end: number;
  step: number;
}

/** Sends one range query the way a Perses panel does; resolves with the answer and its X-Dashplane-Cache. */
export async function panelQuery(
  datasourceUrl: string,
  headers: Record<string, string>,
  q: ViewerQuery,
): Promise<{ body: { status: string; data: unknown }; cache: string | null }> {
  const r = await client.rangeQuery({ query: q.query, start: q.start, end: q.end, step: q.step }, { datasourceUrl, headers });
  return { body: { status: r.status, data: r.data }, cache: r.rawResponse.headers.get('x-dashplane-cache') };
}

/**
 * The window of a viewer whose clock reads `nowMs`, as the Perses plugin computes it
 * (`getPrometheusTimeRange`: start and end rounded up to the second; no alignment of its own
 * here, as issue 38 describes the browsers).
 */
export function viewerWindow(nowMs: number, durationS: number): { start: number; end: number } {
  const end = Math.ceil(nowMs / 1000);
  return { start: end - durationS, end };
}

/** The variables of the Perses Demo dashboard as a viewer of the node exporter picks them. */
const DEMO_VARIABLES: Record<string, string> = { job: 'node', instance: '.+', interval: '1m' };

/**
 * The panel queries of a Perses dashboard (`spec.panels[].spec.queries[]`), its variables replaced
 * by `variables` (by default those of the Demo dashboard the UI tests draw), in panel order.
 */
export function panelQueries(
  dashboard: { spec: { panels: Record<string, { spec: { queries?: { spec: { plugin: { spec: { query?: string } } } }[] } }> } },
  variables = DEMO_VARIABLES,
): string[] {
  const out: string[] = [];
  for (const panel of Object.values(dashboard.spec.panels)) {
    for (const q of panel.spec.queries ?? []) {
      const text = q.spec.plugin.spec.query;
      if (typeof text === 'string' && text !== '') out.push(text.replace(/\$\{?(\w+)\}?/g, (all, name: string) => variables[name] ?? all));
    }
  }
  return out;
}
