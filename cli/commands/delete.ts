import { Command, Option } from 'commander';
import { exits, type Env } from '../env.js';
import { CliError, describeError } from '../errors.js';
import type { Context } from '../context.js';
import { collectionPath, label, objectPath, resolveKind } from '../kinds.js';
import { listAll } from '../listing.js';
import { parseSelector } from '../selector.js';
import { loadManifests, where } from '../manifests.js';
import { describeContents, projectContents } from '../project-contents.js';
import { confirm } from '../prompt.js';
import { deleteAll, type Doomed } from '../prune.js';
import { resolveTargets } from '../targets.js';
import { collect } from './apply.js';

interface DeleteFlags {
  filename: string[];
  project?: string;
  dryRun?: boolean;
  ignoreNotFound?: boolean;
  yes?: boolean;
  selector?: (o: Record<string, unknown>) => boolean;
}

/**
 * `dashctl delete KIND NAME...` or `dashctl delete -f PATH`. Deleting a project deletes
 * everything in it: dashctl first lists what goes (per kind, and the history) and asks, or
 * needs `--yes`; without a terminal and without `--yes` it deletes nothing (exit 1).
 */
export function makeDeleteCommand(env: Env): Command {
  return new Command('delete')
    .description('delete objects by kind and name, by kind and tags (-l), or every object of files (-f)')
    .argument('[kind]', 'kind, plural or short name')
    .argument('[names...]', 'object names')
    .option('-f, --filename <path>', 'file, directory or - for stdin (repeatable)', collect, [])
    .option('-p, --project <name>', 'project for project-scoped objects (default: the saved default project)')
    .addOption(
      new Option(
        '-l, --selector <tags>',
        'every object of KIND with these tags: TAG (carries it), !TAG (does not), comma-separated',
      ).argParser(parseSelector),
    )
    .option('--dry-run', 'check (dryRun=true: dashplane only) without deleting')
    .option('--ignore-not-found', 'an object that does not exist is not an error')
    .option('-y, --yes', 'delete projects (and everything in them) without asking')
    .action(
      exits(env, async (kind: string | undefined, names: string[], flags: DeleteFlags) => {
        const ctx = env.ctx();
        const io = ctx.io;
        let doomed: Doomed[];
        if (flags.filename.length) {
          if (kind) throw new CliError('give either -f PATH or KIND NAME..., not both');
          const loaded = await loadManifests(flags.filename, io);
          const { targets, unresolved } = resolveTargets(loaded.manifests, { flag: flags.project, fallback: ctx.project(undefined) });
          if (unresolved.length) throw new CliError(unresolved.map((u) => `${where(u.m)}: ${u.message}`).join('\n'));
          doomed = targets.map((t) => ({ d: t.d, name: t.name, project: t.project, label: t.label }));
        } else if (flags.selector) {
          if (!kind || names.length)
            throw new CliError('-l selects the objects of KIND to delete: give dashctl delete KIND -l TAGS, without names');
          const d = resolveKind(kind);
          const project = ctx.projectFor(d, flags.project);
          const items = (await listAll(ctx.client(), collectionPath(d, project), { metadata_only: true })).filter(flags.selector);
          if (!items.length) io.err(`No ${d.plural} found${project !== undefined ? ` in project ${project}` : ''} with those tags.\n`);
          doomed = items.map((o) => ({ d, name: String(o.metadata?.name), project, label: label(d, String(o.metadata?.name), project) }));
        } else {
          if (!kind || !names.length)
            throw new CliError('usage: dashctl delete KIND NAME..., dashctl delete KIND -l TAGS or dashctl delete -f PATH');
          const d = resolveKind(kind);
          const project = ctx.projectFor(d, flags.project);
          doomed = names.map((name) => ({ d, name, project, label: label(d, name, project) }));
        }
        const dry = flags.dryRun ? ' (dry run)' : '';
        // a dry run of a server that ignores dryRun (Perses) would be the real deletes
        if (flags.dryRun) await ctx.client().requireDryRun('delete --dry-run');
        await confirmProjects(ctx, doomed, flags);
        let failed = 0;
        await deleteAll(ctx.client(), doomed, {
          dryRun: Boolean(flags.dryRun),
          concurrency: 16,
          onResult: (x, error) => {
            if (!error) return io.out(`${x.label} deleted${dry}\n`);
            if ((error as { status?: number }).status === 404 && flags.ignoreNotFound) return io.out(`${x.label} not found\n`);
            failed++;
            io.err(`error: ${x.label}: ${describeError(error)}\n`);
          },
        });
        return failed ? 1 : 0;
      }),
    );
}

/** Each project about to go: what it holds; then a yes (terminal or --yes), unless this is a dry run. */
async function confirmProjects(ctx: Context, doomed: readonly Doomed[], flags: DeleteFlags): Promise<void> {
  const projects = doomed.filter((x) => x.d.isProjectScope);
  if (!projects.length) return;
  const api = ctx.client();
  const existing: Doomed[] = [];
  for (const p of projects) {
    const res = await api.request('GET', objectPath(p.d, p.name));
    if (res.status !== 200) continue; // reported by the delete itself (404 and --ignore-not-found included), with nothing to confirm
    existing.push(p);
    ctx.io.err(describeContents(p.name, await projectContents(api, p.name)));
  }
  if (flags.dryRun || flags.yes || !existing.length) return;
  const names = existing.map((p) => p.name).join(', ');
  if (!ctx.io.inTty)
    throw new CliError(`refusing to delete project ${names} and everything in it without confirmation; run again with --yes`);
  if (!(await confirm(ctx.io, `Delete project ${names} and everything in it?`))) throw new CliError('nothing deleted');
}
