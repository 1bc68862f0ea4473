import { Command, Option } from 'commander';
import { applyPlan, type ApplyResult, type Outcome } from '../apply-engine.js';
import { exits, type Env } from '../env.js';
import { CliError, describeError } from '../errors.js';
import { loadManifests, where } from '../manifests.js';
import type { Io } from '../io.js';
import { paint, type Colour } from '../output.js';
import { warningLine } from '../datasource-check.js';
import { makePlan, planCounts, type Plan } from '../plan.js';
import { insideText, objectCount } from '../project-contents.js';
import { Progress } from '../progress.js';
import { confirm } from '../prompt.js';
import { deleteAll, untaggedWarning } from '../prune.js';
import { describeFailure, resolveTargets } from '../targets.js';
import { resolveKind } from '../kinds.js';
import type { KindDescriptor } from '../../src/kinds/descriptor.js';

interface ApplyFlags {
  filename: string[];
  project?: string;
  createProject?: boolean;
  dryRun?: boolean;
  prune?: boolean;
  pruneTag?: string;
  pruneKind: string[];
  yes?: boolean;
  concurrency: string;
  quiet?: boolean;
  forceConflicts?: boolean;
  forceProject?: boolean;
}

const COLOURS: Record<Outcome | 'pruned', Colour> = {
  created: 'green',
  configured: 'yellow',
  unchanged: 'grey',
  pruned: 'red',
  failed: 'red',
};

/**
 * `dashctl apply -f PATH...`: plan, then all or nothing. The whole plan (creates, updates,
 * unchanged, prunes) is worked out and checked by the server without writing anything, then
 * printed; any object that cannot be applied (an unknown kind, a project contradicting -p, a
 * conflict with another field manager, a validation or permission error) stops the run before the
 * first write. Prunes need --yes or a yes at a terminal; without either, nothing is written.
 * Every run ends with the summary line. Against a server that does not honour dryRun (Perses) the
 * plan is checked with what it offers instead (plan.ts; one warning says what is not checked), and
 * --dry-run is refused before anything is sent.
 */
export function makeApplyCommand(env: Env): Command {
  return new Command('apply')
    .description('create or update the resources of files, directories (recursively) or stdin (-f -): plan first, then all or nothing')
    .requiredOption('-f, --filename <path>', 'file, directory or - for stdin (repeatable)', collect, [])
    .option(
      '-p, --project <name>',
      'project for project-scoped resources without metadata.project (an object naming another project is an error)',
    )
    .option('--force-project', 'with -p: move objects that name another project into -p')
    .option('--create-project', 'create missing projects first')
    .option('--dry-run', 'make and check the plan (dryRun=true on the server: dashplane only), print it, write nothing')
    .option(
      '--prune',
      'delete the objects that carry --prune-tag and are absent from the input: of every kind (global ones, and project ones in the projects the input touches)',
    )
    .option('--prune-tag <tag>', 'only objects with this tag are pruned (required with --prune)')
    .option('--prune-kind <kind>', 'with --prune: prune only objects of this kind (repeatable; any spelling get accepts)', collect, [])
    .option('-y, --yes', 'carry out a plan that prunes without asking')
    .option(
      '--force-conflicts',
      'overwrite objects that another field manager (the web UI, the API...) changed since dashctl last applied them',
    )
    .addOption(new Option('--concurrency <n>', 'requests in flight').default('16'))
    .option('-q, --quiet', 'print only failures, the plan line and the summary')
    .action(
      exits(env, async (flags: ApplyFlags) => {
        const ctx = env.ctx();
        const io = ctx.io;
        const pruneKinds = pruneChoice(flags);
        if (flags.forceProject && !flags.project)
          throw new CliError('--force-project moves objects into the project given with -p PROJECT; add -p');
        // a dry run of a server that ignores dryRun (Perses) would be the real writes
        if (flags.dryRun) await ctx.client().requireDryRun('apply --dry-run', 'dashctl diff -f PATH shows the plan without writing');
        const concurrency = Math.max(1, Number(flags.concurrency) || 16);
        const dry = flags.dryRun ? ' (dry run)' : '';
        const counts = { created: 0, configured: 0, unchanged: 0, pruned: 0, failed: 0 };
        const summary = (note = '') =>
          io.out(
            `created ${counts.created}, configured ${counts.configured}, unchanged ${counts.unchanged}, pruned ${counts.pruned}, failed ${counts.failed}${dry}${note}\n`,
          );
        const nothing = (why: string) => {
          summary(` (nothing applied: ${why})`);
          return 1;
        };

        let loaded;
        try {
          loaded = await loadManifests(flags.filename, io);
        } catch (e) {
          // an input that cannot be read ends like any other refused run: the error, then the summary
          if (!(e instanceof CliError)) throw e;
          io.err(`error: ${e.message}\n`);
          counts.failed = 1;
          return nothing('the input cannot be read');
        }
        for (const s of loaded.skipped) io.err(`warning: ${s}\n`);
        const { targets, unresolved } = resolveTargets(loaded.manifests, {
          flag: flags.project,
          fallback: ctx.project(undefined),
          force: Boolean(flags.forceProject),
        });
        for (const u of unresolved) io.err(`error: ${where(u.m)}: ${u.message}\n`);
        if (unresolved.length) {
          counts.failed = unresolved.length;
          return nothing(`${unresolved.length} manifest(s) cannot be sent`);
        }
        const untagged = flags.prune ? untaggedWarning(targets, flags.pruneTag!) : undefined;
        if (untagged) io.err(`warning: ${untagged}\n`);

        const api = ctx.client();
        const planning = new Progress(io, targets.length, 'planning');
        const plan = await makePlan(api, targets, {
          createProject: Boolean(flags.createProject),
          forceConflicts: Boolean(flags.forceConflicts),
          concurrency,
          ...(flags.prune ? { pruneTag: flags.pruneTag!, pruneKinds } : {}),
          onStep: () => planning.tick(),
        });
        planning.clear();
        for (const w of [plan.warning, plan.pruneWarning]) if (w) io.err(`warning: ${w}\n`);
        printPlan(io, plan, Boolean(flags.quiet));
        for (const w of plan.datasourceWarnings ?? []) io.err(warningLine(w));
        for (const r of plan.refused)
          io.err(`error: ${r.target ? describeFailure(r.target, r.error) : `${r.label}: ${describeError(r.error)}`}${hint(r.error)}\n`);
        if (plan.refused.length) {
          counts.failed = plan.refused.length;
          return nothing(`${plan.refused.length} object(s) cannot be applied`);
        }
        if (flags.dryRun) {
          for (const s of plan.steps) counts[OUTCOME[s.action]]++;
          counts.pruned = plan.prunes.length;
          return summary();
        }
        if (plan.prunes.length && !flags.yes) {
          if (!io.inTty) return nothing(`the plan deletes ${deletions(plan)}; run again with --yes to carry it out`);
          if (!(await confirm(io, `Apply this plan, deleting ${deletions(plan)}?`))) return nothing('declined');
        }

        const progress = new Progress(io, plan.steps.length, 'applying');
        await applyPlan(api, plan, {
          concurrency,
          onResult: (r: ApplyResult) => {
            progress.tick();
            counts[r.outcome]++;
            if (r.outcome === 'failed')
              progress.line(() =>
                io.err(
                  `error: ${r.target ? describeFailure(r.target, r.error) : `${r.label}: ${describeError(r.error)}`}${hint(r.error)}\n`,
                ),
              );
            else if (!flags.quiet) progress.line(() => io.out(`${r.label} ${paint(io.colour, COLOURS[r.outcome], r.outcome)}\n`));
          },
        });
        progress.clear();
        if (plan.prunes.length) {
          counts.failed += await deleteAll(api, plan.prunes, {
            dryRun: false,
            concurrency,
            onResult: (x, error) => {
              if (error) io.err(`error: ${x.label}: ${describeError(error)}\n`);
              else {
                counts.pruned++;
                if (!flags.quiet) io.out(`${x.label} ${paint(io.colour, 'red', 'pruned')}\n`);
              }
            },
          });
        }
        summary(counts.failed ? ' (partly applied: the failures above happened after the plan was checked)' : '');
        return counts.failed > 0 ? 1 : 0;
      }),
    );
}

const OUTCOME = { create: 'created', configure: 'configured', unchanged: 'unchanged' } as const;
const SIGNS = { create: '+', configure: '~', unchanged: '=' } as const;

/** `plan: create 1, configure 1, unchanged 14, prune 1`, then one line per change (unchanged ones counted only). */
function printPlan(io: Io, plan: Plan, quiet: boolean): void {
  io.out(`plan: ${planCounts(plan)}\n`);
  if (quiet) return;
  for (const s of plan.steps.filter((x) => x.action !== 'unchanged')) io.out(`  ${SIGNS[s.action]} ${s.label} (${s.action})\n`);
  for (const x of plan.prunes) io.out(`  - ${x.label} (prune${x.inside ? `, with ${insideText(x.inside)}` : ''})\n`);
}

/** `2 object(s)`, and what the pruned projects hold: `1 object(s) and the 3 object(s) inside the pruned project(s)` */
function deletions(plan: Plan): string {
  const inside = plan.prunes.reduce((n, x) => n + (x.inside ? objectCount(x.inside) : 0), 0);
  return `${plan.prunes.length} object(s)${inside ? ` and the ${inside} object(s) inside the pruned project(s)` : ''}`;
}

function hint(error: unknown): string {
  const msg = (error as { message?: string } | undefined)?.message ?? '';
  return /doesn't exist$/.test(msg) ? '\n    (create the project first, or run apply with --create-project)' : '';
}

/**
 * The kinds --prune deletes objects of (undefined: every kind), after checking the prune flags go
 * together: --prune needs --prune-tag, and --prune-kind narrows --prune. `exitCode`: that of the
 * command's errors (diff's are 2).
 */
export function pruneChoice(
  flags: { prune?: boolean; pruneTag?: string; pruneKind: string[] },
  exitCode = 1,
): KindDescriptor[] | undefined {
  if (flags.prune && !flags.pruneTag)
    throw new CliError('--prune needs --prune-tag TAG: only objects carrying that tag are ever pruned', exitCode);
  if (!flags.pruneKind.length) return undefined;
  if (!flags.prune) throw new CliError('--prune-kind narrows what --prune deletes: add --prune --prune-tag TAG', exitCode);
  return [...new Set(flags.pruneKind.map((k) => resolveKind(k)))];
}

/** commander helper for repeatable options. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
