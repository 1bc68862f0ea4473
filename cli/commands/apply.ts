import { Command, Option } from 'commander';
import { applyTargets, type ApplyResult, type Outcome } from '../apply-engine.js';
import type { Env } from '../env.js';
import { CliError, describeError } from '../errors.js';
import { loadManifests, where } from '../manifests.js';
import { paint, type Colour } from '../output.js';
import { Progress } from '../progress.js';
import { confirm } from '../prompt.js';
import { deleteAll, findPrunable } from '../prune.js';
import { describeFailure, resolveTargets } from '../targets.js';

interface ApplyFlags {
  filename: string[];
  project?: string;
  createProject?: boolean;
  dryRun?: boolean;
  prune?: boolean;
  pruneTag?: string;
  yes?: boolean;
  concurrency: string;
  quiet?: boolean;
  forceConflicts?: boolean;
}

const COLOURS: Record<Outcome | 'pruned', Colour> = { created: 'green', configured: 'yellow', unchanged: 'grey', pruned: 'red', failed: 'red' };

/** `dashctl apply -f PATH...`: create or update, optionally prune, print a summary. */
export function makeApplyCommand(env: Env): Command {
  return new Command('apply')
    .description('create or update the resources of files, directories (recursively) or stdin (-f -)')
    .requiredOption('-f, --filename <path>', 'file, directory or - for stdin (repeatable)', collect, [])
    .option('-p, --project <name>', 'project for project-scoped resources without metadata.project')
    .option('--create-project', 'create missing projects first')
    .option('--dry-run', 'validate on the server (dryRun=true) and report, storing nothing')
    .option('--prune', 'delete objects of the applied kinds, in the touched projects, that carry --prune-tag and are absent from the input')
    .option('--prune-tag <tag>', 'only objects with this tag are pruned (required with --prune)')
    .option('-y, --yes', 'prune without asking')
    .option('--force-conflicts', 'overwrite objects that another field manager (the web UI, the API...) changed since dashctl last applied them')
    .addOption(new Option('--concurrency <n>', 'requests in flight').default('16'))
    .option('-q, --quiet', 'print only failures and the summary')
    .action(async (flags: ApplyFlags) => {
      const ctx = env.ctx();
      const io = ctx.io;
      if (flags.prune && !flags.pruneTag) throw new CliError('--prune needs --prune-tag TAG: only objects carrying that tag are ever pruned');
      const concurrency = Math.max(1, Number(flags.concurrency) || 16);
      const loaded = await loadManifests(flags.filename);
      for (const s of loaded.skipped) io.err(`warning: ${s}\n`);
      const { targets, unresolved } = resolveTargets(loaded.manifests, ctx.project(flags.project));
      const dry = flags.dryRun ? ' (dry run)' : '';
      const counts = { created: 0, configured: 0, unchanged: 0, pruned: 0, failed: unresolved.length };
      for (const u of unresolved) io.err(`error: ${where(u.m)}: ${u.message}\n`);
      const progress = new Progress(io, targets.length, flags.dryRun ? 'checking' : 'applying');
      const show = (r: ApplyResult) => {
        progress.tick();
        counts[r.outcome]++;
        if (r.outcome === 'failed') {
          progress.line(() => io.err(`error: ${r.target ? describeFailure(r.target, r.error) : `${r.label}: ${describeError(r.error)}`}${hint(r)}\n`));
        } else if (!flags.quiet) {
          progress.line(() => io.out(`${r.label} ${paint(io.tty, COLOURS[r.outcome], r.outcome)}${dry}\n`));
        }
      };
      const api = ctx.client();
      await applyTargets(api, targets, { dryRun: Boolean(flags.dryRun), createProject: Boolean(flags.createProject), forceConflicts: Boolean(flags.forceConflicts), concurrency, onResult: show });
      progress.clear();
      if (flags.prune) counts.pruned = await prune(env, targets, flags, concurrency, counts);
      io.out(`created ${counts.created}, configured ${counts.configured}, unchanged ${counts.unchanged}, pruned ${counts.pruned}, failed ${counts.failed}${dry}\n`);
      if (counts.failed > 0) process.exitCode = 1;
    });
}

async function prune(env: Env, targets: Parameters<typeof findPrunable>[1], flags: ApplyFlags, concurrency: number, counts: { failed: number }): Promise<number> {
  const ctx = env.ctx();
  const io = ctx.io;
  const api = ctx.client();
  const doomed = await findPrunable(api, targets, flags.pruneTag!);
  if (!doomed.length) return 0;
  const dry = flags.dryRun ? ' (dry run)' : '';
  io.err(`${doomed.length} object(s) tagged "${flags.pruneTag}" are not in the input and will be deleted${dry}:\n`);
  for (const x of doomed) io.err(`  ${x.label}\n`);
  if (!flags.dryRun && !flags.yes) {
    if (!io.inTty) throw new CliError(`refusing to prune ${doomed.length} object(s) without confirmation; run again with --yes`);
    if (!(await confirm('Delete them?'))) throw new CliError('nothing pruned');
  }
  let pruned = 0;
  const failed = await deleteAll(api, doomed, {
    dryRun: Boolean(flags.dryRun),
    concurrency,
    onResult: (x, error) => {
      if (error) io.err(`error: ${x.label}: ${describeError(error)}\n`);
      else {
        pruned++;
        if (!flags.quiet) io.out(`${x.label} ${paint(io.tty, 'red', 'pruned')}${dry}\n`);
      }
    },
  });
  counts.failed += failed;
  return pruned;
}

function hint(r: ApplyResult): string {
  const msg = (r.error as { message?: string } | undefined)?.message ?? '';
  return /doesn't exist$/.test(msg) ? '\n    (create the project first, or run apply with --create-project)' : '';
}

/** commander helper for repeatable options. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
