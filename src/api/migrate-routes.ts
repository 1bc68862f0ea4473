import type { FastifyInstance } from 'fastify';
import { documented } from './route-doc.js';
import type { Principal } from '../access/authorizer.js';
import { ApiError, badRequest, isApiError } from '../errors.js';
import { specOf } from '../kinds/descriptor.js';
import type { Datasource } from '../kinds/generated/types.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { Offload } from './offload.js';
import type { PluginRegistry } from '../plugins/registry.js';
import type { ResourceService } from '../resources/service.js';
import { isObj } from '../lib/is-obj.js';

/** What the migrate route needs: the kinds (to list names and check datasources), the plugins, the service and the worker thread. */
export interface MigrateRouteOptions {
  registry: KindRegistry;
  plugins: PluginRegistry;
  service: ResourceService;
  offload: Offload;
}

/** Dashplane's additions to Perses' request, as query parameters (a body percli sends stays Perses' own). */
interface MigrateQuery {
  project?: string;
  datasource?: string;
  name?: string;
  report?: string;
}

/**
 * `POST /api/migrate` as Perses has it: body `{"grafanaDashboard": {...}, "input"?: {"DS_X": "..."},
 * "useDefaultDatasource"?: bool}`, answer the Perses Dashboard (nothing is stored). The migration
 * report comes as the `X-Migration-Summary` header (counts) and, with `?report=true`, as
 * `{dashboard, report}`; each panel and variable entry of the report says whether the web UI
 * draws it (`render`, from the catalog's `ui` flags), and what it would show as an error is
 * counted "unrendered", not "mapped". `?project=P` makes the name unique in P and sets metadata.project;
 * `?datasource=D` (default: the project's default Prometheus datasource) makes every Prometheus
 * query name D; `?name=N` names the dashboard.
 * With authentication on, only signed-in users may call it (Perses lets anyone).
 */
const MIGRATE_DOC = documented({
  tag: 'Migration',
  summary: 'Converts a Grafana dashboard into a Perses dashboard (nothing is stored)',
  description:
    "Perses' request and answer, so `percli migrate --online` works. Every Grafana panel becomes a panel (a Markdown placeholder naming the type when no plugin fits), every variable and query is mapped or reported; the report says per panel and variable whether the web UI draws it (`render`). With authentication on, a signed-in user is needed.",
  query: [
    { name: 'project', description: 'Target project: the name is made unique in it and metadata.project is set' },
    {
      name: 'datasource',
      description: "The datasource every Prometheus query names (default: the project's default Prometheus datasource)",
    },
    { name: 'name', description: 'The dashboard name (default: derived from the title or uid)' },
    {
      name: 'report',
      description:
        'true: answer {dashboard, report} with the whole migration report (with the web UI render verdict of each panel and variable)',
      type: 'boolean',
    },
  ],
  body: {
    description:
      '{"grafanaDashboard": <Grafana dashboard JSON, or an export wrapped in {"dashboard": ...}>, "input"?: {"DS_PROMETHEUS": "<datasource>"}, "useDefaultDatasource"?: boolean}',
    schema: {
      type: 'object',
      required: ['grafanaDashboard'],
      properties: {
        grafanaDashboard: { type: 'object' },
        input: { type: 'object', additionalProperties: { type: 'string' } },
        useDefaultDatasource: { type: 'boolean' },
      },
    },
  },
  responses: {
    200: {
      description: 'The Perses Dashboard (or {dashboard, report} with report=true)',
      schema: 'Dashboard',
      headers: {
        'X-Migration-Summary':
          'Counts of the report: panels mapped, approximated, unrendered (not drawn by the web UI) and replaced, variables, queries',
      },
    },
    400: { description: 'Not a Grafana dashboard, or a bad parameter' },
  },
});

export function registerMigrateRoutes(app: FastifyInstance, o: MigrateRouteOptions): void {
  app.post<{ Querystring: MigrateQuery }>('/api/migrate', MIGRATE_DOC, async (req, reply) => {
    const body = req.body;
    if (!isObj(body))
      throw badRequest(
        'send a JSON object: {"grafanaDashboard": <the Grafana dashboard JSON>, "input": {"DS_PROMETHEUS": "<datasource>"}}',
      );
    if (body.grafanaDashboard === undefined || body.grafanaDashboard === null)
      throw badRequest('grafanaDashboard cannot be empty: send {"grafanaDashboard": <the Grafana dashboard JSON>}');
    if (body.useDefaultDatasource !== undefined && typeof body.useDefaultDatasource !== 'boolean')
      throw badRequest('useDefaultDatasource must be true or false');
    const q = req.query;
    for (const key of ['project', 'datasource', 'name', 'report'] as const) {
      if (q[key] !== undefined && typeof q[key] !== 'string') throw badRequest(`the query parameter ${key} may be given once`);
    }
    const takenNames = q.project ? await namesIn(o, req.principal, q.project) : undefined;
    if (q.datasource !== undefined) await checkDatasource(o, req.principal, q.datasource, q.project);
    // in a project, queries name its default Prometheus datasource (so a later change of default does not move them)
    const notes: string[] = [];
    let datasource = q.datasource;
    if (q.project && datasource === undefined && body.useDefaultDatasource !== true) {
      datasource = await defaultPrometheus(o, req.principal, q.project);
      if (!datasource)
        notes.push(
          `project "${q.project}" has no default Prometheus datasource (nor is there a global one): the queries name none and fail until one is made the default`,
        );
    }
    // in the worker thread, which loads the migration code (two dozen modules) with the first one
    const { text, summary } = await o.offload.run(
      'migrate',
      {
        grafanaDashboard: body.grafanaDashboard,
        input: body.input,
        useDefaultDatasource: body.useDefaultDatasource === true,
        ...(datasource !== undefined ? { datasource } : {}),
        notes,
        ...(q.project !== undefined ? { project: q.project } : {}),
        ...(q.name !== undefined ? { name: q.name } : {}),
        ...(takenNames ? { takenNames: [...takenNames] } : {}),
        pluginKinds: o.plugins.all().map((p) => p.kind),
        uiKinds: o.plugins
          .all()
          .filter((p) => p.ui === true)
          .map((p) => p.kind),
        report: q.report === 'true',
      },
      `the Grafana dashboard took longer than ${o.offload.limit} to migrate (http.worker_timeout); migrate it in parts, or raise the limit`,
    );
    return reply.header('X-Migration-Summary', summary).type('application/json; charset=utf-8').send(text);
  });
}

/** The dashboard names of a project the caller may read (the project must exist). */
async function namesIn(o: MigrateRouteOptions, p: Principal, project: string): Promise<Set<string>> {
  try {
    await o.service.get(p, o.registry.projectKind, '', project);
  } catch (e) {
    if (isApiError(e) && e.reason === 'NotFound')
      throw new ApiError('NotFound', `project: there is no project "${project}"; create it first or pick an existing one (?project=...)`);
    throw e;
  }
  const names = new Set<string>();
  let continueToken: string | undefined;
  do {
    const page = await o.service.list(p, o.registry.requirePlural('dashboards'), {
      project,
      metadataOnly: true,
      ...(continueToken ? { continueToken } : {}),
    });
    for (const d of page.items) names.add(d.metadata.name);
    continueToken = page.continueToken;
  } while (continueToken);
  return names;
}

const isPrometheus = (o: MigrateRouteOptions, kind: unknown) =>
  typeof kind === 'string' && (o.plugins.get(kind)?.synonymOf ?? kind) === 'PrometheusDatasource';

/** The name of the project's default Prometheus datasource, else of the global default one (those the caller may read). */
async function defaultPrometheus(o: MigrateRouteOptions, p: Principal, project: string): Promise<string | undefined> {
  for (const [plural, scope] of [
    ['datasources', { project }],
    ['globaldatasources', {}],
  ] as const) {
    try {
      const page = await o.service.list(p, o.registry.requirePlural(plural), { ...scope, filters: { default: 'true' } });
      const hit = page.items.find((d) => isPrometheus(o, specOf<Datasource>(d)?.plugin?.kind));
      if (hit) return hit.metadata.name;
    } catch (e) {
      if (!isApiError(e) || e.reason !== 'Forbidden') throw e;
    }
  }
  return undefined;
}

/** `?datasource=D` must name a Prometheus datasource of the project, or a global one. */
async function checkDatasource(o: MigrateRouteOptions, p: Principal, name: string, project?: string): Promise<void> {
  const candidates = [...(project ? [{ plural: 'datasources', project }] : []), { plural: 'globaldatasources', project: '' }];
  for (const c of candidates) {
    try {
      const ds = await o.service.get(p, o.registry.requirePlural(c.plural), c.project, name);
      const kind = specOf<Datasource>(ds)?.plugin?.kind ?? '';
      if (!isPrometheus(o, kind))
        throw badRequest(`datasource: "${name}" is a ${kind} datasource; the migrated queries need a Prometheus one`);
      return;
    } catch (e) {
      if (!isApiError(e) || e.reason !== 'NotFound') throw e;
    }
  }
  throw badRequest(
    `datasource: there is no datasource "${name}"${project ? ` in project "${project}"` : ''} nor a global one; create it, or leave ?datasource out to use the project's default Prometheus datasource`,
  );
}
