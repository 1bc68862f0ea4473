import type { KindDescriptor } from '../src/kinds/descriptor.js';
import { getPath } from '../src/lib/object-path.js';
import { CliError } from './errors.js';
import type { Io } from './io.js';
import { compileJsonPath, compileJsonPathValues } from './jsonpath.js';
import { resourceName } from './kinds.js';
import { age, paint, table, toYaml, yamlDocuments } from './output.js';

// biome-ignore lint/suspicious/noExplicitAny: objects of any kind as the server sent them
type Obj = Record<string, any>;

/** How `get` prints: kubectl's `-o` formats. */
export type Printer =
  | { format: 'table' | 'wide' | 'json' | 'yaml' | 'name' }
  | { format: 'jsonpath'; render(data: unknown): string }
  | { format: 'custom-columns'; columns: { header: string; values(o: Obj): unknown[] }[] };

/** What `-o` accepts (completion offers these). */
export const OUTPUT_WORDS = ['table', 'wide', 'json', 'yaml', 'name', 'jsonpath=', 'custom-columns='];

/** `-o` of get: table, wide, json, yaml, name, `jsonpath=TEMPLATE` or `custom-columns=HEADER:PATH,...` (`-o=...` as kubectl takes it too). */
export function parseOutput(given: string): Printer {
  const text = given.startsWith('=') ? given.slice(1) : given;
  const [format, spec] = text.includes('=') ? [text.slice(0, text.indexOf('=')), text.slice(text.indexOf('=') + 1)] : [text, undefined];
  if (spec === undefined && ['table', 'wide', 'json', 'yaml', 'name'].includes(format)) return { format } as Printer;
  if (format === 'jsonpath' && spec) return { format, render: compileJsonPath(spec) };
  if (format === 'custom-columns' && spec) return { format, columns: splitColumns(spec).map(column) };
  throw new CliError(
    `-o ${text}: unknown output format; use table, wide, json, yaml, name, jsonpath=TEMPLATE (e.g. jsonpath='{.metadata.name}') or custom-columns=HEADER:PATH,... (e.g. custom-columns=NAME:.metadata.name,TAGS:.metadata.tags)`,
  );
}

/** `NAME:.metadata.name,A:.x[0,1]`: commas inside brackets or braces do not split. */
function splitColumns(spec: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < spec.length; i++) {
    if ('[{('.includes(spec[i])) depth++;
    else if (']})'.includes(spec[i])) depth--;
    else if (spec[i] === ',' && depth === 0) {
      out.push(spec.slice(from, i));
      from = i + 1;
    }
  }
  return [...out, spec.slice(from)];
}

function column(spec: string): { header: string; values(o: Obj): unknown[] } {
  const colon = spec.indexOf(':');
  if (colon <= 0)
    throw new CliError(
      `-o custom-columns: "${spec}" is not HEADER:PATH; e.g. custom-columns=NAME:.metadata.name,PROJECT:.metadata.project`,
    );
  return { header: spec.slice(0, colon), values: compileJsonPathValues(spec.slice(colon + 1)) };
}

/** One object named alone: itself in JSON, YAML and JSONPath (as kubectl); a one-row list otherwise. */
export function printOne(io: Io, d: KindDescriptor, o: Obj, printer: Printer, project?: string): void {
  if (printer.format === 'json') io.out(`${JSON.stringify(o, null, 2)}\n`);
  else if (printer.format === 'yaml') io.out(toYaml(o));
  else if (printer.format === 'jsonpath') io.out(printer.render(o));
  else printList(io, d, [o], printer, false, project);
}

/** A list in the chosen format; JSONPath sees kubectl's `{kind: List, items}`. */
export function printList(io: Io, d: KindDescriptor, items: Obj[], printer: Printer, cross: boolean, project?: string): void {
  const none = () => io.err(`No ${d.plural} found${project ? ` in project ${project}` : ''}.\n`);
  switch (printer.format) {
    case 'json':
      io.out(`${JSON.stringify(items, null, 2)}\n`);
      break;
    case 'yaml':
      io.out(items.length ? yamlDocuments(items) : '');
      break;
    case 'name':
      io.out(items.map((o) => `${resourceName(d, String(o.metadata?.name), o.metadata?.project ?? project)}\n`).join(''));
      break;
    case 'jsonpath':
      io.out(printer.render({ kind: 'List', items }));
      break;
    case 'custom-columns':
      if (!items.length) none();
      else
        io.out(
          table(
            printer.columns.map((c) => c.header),
            items.map((o) => printer.columns.map((c) => customCell(c.values(o)))),
          ),
        );
      break;
    default:
      if (!items.length) none();
      else io.out(renderTable(items, cross, io.colour, printer.format === 'wide'));
  }
}

/** NAME (and PROJECT across projects), then DISPLAY / PLUGIN / DEFAULT when the objects have them, VERSION, AGE; wide: TAGS, UPDATED. */
function renderTable(items: Obj[], cross: boolean, colour: boolean, wide: boolean): string {
  const extras = [
    { title: 'DISPLAY', path: 'spec.display.name' },
    { title: 'PLUGIN', path: 'spec.plugin.kind' },
    { title: 'DEFAULT', path: 'spec.default' },
  ].filter((c) => items.some((o) => getPath(o, c.path) !== undefined));
  const header = [
    ...(cross ? ['PROJECT'] : []),
    'NAME',
    ...extras.map((c) => c.title),
    'VERSION',
    'AGE',
    ...(wide ? ['TAGS', 'UPDATED'] : []),
  ];
  const rows = items.map((o) => [
    ...(cross ? [String(o.metadata?.project ?? '')] : []),
    paint(colour, 'bold', String(o.metadata?.name ?? '')),
    ...extras.map((c) => cell(getPath(o, c.path))),
    String(o.metadata?.version ?? '-'),
    age(o.metadata?.createdAt),
    ...(wide
      ? [Array.isArray(o.metadata?.tags) && o.metadata.tags.length ? o.metadata.tags.join(',') : '<none>', age(o.metadata?.updatedAt)]
      : []),
  ]);
  return table(header, rows);
}

function cell(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v.replace(/\s+/g, ' ') : JSON.stringify(v);
}

/** A custom column's values: `<none>` when there are none, joined with commas (as kubectl prints them). */
function customCell(values: unknown[]): string {
  const shown = values.flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v) => v !== undefined && v !== null);
  return shown.length ? shown.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',') : '<none>';
}
