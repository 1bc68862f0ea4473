import { Command, Option } from 'commander';
import { join } from 'node:path';
import { isApiError } from '../../src/errors.js';
import type { Dashboard, Datasource } from '../../src/kinds/generated/types.js';
import type { MigrationReport } from '../../src/migrate/report.js';
import type { MigrateOptions } from '../../src/migrate/dashboard.js';
import { SCHEMAS_DIR } from '../../src/paths.js';
import type { ApiClient } from '../api-client.js';
import { exits, type Env } from '../env.js';
import { withoutServerFields } from '../../src/lib/canonical.js';
import { CliError, describeError } from '../errors.js';
import { isObj } from '../../src/lib/is-obj.js';
import { readGrafanaFiles, type GrafanaFile } from '../grafana-files.js';
import { toYaml, yamlDocuments } from '../output.js';
import { collect } from './apply.js';

interface MigrateFlags {
  filename: string[];
  output: 'yaml' | 'json';
  project?: string;
  apply?: boolean;
  online?: boolean;
  datasource?: string;
  name?: string;
  input: string[];
  useDefaultDatasource?: boolean;
  verbose?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: a converted dashboard, read loosely like its Grafana source
type Migrated = { dashboard: Record<string, any>; report?: MigrationReport };

/** `--input DS_PROMETHEUS=prometheus` -> {DS_PROMETHEUS: 'prometheus'}. */
function inputMap(pairs: string[]): Record<string, string> | undefined {
  if (pairs.length === 0) return undefined;
  return Object.fromEntries(
    pairs.map((p) => {
      const m = /^([\w-]+)=(.*)$/s.exec(p);
      if (!m) throw new CliError(`--input "${p}": write KEY=VALUE, e.g. --input DS_PROMETHEUS=prometheus`);
      return [m[1], m[2]];
    }),
  );
}

/**
 * `dashctl migrate -f GRAFANA.json`: Grafana dashboards (files, directories, stdin; exports with
 * `__inputs`, `{dashboard}` API answers) to dashplane dashboards, printed as YAML or JSON, or
 * created in a project with `--apply`. The migration runs locally with the server's own code
 * (`--online`: POST /api/migrate). The report of every panel and variable goes to stderr.
 */
export function makeMigrateCommand(env: Env): Command {
  return new Command('migrate')
    .description('migrate Grafana dashboards to dashplane dashboards (report on stderr)')
    .requiredOption('-f, --filename <path>', 'Grafana dashboard JSON: file, directory or - for stdin (repeatable)', collect, [])
    .addOption(new Option('-o, --output <format>', 'format of the dashboards printed on stdout').choices(['yaml', 'json']).default('yaml'))
    .option('-p, --project <name>', 'project the dashboards are for: their names are made unique there (asks the server)')
    .option('--apply', 'create the dashboards in the project (--project or the default one) instead of printing them')
    .option('--online', 'migrate on the server (POST /api/migrate) instead of locally')
    .option('--datasource <name>', 'Prometheus datasource every query names (default: with a project, its default one; else none)')
    .option('--name <name>', 'name of the dashboard (a single input only; default: the Grafana uid or title)')
    .option('--input <KEY=VALUE>', 'value of an export input, e.g. DS_PROMETHEUS=prometheus (repeatable)', collect, [])
    .option('--use-default-datasource', 'name no datasource: every query uses the default of its kind')
    .option('-v, --verbose', 'report every element, also those that map as they are')
    .action(
      exits(env, async (flags: MigrateFlags) => {
        const ctx = env.ctx();
        const io = ctx.io;
        const files = await readGrafanaFiles(flags.filename, io);
        if (flags.name !== undefined && files.length > 1) throw new CliError(`--name names one dashboard, but ${files.length} were given`);
        const input = inputMap(flags.input);
        const project = flags.apply ? ctx.requiredProject(flags.project, 'Dashboard') : flags.project;
        const api = project || flags.online ? ctx.client() : undefined;
        const taken = project ? await dashboardNames(api!, project) : new Set<string>();
        // the migration and the plugin schemas load with this command, not with every dashctl run
        const [{ migrateGrafanaDashboard }, { formatReport }, { PluginRegistry }] = await Promise.all([
          import('../../src/migrate/dashboard.js'),
          import('../../src/migrate/report.js'),
          import('../../src/plugins/registry.js'),
        ]);
        const plugins = flags.online ? undefined : PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'));
        // in a project, queries name its default Prometheus datasource (the server does the same with --online)
        const notes: string[] = [];
        let datasource = flags.datasource;
        if (project && !flags.online && datasource === undefined && !flags.useDefaultDatasource) {
          datasource = await defaultPrometheus(api!, project);
          if (!datasource)
            notes.push(
              `project "${project}" has no default Prometheus datasource (nor is there a global one): the queries name none and fail until one is made the default`,
            );
        }
        const results: Migrated[] = [];
        let failed = 0;
        for (const f of files) {
          try {
            const options = { input, datasource, useDefaultDatasource: flags.useDefaultDatasource, project, name: flags.name };
            const m =
              api && flags.online
                ? await online(api, f, options)
                : migrateGrafanaDashboard(f.json, {
                    ...options,
                    notes,
                    source: 'the file',
                    takenNames: taken,
                    hasPlugin: (k) => plugins!.get(k) !== undefined,
                    inUi: (k) => plugins!.get(k)?.ui === true,
                  });
            taken.add(m.dashboard.metadata.name);
            results.push(m);
            io.err(
              `# ${f.label} -> Dashboard ${m.dashboard.metadata.name}\n${m.report ? formatReport(m.report, flags.verbose) : '(the server sent no report)\n'}`,
            );
          } catch (e) {
            failed++;
            io.err(`error: ${f.label}: ${isApiError(e) ? e.message : describeError(e)}\n`);
          }
        }
        if (flags.apply)
          failed += await create(
            api!,
            project!,
            results,
            (t) => io.out(t),
            (t) => io.err(t),
          );
        else if (results.length > 0) {
          const printed = results.map((r) => forGit(r.dashboard));
          io.out(
            flags.output === 'json'
              ? `${JSON.stringify(printed.length === 1 ? printed[0] : printed, null, 2)}\n`
              : printed.length === 1
                ? toYaml(printed[0])
                : yamlDocuments(printed),
          );
        }
        return failed > 0 ? 1 : 0;
      }),
    );
}

/**
 * A dashboard as it goes into Git: without what the server fills in when it stores it
 * (`createdAt`, `updatedAt` and `version`, which the migration sets to Perses' zero values) and
 * without an empty `project` (-p, or the manifest's directory, says where it goes).
 */
function forGit(dashboard: Record<string, unknown>): Record<string, unknown> {
  const out = withoutServerFields(dashboard);
  if (isObj(out.metadata) && !out.metadata.project) {
    const { project: _none, ...metadata } = out.metadata;
    out.metadata = metadata;
  }
  return out;
}

/** POST /api/migrate?report=true: dashplane answers {dashboard, report}, Perses the dashboard alone. */
async function online(
  api: ApiClient,
  f: GrafanaFile,
  o: Pick<MigrateOptions, 'input' | 'datasource' | 'useDefaultDatasource' | 'project' | 'name'>,
): Promise<Migrated> {
  const res = await api.call('POST', '/api/migrate', {
    query: { report: 'true', project: o.project, datasource: o.datasource, name: o.name },
    body: {
      grafanaDashboard: f.json,
      ...(o.input ? { input: o.input } : {}),
      ...(o.useDefaultDatasource ? { useDefaultDatasource: true } : {}),
    },
  });
  return res.body?.dashboard ? { dashboard: res.body.dashboard, report: res.body.report } : { dashboard: res.body };
}

/** The names of the project's dashboards (the project must exist). */
async function dashboardNames(api: ApiClient, project: string): Promise<Set<string>> {
  const exists = await api.request('GET', `/api/v1/projects/${encodeURIComponent(project)}`);
  if (exists.status === 404)
    throw new CliError(
      `project "${project}" does not exist: create it first (dashctl apply -f project.yaml), or pick another with --project`,
    );
  const res = await api.request('GET', `/api/v1/projects/${encodeURIComponent(project)}/dashboards`, { query: { metadata_only: 'true' } });
  if (res.status !== 200) throw new CliError(`cannot list the dashboards of project "${project}": ${res.body?.message ?? res.status}`);
  return new Set((res.body as Dashboard[]).map((d) => d.metadata.name));
}

/** The project's default Prometheus datasource, else the global default one; undefined when there is none. */
async function defaultPrometheus(api: ApiClient, project: string): Promise<string | undefined> {
  for (const path of [`/api/v1/projects/${encodeURIComponent(project)}/datasources`, '/api/v1/globaldatasources']) {
    const res = await api.request('GET', path, { query: { default: 'true' } });
    if (res.status !== 200) continue;
    const hit = (res.body as Datasource[]).find((d) => /^(Prometheus|Metrics)Datasource$/.test(d.spec?.plugin?.kind ?? ''));
    if (hit) return hit.metadata.name;
  }
  return undefined;
}

/** Creates each dashboard in the project; the number that failed. */
async function create(
  api: ApiClient,
  project: string,
  results: Migrated[],
  out: (t: string) => void,
  err: (t: string) => void,
): Promise<number> {
  let failed = 0;
  for (const { dashboard } of results) {
    const res = await api.request('POST', `/api/v1/projects/${encodeURIComponent(project)}/dashboards`, {
      body: { ...dashboard, metadata: { ...dashboard.metadata, project } },
    });
    if (res.status === 200) out(`Dashboard ${project}/${dashboard.metadata.name} created\n`);
    else {
      failed++;
      const details = (res.body?.details ?? []).map((d: { path: string; message: string }) => `\n  ${d.path}: ${d.message}`).join('');
      err(`error: Dashboard ${project}/${dashboard.metadata.name}: ${res.body?.message ?? res.status}${details}\n`);
    }
  }
  return failed;
}
