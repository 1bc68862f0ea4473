import { Command, Option } from 'commander';
import type { KindDescriptor } from '../../src/kinds/descriptor.js';
import { toHttpError, type ApiClient } from '../api-client.js';
import { canonical, withoutServerFields } from '../compare.js';
import type { Env } from '../env.js';
import { CliError } from '../errors.js';
import { label, objectPath, resolveKind, resourceName } from '../kinds.js';
import { age, paint, table, toYaml } from '../output.js';
import { colourDiff, unifiedDiff } from '../../src/lib/unified-diff.js';

interface Entry {
  version: number;
  updatedAt: string;
  updatedBy?: string;
  /** The field manager of the write (dashctl, web-ui, api, restore...). */
  manager?: string;
  current?: boolean;
}

/**
 * `dashctl history KIND NAME` lists the versions, the current one first; `--show VERSION` prints
 * one, `--diff A B` the unified diff between two (numbers or `current`), `--restore VERSION`
 * makes one the latest again.
 */
export function makeHistoryCommand(env: Env): Command {
  return new Command('history')
    .description('list the versions of an object (current first), show or diff them, or restore one (--restore VERSION)')
    .argument('<kind>', 'kind, plural or short name')
    .argument('<name>', 'object name')
    .option('-p, --project <name>', 'project (default: the saved default project)')
    .option('--restore <version>', 'make this version the new latest (also brings back a deleted object)')
    .option('--show <version>', 'print that version as YAML')
    .option('--diff <versions...>', 'unified diff of two versions: --diff A B (numbers, or current)')
    .addOption(new Option('-o, --output <format>', 'list format').choices(['table', 'json', 'yaml']).default('table'))
    .action(
      async (kind: string, name: string, flags: { project?: string; restore?: string; show?: string; diff?: string[]; output: string }) => {
        const ctx = env.ctx();
        const io = ctx.io;
        const d = resolveKind(kind);
        const project = ctx.projectFor(d, flags.project);
        const path = objectPath(d, name, project);
        const api = ctx.client();
        if (flags.restore !== undefined) {
          const res = await api.call('POST', `${path}/versions/${encodeURIComponent(flags.restore)}/restore`);
          return io.out(`${label(d, name, project)}: version ${flags.restore} restored as version ${res.body?.metadata?.version ?? '?'}\n`);
        }
        if (flags.show !== undefined) return io.out(toYaml(await version(api, path, flags.show)));
        if (flags.diff !== undefined) return io.out(await diffVersions(api, d, name, project, path, flags.diff, io.colour));
        const current = await api.request('GET', path);
        if (current.status !== 200 && current.status !== 404) throw toHttpError('GET', path, current);
        const { body: earlier } = await api.call<Entry[]>('GET', `${path}/versions`);
        const m = current.status === 200 ? current.body?.metadata : undefined;
        // who wrote the current version: the managers record keeps each manager's latest write
        const managers = m ? await api.request<Entry[]>('GET', `${path}/managers`) : undefined;
        const author = Array.isArray(managers?.body) ? managers.body.find((e) => e.version === m.version) : undefined;
        const now: Entry[] = m
          ? [
              {
                version: m.version,
                updatedAt: m.updatedAt,
                ...(author ? { updatedBy: author.updatedBy, manager: author.manager } : {}),
                current: true,
              },
            ]
          : [];
        const entries: Entry[] = [...now, ...earlier];
        if (flags.output === 'json') return io.out(`${JSON.stringify(entries, null, 2)}\n`);
        if (flags.output === 'yaml') return io.out(toYaml(entries));
        if (!m) io.err(`${label(d, name, project)} is deleted; its earlier versions can be restored with --restore VERSION.\n`);
        io.out(
          table(
            ['VERSION', 'UPDATED', 'BY', 'THROUGH', 'AGE'],
            entries.map((v) => [
              v.current ? `${v.version} (current)` : String(v.version),
              v.updatedAt,
              v.updatedBy ?? '-',
              v.manager ?? '-',
              age(v.updatedAt),
            ]),
          ),
        );
      },
    );
}

// biome-ignore lint/suspicious/noExplicitAny: an object of any kind as the server sent it
type Obj = Record<string, any>;

/** One version: a number, or `current` (the object as it is now). */
async function version(api: ApiClient, path: string, which: string): Promise<Obj> {
  if (which === 'current') return (await api.call('GET', path)).body;
  if (!/^\d+$/.test(which)) throw new CliError(`"${which}" is not a version: use a number from dashctl history, or current`);
  const res = await api.request('GET', `${path}/versions/${which}`);
  if (res.status === 200) return res.body;
  // The newest version may be the current object only.
  const now = await api.request('GET', path);
  if (now.status === 200 && String(now.body?.metadata?.version) === which) return now.body;
  throw toHttpError('GET', `${path}/versions/${which}`, res);
}

async function diffVersions(
  api: ApiClient,
  d: KindDescriptor,
  name: string,
  project: string | undefined,
  path: string,
  which: string[],
  colour: boolean,
): Promise<string> {
  if (which.length !== 2) throw new CliError(`--diff takes two versions, e.g. --diff 3 current (got ${which.length})`);
  const [a, b] = await Promise.all(which.map((w) => version(api, path, w)));
  const text = (o: Obj) => toYaml(canonical(withoutServerFields(o)));
  const id = resourceName(d, name, project);
  const tag = (w: string, o: Obj) => `${id} version ${o.metadata?.version ?? w}${w === 'current' ? ' (current)' : ''}`;
  const out = unifiedDiff(text(a), text(b), { from: tag(which[0], a), to: tag(which[1], b) });
  if (!out) return `# ${id}: versions ${which[0]} and ${which[1]} have the same content\n`;
  return colourDiff(out, (c, s) => paint(colour, c, s));
}
