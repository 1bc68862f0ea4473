import { Command } from 'commander';
import { isObj } from '../../src/lib/is-obj.js';
import type { ApiClient } from '../api-client.js';
import { canonical, desiredForm, hasUnverifiableSecrets, withoutServerFields } from '../compare.js';
import { conflictOf, secretsCheck } from '../ownership.js';
import { exits, type Env } from '../env.js';
import { CliError, describeError } from '../errors.js';
import { objectPath } from '../kinds.js';
import { loadManifests, where } from '../manifests.js';
import { paint, toYaml } from '../output.js';
import { mapPool } from '../pool.js';
import { warningLine } from '../datasource-check.js';
import { makePlan, type Step } from '../plan.js';
import { insideText } from '../project-contents.js';
import { untaggedWarning } from '../prune.js';
import { describeFailure, resolveTargets } from '../targets.js';
import { colourDiff, unifiedDiff } from '../../src/lib/unified-diff.js';
import { collect, pruneChoice } from './apply.js';

/**
 * `dashctl diff -f PATH`: what apply would change, as a unified diff of YAML per object
 * (server-owned metadata ignored; secret values, which the server never shows, compared by the
 * server). The objects are planned exactly as apply plans them (plan.ts: read, compared, and each
 * create and update checked by the server with a dry run): an object apply would refuse (invalid,
 * not permitted, in a missing project, a second default datasource...) is reported as an error
 * naming its file, line and JSON paths, and the exit code is 2. An object another field manager
 * changed since dashctl last applied it is headed `# CONFLICT` (apply refuses it unless
 * --force-conflicts). With `--prune --prune-tag T`, the objects apply --prune would delete are
 * shown as removed and counted. Exit 0: no changes, 1: changes, 2: an error (like kubectl diff).
 * diff never writes: against a server that does not honour dryRun (Perses) nothing is dry-run
 * (plan.ts), and one warning says what is not checked.
 */
export function makeDiffCommand(env: Env): Command {
  return new Command('diff')
    .description(
      'show what apply would change, as a unified YAML diff per object (exit 0 none, 1 changes or a # CONFLICT, 2 error or an object apply would refuse as invalid)',
    )
    .requiredOption('-f, --filename <path>', 'file, directory or - for stdin (repeatable)', collect, [])
    .option(
      '-p, --project <name>',
      'project for project-scoped resources without metadata.project (an object naming another project is an error)',
    )
    .option('--force-project', 'with -p: diff objects that name another project as if moved into -p')
    .option('--create-project', 'as apply --create-project: missing projects are shown as new ones')
    .option('--prune', 'also show the objects apply --prune would delete (needs --prune-tag)')
    .option('--prune-tag <tag>', 'only objects with this tag are pruned')
    .option('--prune-kind <kind>', 'with --prune: only objects of this kind are pruned (repeatable)', collect, [])
    .action(
      exits(
        env,
        async (flags: {
          filename: string[];
          project?: string;
          forceProject?: boolean;
          createProject?: boolean;
          prune?: boolean;
          pruneTag?: string;
          pruneKind: string[];
        }) => {
          const ctx = env.ctx();
          const io = ctx.io;
          try {
            const pruneKinds = pruneChoice(flags, 2);
            const loaded = await loadManifests(flags.filename, io);
            for (const s of loaded.skipped) io.err(`warning: ${s}\n`);
            const { targets, unresolved } = resolveTargets(loaded.manifests, {
              flag: flags.project,
              fallback: ctx.project(undefined),
              force: Boolean(flags.forceProject),
            });
            if (unresolved.length) throw new CliError(unresolved.map((u) => `${where(u.m)}: ${u.message}`).join('\n'), 2);
            const untagged = flags.prune ? untaggedWarning(targets, flags.pruneTag!) : undefined;
            if (untagged) io.err(`warning: ${untagged}\n`);
            const api = ctx.client();
            // conflicts are shown (headed # CONFLICT), not refused: diff checks them itself
            const plan = await makePlan(api, targets, {
              createProject: Boolean(flags.createProject),
              forceConflicts: true,
              concurrency: 16,
              ...(flags.prune ? { pruneTag: flags.pruneTag!, pruneKinds } : {}),
            });
            for (const w of [plan.warning, plan.pruneWarning]) if (w) io.err(`warning: ${w}\n`);
            for (const w of plan.datasourceWarnings ?? []) io.err(warningLine(w));
            let errors = plan.refused.length;
            for (const r of plan.refused)
              io.err(`error: ${r.target ? describeFailure(r.target, r.error) : `${r.label}: ${describeError(r.error)}`}\n`);
            const diffs = await mapPool(
              plan.steps.filter((s) => s.action !== 'unchanged'),
              16,
              async (s) => {
                try {
                  return await diffStep(api, s);
                } catch (e) {
                  errors++;
                  io.err(`error: ${s.target ? describeFailure(s.target, e) : `${s.label}: ${describeError(e)}`}\n`);
                  return '';
                }
              },
            );
            let changed = 0;
            for (const d of diffs.filter(Boolean)) {
              changed++;
              io.out(colourDiff(d, (c, t) => paint(io.colour, c, t)));
            }
            const removed = await mapPool(plan.prunes, 16, async (x) => {
              const path = objectPath(x.d, x.name, x.project);
              const live = await api.call('GET', path);
              const name = x.label.replace(' ', '/');
              return `# PRUNE: ${name} carries tag "${flags.pruneTag}" and is not in the input; apply --prune would delete it${x.inside ? `, with ${insideText(x.inside)}` : ''}\n${unifiedDiff(toYaml(canonical(withoutServerFields(live.body))), '', { from: `live/${name}`, to: '/dev/null' })}`;
            });
            for (const d of removed) {
              changed++;
              io.out(colourDiff(d, (c, t) => paint(io.colour, c, t)));
            }
            if (plan.refused.length)
              io.err(`error: apply would refuse ${plan.refused.length} object(s), reported above, and write nothing\n`);
            if (errors) return 2;
            return changed ? 1 : 0;
          } catch (e) {
            if (e instanceof CliError && e.exitCode === 1) throw new CliError(e.message, 2);
            if (!(e instanceof CliError)) throw new CliError(e instanceof Error ? e.message : String(e), 2);
            throw e;
          }
        },
      ),
    );
}

/** The diff of one planned create or update ('' when only server-side forms differ). */
async function diffStep(api: ApiClient, s: Step): Promise<string> {
  const t = s.target;
  if (!t) {
    // a project --create-project adds
    const name = s.label.replace(' ', '/');
    return unifiedDiff('', toYaml(canonical(s.body)), { from: '/dev/null', to: `(--create-project) ${name}` });
  }
  const wanted = toYaml(canonical(desiredForm(t.d, t.m.object, t.name, t.project)));
  const name = t.label.replace(' ', '/');
  if (s.action === 'create' || !s.live) return unifiedDiff('', wanted, { from: '/dev/null', to: `${where(t.m)} ${name}` });
  const path = objectPath(t.d, t.name, t.project);
  const header = `--- live/${name}\n+++ ${where(t.m)} ${name}\n`;
  let out = unifiedDiff(toYaml(canonical(withoutServerFields(s.live))), wanted, { from: `live/${name}`, to: `${where(t.m)} ${name}` });
  if (!out && hasUnverifiableSecrets(t.d, t.m.object)) {
    const check = await secretsCheck(api, t, path);
    if (!check.unchanged)
      out = `${header}# ${check.why ? `secret values not compared (${check.why})` : 'secret values differ from the live ones (the server compared them)'}; apply will write them\n`;
  }
  if (!out) return '';
  const conflict = await conflictOf(api, path, Number(isObj(s.live.metadata) ? s.live.metadata.version : undefined));
  return conflict ? `# CONFLICT: ${name} ${conflict}\n${out}` : out;
}
