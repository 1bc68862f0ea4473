import { Command, Option } from 'commander';
import { toHttpError, type ApiClient } from '../api-client.js';
import type { KindDescriptor } from '../../src/kinds/descriptor.js';
import type { Env } from '../env.js';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';
import { collectionPath, objectPath, resolveKind, resourceName } from '../kinds.js';
import { listAll } from '../listing.js';
import { age, paint, table, toYaml } from '../output.js';
import { parseOutput, printList, printOne, type Printer } from '../printers.js';
import { parseSelector } from '../selector.js';

// biome-ignore lint/suspicious/noExplicitAny: objects of any kind as the server sent them
type Obj = Record<string, any>;

interface GetFlags {
  output: Printer;
  project?: string;
  allProjects?: boolean;
  prefix?: string;
  selector?: (o: Obj) => boolean;
  watch?: boolean;
}

/**
 * `dashctl get KIND [NAME...]`: the named objects (exactly; one object alone is printed as itself
 * in JSON/YAML/JSONPath), else every object, or those whose names start with `--prefix`, or those
 * whose tags match `-l`; as a table (`wide`: with tags), JSON, YAML, kubectl-style names, a
 * JSONPath template or custom columns. `--watch` streams changes.
 */
export function makeGetCommand(env: Env): Command {
  return new Command('get')
    .description(
      'show objects of a kind (dash, ds, gds, var, gvar, projects, ...): the named ones, or all of them (--prefix P: names starting with P; -l TAG: tagged)',
    )
    .argument('<kind>', 'kind, plural or short name')
    .argument('[names...]', 'object names (exact)')
    .addOption(
      new Option('-o, --output <format>', 'table, wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,...')
        .argParser(parseOutput)
        .default(parseOutput('table'), 'table'),
    )
    .option('-p, --project <name>', 'project (default: the saved default project, else all)')
    .option('-A, --all-projects', 'every project')
    .option('--prefix <prefix>', 'only names starting with this')
    .addOption(
      new Option('-l, --selector <tags>', 'only objects with these tags: TAG (carries it), !TAG (does not), comma-separated').argParser(
        parseSelector,
      ),
    )
    .option('-w, --watch', 'after the list, stream changes until interrupted')
    .action(async (kind: string, names: string[], flags: GetFlags) => {
      const ctx = env.ctx();
      const d = resolveKind(kind);
      if (names.length && flags.prefix !== undefined) throw new CliError('give either NAME... or --prefix PREFIX, not both');
      if (names.length && flags.selector) throw new CliError('give either NAME... or -l SELECTOR, not both');
      if (names.length && flags.allProjects && d.scope === 'project')
        throw new CliError(`${d.kind} names are only unique inside a project: pass -p PROJECT instead of -A`);
      const api = ctx.client();
      if (names.length) {
        const project = ctx.projectFor(d, flags.project);
        if (flags.watch) return watch(ctx.io, api, d, collectionPath(d, project), { names }, flags.output, false);
        return getNamed(ctx.io, api, d, names, project, flags.output);
      }
      const project = d.scope === 'project' && !flags.allProjects ? ctx.project(flags.project) : undefined;
      const path = collectionPath(d, project);
      const cross = d.scope === 'project' && project === undefined;
      if (flags.watch) return watch(ctx.io, api, d, path, { prefix: flags.prefix, selector: flags.selector }, flags.output, cross);
      const items = await listAll(api, path, { name: flags.prefix });
      printList(ctx.io, d, flags.selector ? items.filter(flags.selector) : items, flags.output, cross, project);
    });
}

/** Each named object; a missing one is an error (exit 1) after the others are printed. */
async function getNamed(
  io: Io,
  api: ApiClient,
  d: KindDescriptor,
  names: string[],
  project: string | undefined,
  printer: Printer,
): Promise<void> {
  const found: Obj[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const path = objectPath(d, name, project);
    const res = await api.request('GET', path);
    if (res.status === 404) missing.push(name);
    else if (res.status !== 200) throw toHttpError('GET', path, res);
    else found.push(res.body);
  }
  if (found.length === 1 && names.length === 1) printOne(io, d, found[0], printer, project);
  else if (found.length) printList(io, d, found, printer, false, project);
  if (!missing.length) return;
  const where = project !== undefined ? ` in project "${project}"` : '';
  const list = `dashctl get ${d.plural}${project !== undefined ? ` -p ${project}` : ''}`;
  throw new CliError(`${missing.map((n) => `${d.kind} "${n}" not found${where}`).join('\n')} (${list} lists them)`);
}

/**
 * Streams `?watch=true`: every event as a table row, a JSON line, a YAML document, `TYPE
 * kind/project/name`, the JSONPath template or custom columns of its object. A stream the server
 * ends with an ERROR event (the access token expired, dashctl fell behind) is opened again from
 * the revision it names (refreshing the token), or from the start when it names none.
 */
async function watch(
  io: Io,
  api: ApiClient,
  d: KindDescriptor,
  path: string,
  only: { prefix?: string | undefined; names?: string[] | undefined; selector?: ((o: Obj) => boolean) | undefined },
  printer: Printer,
  cross: boolean,
): Promise<void> {
  let headerShown = false;
  const colours = { ADDED: 'green', MODIFIED: 'yellow', DELETED: 'red' } as const;
  const prefix = only.names?.length === 1 ? only.names[0] : only.prefix;
  const print = (ev: Obj) => {
    const o = ev.object ?? {};
    if (only.names && !only.names.includes(o.metadata?.name)) return;
    if (only.selector && !only.selector(o)) return;
    if (printer.format === 'json') return io.out(`${JSON.stringify(ev)}\n`);
    if (printer.format === 'yaml') return io.out(`---\n${toYaml(ev)}`);
    if (printer.format === 'name') return io.out(`${ev.type} ${resourceName(d, String(o.metadata?.name), o.metadata?.project)}\n`);
    if (printer.format === 'jsonpath') return io.out(printer.render(o));
    if (printer.format === 'custom-columns') {
      const text = table(
        ['EVENT', ...printer.columns.map((c) => c.header)],
        [[String(ev.type), ...printer.columns.map((c) => c.values(o).map(String).join(',') || '<none>')]],
      );
      io.out(headerShown ? text.slice(text.indexOf('\n') + 1) : text);
      headerShown = true;
      return;
    }
    const row = [
      paint(io.colour, colours[ev.type as keyof typeof colours] ?? 'grey', String(ev.type)),
      ...(cross ? [String(o.metadata?.project ?? '')] : []),
      String(o.metadata?.name),
      String(o.metadata?.version ?? '-'),
      age(o.metadata?.updatedAt),
    ];
    const header = ['EVENT', ...(cross ? ['PROJECT'] : []), 'NAME', 'VERSION', 'UPDATED'];
    // Fixed widths: rows arrive one at a time, so they cannot be aligned on the longest.
    const widths = [8, ...(cross ? [20] : []), 40, 7, 7];
    const line = (cells: string[]) =>
      `${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] + (c.length - c.replace(/\x1b\[[0-9;]*m/g, '').length)))).join('  ')}\n`;
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
