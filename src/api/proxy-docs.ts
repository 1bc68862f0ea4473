/** The OpenAPI descriptions of the datasource proxy routes (src/api/proxy-routes.ts). */
import type { RouteDoc } from './route-doc.js';

/** A route family: which kind holds the datasource and where the suffix starts in the path. */
export interface Family {
  path: string;
  plural: string;
  /** Index of the first path segment after the datasource name. */
  suffixAt: number;
  /** A boolean server configuration key that turns the family off (its kind's own disabledBy also does). */
  offWhen?: string;
}

const PROXY_PARAMS: Record<string, string> = {
  project: 'The project',
  dashboard: 'The dashboard holding the datasource in spec.datasources',
  name: 'The datasource',
  path: 'The rest of the path, appended to the datasource URL',
};

/** A proxy route in the OpenAPI document. */
export function proxyDoc(f: Family): RouteDoc {
  return {
    tag: 'Proxy',
    summary: `Forwards the request to the ${f.plural === 'globaldatasources' ? 'global datasource' : f.plural === 'dashboards' ? "dashboard's own datasource" : 'datasource'}'s URL, with the credentials of its Secret`,
    description:
      'Any method; the path after the datasource name and the query string are appended to the datasource URL; bodies are streamed both ways. An SQL datasource (SQLProxy) takes `POST {"query": "<one statement>"}` instead and answers `{"columns": [{"name", "type"}], "rows": [...]}` (and `truncated` when a cap cut it). Needs `read` on the datasource kind. See docs/api.md, "Datasources and the proxy".',
    params: PROXY_PARAMS,
    body: { description: 'Passed to the upstream as it is', types: ['*/*'] },
    responses: {
      200: {
        description:
          "The upstream's answer (any status), with Content-Security-Policy: sandbox, nosniff and Cross-Origin-Resource-Policy: same-origin; a type that is not a data type (HTML, SVG, XML, JavaScript, CSS, unknown) is answered as application/octet-stream with Content-Disposition: attachment",
        type: '*/*',
      },
      403: {
        description:
          "The caller may not read the datasource, or its URL (or its Secret's oauth.tokenURL) points to a denied address (proxy.denied_networks; loopback with auth on unless proxy.allow_loopback)",
        schema: 'Error',
      },
      405: { description: 'An SQL datasource asked with another method than POST', schema: 'Error' },
      502: {
        description:
          "Upstream refused or reset the connection, or the OAuth token endpoint refused the Secret's client credentials; for an SQL datasource, the database refused the login or failed",
        schema: 'Error',
      },
      503: { description: 'Too many proxied requests in flight (proxy.max_concurrent)', schema: 'Error' },
      504: { description: 'No response headers within proxy.timeout; an SQL query ran past proxy.sql.statement_timeout', schema: 'Error' },
      508: { description: 'The request already went through a dashplane proxy', schema: 'Error' },
    },
  };
}

/** A connection test of a datasource being edited, in the OpenAPI document. */
export function unsavedDoc(f: Family): RouteDoc {
  return {
    tag: 'Proxy',
    summary: `Proxies a request through a ${f.plural === 'dashboards' ? 'dashboard datasource' : 'datasource'} that is not saved yet (Perses' connection test)`,
    description: 'Needs the permission to save that datasource and to read the Secret it names.',
    params: PROXY_PARAMS,
    body: {
      description: '`{method, spec, body?}`: the datasource spec and the request to send',
      schema: {
        type: 'object',
        required: ['spec'],
        properties: { method: { type: 'string' }, spec: { $ref: '#/components/schemas/DatasourceSpec' }, body: { type: 'string' } },
      },
      required: true,
    },
    responses: { 200: { description: "The upstream's answer (any status)", type: '*/*' } },
  };
}
