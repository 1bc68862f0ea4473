import { Command } from 'commander';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Env } from '../env.js';
import { CliError } from '../errors.js';
import { objectPath, resolveKind } from '../kinds.js';
import { loadManifests } from '../manifests.js';
import { moduleCode } from '../codegen/module.js';
import { isObj, type Obj } from '../../src/lib/is-obj.js';
import { collect } from './apply.js';

interface GenerateFlags {
  filename: string[];
  fromServer?: string;
  project?: string;
  outputDir?: string;
  sdk: string;
}

/** A Grafana dashboard (or export) rather than a resource: no `kind`, but panels or rows. */
const isGrafana = (o: Obj): boolean =>
  typeof o.kind !== 'string' && (Array.isArray(o.panels) || Array.isArray(o.rows) || isObj(o.dashboard));

/**
 * `dashctl generate -f FILE` (or `--from-server KIND/NAME`): existing resources as TypeScript
 * using the SDK, which `dashctl build` turns back into the same resources. Grafana dashboards are
 * migrated first (the report goes to stderr). Prints one module, or with `--output-dir` writes
 * one `NAME.ts` per resource.
 */
export function makeGenerateCommand(env: Env): Command {
  return new Command('generate')
    .description('write existing resources (files, a server object, Grafana dashboards) as TypeScript with dashplane/sdk')
    .option('-f, --filename <path>', 'manifest or Grafana dashboard: file, directory or - for stdin (repeatable)', collect, [])
    .option('--from-server <kind/name>', 'an object read from the server, e.g. dashboard/overview (with -p for project kinds)')
    .option('-p, --project <name>', 'project of --from-server (default: the saved default project)')
    .option('--output-dir <dir>', 'write one NAME.ts per resource instead of printing one module')
    .option('--sdk <module>', 'the module the code imports the SDK from', 'dashplane/sdk')
    .action(async (flags: GenerateFlags) => {
      const io = env.io;
      if (!flags.fromServer && !flags.filename.length)
        throw new CliError('give -f FILE (a manifest or a Grafana dashboard) or --from-server KIND/NAME');
      const resources: Obj[] = [];
      if (flags.fromServer) resources.push(await fromServer(env, flags.fromServer, flags.project));
      if (flags.filename.length) {
        const loaded = await loadManifests(flags.filename, io);
        for (const s of loaded.skipped) io.err(`warning: ${s}\n`);
        for (const m of loaded.manifests) resources.push(isGrafana(m.object) ? await migrated(m.object, m.file, io.err) : m.object);
      }
      if (!flags.outputDir) return io.out(moduleCode(resources, flags.sdk));
      const dir = resolve(io.cwd, flags.outputDir);
      mkdirSync(dir, { recursive: true });
      const names = new Set<string>();
      for (const r of resources) {
        const name = String((r.metadata as Obj | undefined)?.name ?? r.kind);
        if (names.has(name)) throw new CliError(`two resources are named "${name}"; generate them into separate directories`);
        names.add(name);
        writeFileSync(join(dir, `${name}.ts`), moduleCode([r], flags.sdk));
      }
      io.out(`wrote ${names.size} file(s) to ${flags.outputDir}\n`);
    });
}

async function fromServer(env: Env, ref: string, projectFlag: string | undefined): Promise<Obj> {
  const m = /^([^/]+)\/(.+)$/.exec(ref);
  if (!m) throw new CliError(`--from-server "${ref}": write KIND/NAME, e.g. --from-server dashboard/overview`);
  const ctx = env.ctx();
  const d = resolveKind(m[1]);
  const { body } = await ctx.client().call('GET', objectPath(d, m[2], ctx.projectFor(d, projectFlag)));
  return body as Obj;
}

/** A Grafana dashboard migrated with the server's own code; the report to stderr. */
async function migrated(grafana: Obj, file: string, err: (t: string) => void): Promise<Obj> {
  const [{ migrateGrafanaDashboard }, { formatReport }] = await Promise.all([
    import('../../src/migrate/dashboard.js'),
    import('../../src/migrate/report.js'),
  ]);
  const result = migrateGrafanaDashboard(grafana, { source: file });
  err(`# ${file}: Grafana dashboard migrated first\n${formatReport(result.report, false)}`);
  return result.dashboard as Obj;
}
