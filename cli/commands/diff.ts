import { Command } from 'commander';
import { toHttpError, type ApiClient } from '../api-client.js';
import { canonical, desiredForm, hasUnverifiableSecrets, withoutServerFields } from '../compare.js';
import { conflictOf, secretsCheck } from '../ownership.js';
import type { Env } from '../env.js';
import { CliError } from '../errors.js';
import { objectPath } from '../kinds.js';
import { loadManifests, where } from '../manifests.js';
import { paint, toYaml } from '../output.js';
import { mapPool } from '../pool.js';
import { findPrunable } from '../prune.js';
import { describeFailure, resolveTargets, type Target } from '../targets.js';
import { unifiedDiff } from '../unified-diff.js';
import { collect } from './apply.js';

/**
 * `dashctl diff -f PATH`: what apply would change, as a unified diff of YAML per object
 * (server-owned metadata ignored; secret values, which the server never shows, compared by the
 * server). An object another field manager changed since dashctl last applied it is marked: apply
 * would refuse it. With `--prune --prune-tag T`, the objects apply --prune would delete are shown
 * as removed and counted. Exit 0: no changes, 1: changes, 2: an error (like kubectl diff).
 */
export function makeDiffCommand(env: Env): Command {
  return new Command('diff')
    .description('show what apply would change, as a unified YAML diff per object (exit 0 none, 1 changes, 2 error)')
    .requiredOption('-f, --filename <path>', 'file, directory or - for stdin (repeatable)', collect, [])
    .option('-p, --project <name>', 'project for project-scoped resources without metadata.project (an object naming another project is an error)')
    .option('--force-project', 'with -p: diff objects that name another project as if moved into -p')
    .option('--prune', 'also show the objects apply --prune would delete (needs --prune-tag)')
    .option('--prune-tag <tag>', 'only objects with this tag are pruned')
    .action(async (flags: { filename: string[]; project?: string; forceProject?: boolean; prune?: boolean; pruneTag?: string }) => {
      const ctx = env.ctx();
      const io = ctx.io;
      try {
        if (flags.prune && !flags.pruneTag) throw new CliError('--prune needs --prune-tag TAG: only objects carrying that tag are ever pruned', 2);
        const loaded = await loadManifests(flags.filename);
        for (const s of loaded.skipped) io.err(`warning: ${s}\n`);
        const { targets, unresolved } = resolveTargets(loaded.manifests, { flag: flags.project, fallback: ctx.project(undefined), force: Boolean(flags.forceProject) });
        if (unresolved.length) throw new CliError(unresolved.map((u) => `${where(u.m)}: ${u.message}`).join('\n'), 2);
        const api = ctx.client();
        let errors = 0;
        const diffs = await mapPool(targets, 16, async (t) => {
          try {
            return await diffOne(api, t);
          } catch (e) {
            errors++;
            io.err(`error: ${describeFailure(t, e)}\n`);
            return '';
          }
        });
        let changed = 0;
        for (const d of diffs.filter(Boolean)) {
          changed++;
          io.out(colourDiff(d, io.tty));
        }
        if (flags.prune) {
          const doomed = await findPrunable(api, targets, flags.pruneTag!);
          const removed = await mapPool(doomed, 16, async (x) => {
            const path = objectPath(x.d, x.name, x.project);
            const live = await api.call('GET', path);
            const name = x.label.replace(' ', '/');
            return `# PRUNE: ${name} carries tag "${flags.pruneTag}" and is not in the input; apply --prune would delete it\n${unifiedDiff(toYaml(canonical(withoutServerFields(live.body))), '', { from: `live/${name}`, to: '/dev/null' })}`;
          });
          for (const d of removed) {
            changed++;
            io.out(colourDiff(d, io.tty));
          }
        }
        if (errors) process.exitCode = 2;
        else process.exitCode = changed ? 1 : 0;
      } catch (e) {
        if (e instanceof CliError && e.exitCode === 1) throw new CliError(e.message, 2);
        if (!(e instanceof CliError)) throw new CliError(e instanceof Error ? e.message : String(e), 2);
        throw e;
      }
    });
}

async function diffOne(api: ApiClient, t: Target): Promise<string> {
  const path = objectPath(t.d, t.name, t.project);
  const res = await api.request('GET', path);
  let live = '';
  if (res.status === 200) live = toYaml(canonical(withoutServerFields(res.body)));
  else if (res.status !== 404) throw toHttpError('GET', path, res);
  const wanted = toYaml(canonical(desiredForm(t.d, t.m.object, t.name, t.project)));
  const name = t.label.replace(' ', '/');
  const header = `--- live/${name}\n+++ ${where(t.m)} ${name}\n`;
  let out = unifiedDiff(live, wanted, { from: res.status === 200 ? `live/${name}` : '/dev/null', to: `${where(t.m)} ${name}` });
  if (res.status !== 200) return out;
  if (hasUnverifiableSecrets(t.d, t.m.object)) {
    const check = await secretsCheck(api, t, path);
    if (!check.unchanged && !out) out = `${header}# secret values differ from the live ones (${check.why ?? 'the server compared them'}); apply will write them\n`;
  }
  if (!out) return '';
  const conflict = await conflictOf(api, path, res.body.metadata.version);
  return conflict ? `# CONFLICT: ${name} ${conflict}\n${out}` : out;
}

function colourDiff(text: string, on: boolean): string {
  if (!on) return text;
  return text
    .split('\n')
    .map((l) =>
      l.startsWith('+++') || l.startsWith('---')
        ? paint(on, 'bold', l)
        : l.startsWith('+')
          ? paint(on, 'green', l)
          : l.startsWith('-')
            ? paint(on, 'red', l)
            : l.startsWith('@@')
              ? paint(on, 'cyan', l)
              : l,
    )
    .join('\n');
}
