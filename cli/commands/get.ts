import { Command, Option } from 'commander';
import type { ApiClient } from '../api-client.js';
import type { KindDescriptor } from '../../src/kinds/descriptor.js';
import { getPath } from '../../src/resources/object-path.js';
import type { Env } from '../env.js';
import { collectionPath, resolveKind } from '../kinds.js';
import { listAll } from '../listing.js';
import { age, OUTPUT_FORMATS, paint, table, toYaml, yamlDocuments, type Io, type OutputFormat } from '../output.js';

type Obj = Record<string, any>;

interface GetFlags {
  output: OutputFormat;
  project?: string;
  allProjects?: boolean;
  watch?: boolean;
}

/** `dashctl get KIND [PREFIX]`: list objects as a table, JSON, YAML or names; `--watch` streams changes. */
export function makeGetCommand(env: Env): Command {
  return new Command('get')
    .description('list objects of a kind (dash, ds, gds, var, gvar, projects, ...), optionally only names starting with PREFIX')
    .argument('<kind>', 'kind, plural or short name')
    .argument('[prefix]', 'only names starting with this')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'))
    .option('-p, --project <name>', 'project (default: the saved default project, else all)')
    .option('-A, --all-projects', 'every project')
    .option('-w, --watch', 'after the list, stream changes until interrupted')
    .action(async (kind: string, prefix: string | undefined, flags: GetFlags) => {
      const ctx = env.ctx();
      const d = resolveKind(kind);
      const project = d.scope === 'project' && !flags.allProjects ? ctx.project(flags.project) : undefined;
      const path = collectionPath(d, project);
      const api = ctx.client();
      const cross = d.scope === 'project' && project === undefined;
      if (flags.watch) return watch(ctx.io, api, path, prefix, flags.output, cross);
      const items = await listAll(api, path, { name: prefix });
      printList(ctx.io, d, items, flags.output, cross, project);
    });
}

/** The list in the chosen format. */
export function printList(io: Io, d: KindDescriptor, items: Obj[], format: OutputFormat, cross: boolean, project?: string): void {
  switch (format) {
    case 'json':
      return io.out(JSON.stringify(items, null, 2) + '\n');
    case 'yaml':
      return io.out(items.length ? yamlDocuments(items) : '');
    case 'name':
      return io.out(items.map((o) => `${o.metadata?.name}\n`).join(''));
    default:
      if (!items.length) return io.err(`No ${d.plural} found${project ? ` in project ${project}` : ''}.\n`);
      io.out(renderTable(items, cross, io.tty));
  }
}

/** NAME (and PROJECT across projects), then DISPLAY / PLUGIN when the objects have them, VERSION, AGE. */
function renderTable(items: Obj[], cross: boolean, colour: boolean): string {
  const extras = [
    { title: 'DISPLAY', path: 'spec.display.name' },
    { title: 'PLUGIN', path: 'spec.plugin.kind' },
    { title: 'DEFAULT', path: 'spec.default' },
  ].filter((c) => items.some((o) => getPath(o, c.path) !== undefined));
  const header = [...(cross ? ['PROJECT'] : []), 'NAME', ...extras.map((c) => c.title), 'VERSION', 'AGE'];
  const rows = items.map((o) => [
    ...(cross ? [String(o.metadata?.project ?? '')] : []),
    paint(colour, 'bold', String(o.metadata?.name ?? '')),
    ...extras.map((c) => cell(getPath(o, c.path))),
    String(o.metadata?.version ?? '-'),
    age(o.metadata?.createdAt),
  ]);
  return table(header, rows);
}

function cell(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v.replace(/\s+/g, ' ') : JSON.stringify(v);
}

/** Streams `?watch=true`: every event as a table row, a JSON line, a YAML document or `TYPE name`. */
async function watch(io: Io, api: ApiClient, path: string, prefix: string | undefined, format: OutputFormat, cross: boolean): Promise<void> {
  let headerShown = false;
  const colours = { ADDED: 'green', MODIFIED: 'yellow', DELETED: 'red' } as const;
  await api.stream(path, { watch: true, name: prefix }, (ev: Obj) => {
    if (ev.type === 'BOOKMARK') return;
    const o = ev.object ?? {};
    if (format === 'json') return io.out(JSON.stringify(ev) + '\n');
    if (format === 'yaml') return io.out('---\n' + toYaml(ev));
    if (format === 'name') return io.out(`${ev.type} ${o.metadata?.name}\n`);
    const row = [paint(io.tty, colours[ev.type as keyof typeof colours] ?? 'grey', String(ev.type)), ...(cross ? [String(o.metadata?.project ?? '')] : []), String(o.metadata?.name), String(o.metadata?.version ?? '-'), age(o.metadata?.updatedAt)];
    const header = ['EVENT', ...(cross ? ['PROJECT'] : []), 'NAME', 'VERSION', 'UPDATED'];
    // Fixed widths: rows arrive one at a time, so they cannot be aligned on the longest.
    const widths = [8, ...(cross ? [20] : []), 40, 7, 7];
    const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] + (c.length - c.replace(/\x1b\[[0-9;]*m/g, '').length)))).join('  ') + '\n';
    if (!headerShown) io.out(line(header));
    headerShown = true;
    io.out(line(row));
  });
}
