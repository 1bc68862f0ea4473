import { Command, Option } from 'commander';
import { resolve } from 'node:path';
import { toHttpError } from '../api-client.js';
import { exits, type Env } from '../env.js';
import type { HttpError } from '../errors.js';
import { loadManifests, where, type Loaded } from '../manifests.js';
import { paint } from '../output.js';
import { mapPool } from '../pool.js';
import { describeFailure, resolveTargets, type Target } from '../targets.js';
import { datasourceWarnings, warningLine, type DatasourceWarning } from '../datasource-check.js';
import { isObj } from '../../src/lib/is-obj.js';
import { collect } from './apply.js';

/** How resources are checked: offline with the server's code, or `online` by the server. */
export interface CheckFlags {
  online?: boolean | undefined;
  pluginSchemasDir?: string | undefined;
  secretFilesDir?: string | undefined;
  verbose?: boolean | undefined;
  output: 'text' | 'json';
}

interface LintFlags extends CheckFlags {
  filename: string[];
}

/**
 * `dashctl lint -f PATH`: every resource checked with the server's own schemas and semantic rules,
 * offline (the server code, reused) or `--online` (POST /api/validate/<plural>). Exit 1 when any
 * resource is invalid. A datasource a dashboard asks for that will not exist is a warning, which
 * never changes the exit code: online, against the server's datasources and the input's; offline,
 * only where the input holds the datasources of every scope that could answer it.
 */
export function makeLintCommand(env: Env): Command {
  return new Command('lint')
    .description('validate resources offline with the same schemas and checks as the server (--online: ask the server)')
    .requiredOption('-f, --filename <path>', 'file, directory or - for stdin (repeatable)', collect, [])
    .option('--online', 'validate with the server (POST /api/validate/<plural>) instead')
    .option('--plugin-schemas-dir <dir>', "extra plugin schemas, as the server's plugin.schemas_dir")
    .option('--secret-files-dir <dir>', "as the server's security.secret_files_dir (*File secret fields)")
    .option('-v, --verbose', 'also list the valid resources')
    .addOption(
      new Option('-o, --output <format>', 'text, or json: [{file, index, kind, name, valid, message?, details?, warnings?}]')
        .choices(['text', 'json'])
        .default('text'),
    )
    .action(exits(env, async (flags: LintFlags) => checkResources(env, await loadManifests(flags.filename, env.io), flags)));
}

/**
 * Checks loaded resources and reports each invalid one with its file and line (for resources
 * built from TypeScript, the line of the code that made the value); answers the exit code, 1 when
 * any is invalid. `lint` and `build --check` share it.
 */
export async function checkResources(env: Env, loaded: Loaded, flags: CheckFlags): Promise<number> {
  const io = env.io;
  for (const s of loaded.skipped) io.err(`warning: ${s}\n`);
  const { targets, unresolved } = resolveTargets(loaded.manifests, {}, false);
  for (const u of unresolved) io.err(`${where(u.m)}: ${u.message}\n`);
  const check = flags.online ? online(env) : offline(flags, io.cwd);
  const errors = await mapPool(targets, 16, async (t) => check(t));
  const warnings = await datasourceWarnings(
    targets.filter((_t, i) => !errors[i]),
    flags.online
      ? { api: env.ctx().client() }
      : { plugins: (await import('../offline-validator.js')).pluginEntriesOf(flags.pluginSchemasDir) },
  );
  const warningsOf = (t: Target) =>
    warnings.filter((w) => w.target === t).map((w: DatasourceWarning) => ({ path: w.path, message: w.message }));
  if (flags.output === 'json') {
    const report = [
      ...unresolved.map((u) => ({
        file: u.m.file,
        index: u.m.index,
        kind: u.m.object.kind,
        name: isObj(u.m.object.metadata) ? u.m.object.metadata.name : undefined,
        valid: false,
        message: u.message,
        details: [],
      })),
      ...targets.map((t, i) => ({
        file: t.m.file,
        index: t.m.index,
        kind: t.d.kind,
        name: t.name,
        valid: !errors[i],
        ...(errors[i] ? { message: errors[i]!.message, details: errors[i]!.details } : {}),
        ...(warningsOf(t).length ? { warnings: warningsOf(t) } : {}),
      })),
    ];
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    return report.some((r) => !r.valid) ? 1 : 0;
  }
  let invalid = unresolved.length;
  targets.forEach((t, i) => {
    const e = errors[i];
    if (e) {
      invalid++;
      io.err(`${describeFailure(t, e)}\n`);
    } else if (flags.verbose) {
      io.out(`${where(t.m)} ${t.label} ${paint(io.colour, 'green', 'valid')}\n`);
    }
  });
  for (const w of warnings) io.err(warningLine(w));
  const total = targets.length + unresolved.length;
  io.out(
    `${total} resource(s) checked${flags.online ? ' by the server' : ''}, ${invalid} invalid${warnings.length ? `, ${warnings.length} warning(s)` : ''}\n`,
  );
  return invalid ? 1 : 0;
}

function offline(flags: CheckFlags, cwd: string): (t: Target) => Promise<HttpError | undefined> {
  // loaded here, not with dashctl: the server's validation code (plugin schemas, the service) is
  // a tenth of a second of start-up that every other command would pay
  const v = import('../offline-validator.js').then(
    ({ OfflineValidator }) =>
      new OfflineValidator({ pluginSchemasDir: within(cwd, flags.pluginSchemasDir), secretFilesDir: within(cwd, flags.secretFilesDir) }),
  );
  return async (t) => (await v).check(t.d, t.m.object);
}

function online(env: Env): (t: Target) => Promise<HttpError | undefined> {
  const api = env.ctx().client();
  return async (t) => {
    const path = `/api/validate/${t.d.plural}`;
    const res = await api.request('POST', path, { body: t.m.object });
    return res.status === 200 ? undefined : toHttpError('POST', path, res);
  };
}

/** A directory given on the command line, relative to the run's working directory. */
const within = (cwd: string, dir: string | undefined): string | undefined => (dir === undefined ? undefined : resolve(cwd, dir));
