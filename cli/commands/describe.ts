import { Command, Option } from 'commander';
import { withoutServerFields } from '../compare.js';
import type { Env } from '../env.js';
import { objectPath, resolveKind } from '../kinds.js';
import type { VersionEntry } from '../../src/storage/store.js';
import { age, paint, table, toYaml } from '../output.js';

/**
 * `dashctl describe KIND NAME`: metadata with relative times, recent history, then the spec as
 * YAML. With `-o json|yaml`: the object without server-owned metadata (createdAt, updatedAt,
 * version), ready for `dashctl apply -f` (an export).
 */
export function makeDescribeCommand(env: Env): Command {
  return new Command('describe')
    .description('show one object: metadata, recent versions, spec')
    .argument('<kind>', 'kind, plural or short name')
    .argument('<name>', 'object name')
    .option('-p, --project <name>', 'project (default: the saved default project)')
    .addOption(new Option('-o, --output <format>', 're-applyable object instead of the description').choices(['json', 'yaml']))
    .action(async (kind: string, name: string, flags: { project?: string; output?: 'json' | 'yaml' }) => {
      const ctx = env.ctx();
      const io = ctx.io;
      const d = resolveKind(kind);
      const project = ctx.projectFor(d, flags.project);
      const api = ctx.client();
      const path = objectPath(d, name, project);
      const { body: obj } = await api.call('GET', path);
      if (flags.output) {
        const exported = withoutServerFields(obj);
        return io.out(flags.output === 'json' ? `${JSON.stringify(exported, null, 2)}\n` : toYaml(exported));
      }
      const m = obj.metadata ?? {};
      const rows: [string, string][] = [
        ['Kind', d.kind],
        ['Name', String(m.name)],
        ...(project !== undefined ? ([['Project', project]] as [string, string][]) : []),
        ['Version', String(m.version ?? '-')],
        ['Created', `${m.createdAt ?? '-'} (${age(m.createdAt)} ago)`],
        ['Updated', `${m.updatedAt ?? '-'} (${age(m.updatedAt)} ago)`],
        ['Tags', Array.isArray(m.tags) && m.tags.length ? m.tags.join(', ') : '<none>'],
      ];
      for (const [k, v] of rows) io.out(`${paint(io.colour, 'bold', `${k}:`.padEnd(9))} ${v}\n`);
      const versions = await api.request('GET', `${path}/versions`);
      if (versions.status === 200 && Array.isArray(versions.body)) {
        const recent = versions.body.slice(0, 5) as VersionEntry[];
        io.out(
          `${paint(io.colour, 'bold', 'History:')}  ${versions.body.length} earlier version(s)${versions.body.length > 5 ? ', latest 5' : ''}\n`,
        );
        if (recent.length)
          io.out(
            indent(
              table(
                ['VERSION', 'UPDATED BY', 'AGE'],
                recent.map((v) => [String(v.version), v.updatedBy, age(v.updatedAt)]),
              ),
            ),
          );
      }
      io.out(`${paint(io.colour, 'bold', 'Spec:')}\n${indent(toYaml(obj.spec ?? {}))}`);
    });
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n');
}
