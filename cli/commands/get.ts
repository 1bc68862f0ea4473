import { Command, Option } from 'commander';
import { toHttpError, type ApiClient } from '../api-client.js';
import type { KindDescriptor } from '../../src/kinds/descriptor.js';
import { getPath } from '../../src/lib/object-path.js';
import type { Env } from '../env.js';
import { CliError } from '../errors.js';
import { collectionPath, objectPath, resolveKind, resourceName } from '../kinds.js';
import { listAll } from '../listing.js';
import { age, OUTPUT_FORMATS, paint, table, toYaml, yamlDocuments, type Io, type OutputFormat } from '../output.js';

// biome-ignore lint/suspicious/noExplicitAny: objects of any kind as the server sent them
type Obj = Record<string, any>;

interface GetFlags {
  output: OutputFormat;
  project?: string;
  allProjects?: boolean;
  prefix?: string;
  watch?: boolean;
}

/**
 * `dashctl get KIND [NAME...]`: the named objects (exactly; one object alone is printed as itself
 * in JSON/YAML), else every object, or those whose names start with `--prefix`; as a table, JSON,
 * YAML or kubectl-style names. `--watch` streams changes.
 */
export function makeGetCommand(env: Env): Command {
  return new Command('get')
    .description('show objects of a kind (dash, ds, gds, var, gvar, projects, ...): the named ones, or all of them (--prefix P: names starting with P)')
    .argument('<kind>', 'kind, plural or short name')
    .argument('[names...]', 'object names (exact)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'))
    .option('-p, --project <name>', 'project (default: the saved default project, else all)')
    .option('-A, --all-projects', 'every project')
    .option('--prefix <prefix>', 'only names starting with this')
    .option('-w, --watch', 'after the list, stream changes until interrupted')
    .action(async (kind: string, names: string[], flags: GetFlags) => {
      const ctx = env.ctx();
      const d = resolveKind(kind);
      if (names.length && flags.prefix !== undefined) throw new CliError('give either NAME... or --prefix PREFIX, not both');
      if (names.length && flags.allProjects && d.scope === 'project') throw new CliError(`${d.kind} names are only unique inside a project: pass -p PROJECT instead of -A`);
      const api = ctx.client();
      if (names.length) {
        const project = ctx.projectFor(d, flags.project);
        if (flags.watch) return watch(ctx.io, api, d, collectionPath(d, project), { names }, flags.output, false);
        return getNamed(ctx.io, api, d, names, project, flags.output);
      }
      const project = d.scope === 'project' && !flags.allProjects ? ctx.project(flags.project) : undefined;
      const path = collectionPath(d, project);
      const cross = d.scope === 'project' && project === undefined;
      if (flags.watch) return watch(ctx.io, api, d, path, { prefix: flags.prefix }, flags.output, cross);
      const items = await listAll(api, path, { name: flags.prefix });
      printList(ctx.io, d, items, flags.output, cross, project);
    });
}

/** Each named object; a missing one is an error (exit 1) after the others are printed. */
async function getNamed(io: Io, api: ApiClient, d: KindDescriptor, names: string[], project: string | undefined, format: OutputFormat): Promise<void> {
  const found: Obj[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const path = objectPath(d, name, project);
    const res = await api.request('GET', path);
    if (res.status === 404) missing.push(name);
    else if (res.status !== 200) throw toHttpError('GET', path, res);
    else found.push(res.body);
  }
  if (found.length === 1 && names.length === 1 && (format === 'json' || format === 'yaml')) io.out(format === 'json' ? `${JSON.stringify(found[0], null, 2)}\n` : toYaml(found[0]));
  else if (found.length) printList(io, d, found, format, false, project);
  if (!missing.length) return;
  const where = project !== undefined ? ` in project "${project}"` : '';
  const list = `dashctl get ${d.plural}${project !== undefined ? ` -p ${project}` : ''}`;
  throw new CliError(`${missing.map((n) => `${d.kind} "${n}" not found${where}`).join('\n')} (${list} lists them)`);
}

/** The list in the chosen format. */
export function printList(io: Io, d: KindDescriptor, items: Obj[], format: OutputFormat, cross: boolean, project?: string): void {
  switch (format) {
    case 'json':
      io.out(`${JSON.stringify(items, null, 2)}\n`);
      return;
    case 'yaml':
      io.out(items.length ? yamlDocuments(items) : '');
      return;
    case 'name':
      io.out(items.map((o) => `${resourceName(d, String(o.metadata?.name), o.metadata?.project ?? project)}\n`).join(''));
      return;
    default:
      if (items.length) io.out(renderTable(items, cross, io.tty));
      else io.err(`No ${d.plural} found${project ? ` in project ${project}` : ''}.\n`);
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

/**
 * Streams `?watch=true`: every event as a table row, a JSON line, a YAML document or `TYPE kind/project/name`.
 * A stream the server ends with an ERROR event (the access token expired, dashctl fell behind) is
 * opened again from the revision it names (refreshing the token), or from the start when it names none.
 */
async function watch(
  io: Io,
  api: ApiClient,
  d: KindDescriptor,
  path: string,
  only: { prefix?: string | undefined; names?: string[] | undefined },
  format: OutputFormat,
  cross: boolean,
): Promise<void> {
  let headerShown = false;
  const colours = { ADDED: 'green', MODIFIED: 'yellow', DELETED: 'red' } as const;
  const prefix = only.names?.length === 1 ? only.names[0] : only.prefix;
  const print = (ev: Obj) => {
    const o = ev.object ?? {};
    if (only.names && !only.names.includes(o.metadata?.name)) return;
    if (format === 'json') return io.out(`${JSON.stringify(ev)}\n`);
    if (format === 'yaml') return io.out(`---\n${toYaml(ev)}`);
    if (format === 'name') return io.out(`${ev.type} ${resourceName(d, String(o.metadata?.name), o.metadata?.project)}\n`);
    const row = [
      paint(io.tty, colours[ev.type as keyof typeof colours] ?? 'grey', String(ev.type)),
      ...(cross ? [String(o.metadata?.project ?? '')] : []),
      String(o.metadata?.name),
      String(o.metadata?.version ?? '-'),
      age(o.metadata?.updatedAt),
    ];
    const header = ['EVENT', ...(cross ? ['PROJECT'] : []), 'NAME', 'VERSION', 'UPDATED'];
    // Fixed widths: rows arrive one at a time, so they cannot be aligned on the longest.
    const widths = [8, ...(cross ? [20] : []), 40, 7, 7];
    const line = (cells: string[]) => `${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] + (c.length - c.replace(/\x1b\[[0-9;]*m/g, '').length)))).join('  ')}\n`;
    if (!headerShown) io.out(line(header));
    headerShown = true;
    io.out(line(row));
  };
  let since: number | undefined;
  for (;;) {
    let ended: Obj | undefined;
    await api.stream(path, { watch: true, name: prefix, since }, (ev: Obj) => {
      if (ev.type === 'ERROR') ended = ev;
      else since = ev.revision;
      if (ev.type !== 'BOOKMARK' && ev.type !== 'ERROR') print(ev);
    });
    // the server closed the stream without a word (it shut down): done
    if (!ended) return;
    since = typeof ended.revision === 'number' ? ended.revision : undefined;
    if (since === undefined) io.err(`the watch starts over: ${ended.object?.message ?? 'the server ended it'}\n`);
  }
}
