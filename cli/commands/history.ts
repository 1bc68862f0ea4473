import { Command, Option } from 'commander';
import type { Env } from '../env.js';
import { label, objectPath, resolveKind } from '../kinds.js';
import { age, table, toYaml } from '../output.js';

/** `dashctl history KIND NAME` lists earlier versions; `--restore VERSION` makes one the latest again. */
export function makeHistoryCommand(env: Env): Command {
  return new Command('history')
    .description('list the earlier versions of an object, or restore one (--restore VERSION)')
    .argument('<kind>', 'kind, plural or short name')
    .argument('<name>', 'object name')
    .option('-p, --project <name>', 'project (default: the saved default project)')
    .option('--restore <version>', 'make this version the new latest (also brings back a deleted object)')
    .option('--show <version>', 'print that version as YAML')
    .addOption(new Option('-o, --output <format>', 'list format').choices(['table', 'json', 'yaml']).default('table'))
    .action(async (kind: string, name: string, flags: { project?: string; restore?: string; show?: string; output: string }) => {
      const ctx = env.ctx();
      const io = ctx.io;
      const d = resolveKind(kind);
      const project = d.scope === 'project' ? ctx.requiredProject(flags.project, d.kind) : undefined;
      const path = objectPath(d, name, project);
      const api = ctx.client();
      if (flags.restore !== undefined) {
        const res = await api.call('POST', `${path}/versions/${encodeURIComponent(flags.restore)}/restore`);
        return io.out(`${label(d, name, project)}: version ${flags.restore} restored as version ${res.body?.metadata?.version ?? '?'}\n`);
      }
      if (flags.show !== undefined) {
        const res = await api.call('GET', `${path}/versions/${encodeURIComponent(flags.show)}`);
        return io.out(toYaml(res.body));
      }
      const { body: versions } = await api.call<{ version: number; updatedAt: string; updatedBy: string }[]>('GET', `${path}/versions`);
      if (flags.output === 'json') return io.out(JSON.stringify(versions, null, 2) + '\n');
      if (flags.output === 'yaml') return io.out(toYaml(versions));
      if (!versions.length) return io.err(`${label(d, name, project)} has no earlier versions.\n`);
      io.out(table(['VERSION', 'UPDATED', 'BY', 'AGE'], versions.map((v) => [String(v.version), v.updatedAt, v.updatedBy, age(v.updatedAt)])));
    });
}
