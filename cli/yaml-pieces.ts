import jsyaml from 'js-yaml';
import type { Document, LineCounter } from 'yaml';
import { yamlModule } from '../src/lib/yaml-module.js';
import { DEFAULT_MAX_DEPTH, jsonTextDepthExceeds, NestingError, parseYamlDocuments, valueDepthExceeds } from '../src/lib/nesting.js';
import { CliError } from './errors.js';
import { isObj, type Obj } from '../src/lib/is-obj.js';

/** One resource-sized value of a file: the value, its document, and its path inside the document. */
export interface RawPiece {
  value: unknown;
  doc: number;
  prefix: (string | number)[];
}

/**
 * Splits a file's text into resources: JSON (object or array) or YAML (every document), with
 * arrays, Kubernetes `List`s and maps of names to resources unfolded. Pure (runs in workers);
 * a syntax error throws a CliError naming the file, line and column. Nesting deeper than
 * DEFAULT_MAX_DEPTH (the server's limit) is refused before or while parsing: a hostile file
 * must not exhaust the stack.
 */
export function parsePieces(file: string, text: string): RawPiece[] {
  const pieces: RawPiece[] = [];
  const isJsonFile = /\.json$/i.test(file);
  const tooDeep = () =>
    new CliError(
      `${file}: nested more than ${DEFAULT_MAX_DEPTH} levels deep (dashctl and the server read at most ${DEFAULT_MAX_DEPTH}); flatten it`,
    );
  const take = (value: unknown, doc: number) => {
    if (valueDepthExceeds(value, DEFAULT_MAX_DEPTH)) throw tooDeep();
    unfold(value, doc, [], pieces);
  };
  if (isJsonFile && jsonTextDepthExceeds(text, DEFAULT_MAX_DEPTH)) throw tooDeep();
  // Text that looks like JSON but nests too deep goes on to YAML, which refuses it with the same message.
  if (isJsonFile || (/^\s*[[{]/.test(text) && !jsonTextDepthExceeds(text, DEFAULT_MAX_DEPTH))) {
    try {
      take(JSON.parse(text), 0);
      return pieces;
    } catch (e) {
      if (e instanceof CliError) throw e;
      if (isJsonFile) throw jsonError(file, text, e as Error);
    }
  }
  const fast = fastLoad(text);
  if (fast) {
    fast.forEach((v, i) => take(v, i));
    return pieces;
  }
  const counter = new (yamlModule().LineCounter)();
  let docs: Document.Parsed[];
  try {
    docs = parseYamlDocuments(text, DEFAULT_MAX_DEPTH, { lineCounter: counter });
  } catch (e) {
    if (e instanceof NestingError) throw tooDeep();
    throw e;
  }
  docs.forEach((d, i) => {
    const err = d.errors[0];
    if (err) {
      const pos = counter.linePos(err.pos[0]);
      throw new CliError(`${file}:${pos.line}:${pos.col}: not valid YAML: ${err.message.split('\n')[0]}`);
    }
    take(d.toJS({ maxAliasCount: 100 }), i);
  });
  return pieces;
}

/**
 * `file:5:3: not valid JSON: Expected ',' or '}' after property value`: JSON.parse names an
 * offset (`at position 68`, with `(line 5 column 3)` on newer engines); the user needs the line.
 */
function jsonError(file: string, text: string, e: Error): CliError {
  const m = /^(.*?)(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/s.exec(e.message);
  const offset = m ? Number(m[2]) : /Unexpected end of JSON input/.test(e.message) ? text.length : undefined;
  if (offset === undefined) return new CliError(`${file}: not valid JSON: ${e.message}`);
  const before = text.slice(0, offset).split('\n');
  const message = m ? m[1] : e.message;
  return new CliError(`${file}:${before.length}:${before[before.length - 1].length + 1}: not valid JSON: ${message}`);
}

/**
 * Texts the fast path leaves to `yaml`: an anchor (`&name`) would let aliases repeat values, and
 * js-yaml reads `0b101` as a number where YAML 1.2 core keeps the string.
 */
const CAREFUL = /(?:^|[\s,[{])&[^\s,[\]{}]|(?:^|[\s,[{:])[-+]?0b[01]/m;

/**
 * js-yaml with the YAML 1.2 core schema (the same values as the `yaml` package's defaults: no
 * timestamps, no merge keys) parses a large apply about 9x faster. Anything it refuses, and any
 * file with anchors, goes through `yaml`, which reports errors with line and column and limits
 * alias expansion. Undefined means "use the careful path".
 */
export function fastLoad(text: string): unknown[] | undefined {
  if (CAREFUL.test(text)) return undefined;
  try {
    // js-yaml (4.3 and later) stops at maxDepth while it parses.
    return jsyaml.loadAll(text, undefined, { schema: jsyaml.CORE_SCHEMA, maxDepth: DEFAULT_MAX_DEPTH } as jsyaml.LoadOptions);
  } catch {
    return undefined;
  }
}

function unfold(value: unknown, doc: number, prefix: (string | number)[], out: RawPiece[]): void {
  if (Array.isArray(value)) value.forEach((v, i) => unfold(v, doc, [...prefix, i], out));
  else if (isObj(value) && value.kind === 'List' && Array.isArray(value.items))
    value.items.forEach((v, i) => unfold(v, doc, [...prefix, 'items', i], out));
  else if (isObj(value) && isWrappedMap(value))
    for (const [k, v] of Object.entries(value)) out.push({ value: v, doc, prefix: [...prefix, k] });
  else if (value !== null && value !== undefined) out.push({ value, doc, prefix });
}

/** `{linuxDashboard: {kind: Dashboard, ...}, ...}`: a map of names to resources (Perses DaC output). */
function isWrappedMap(v: Obj): boolean {
  const values = Object.values(v);
  return v.kind === undefined && values.length > 0 && values.every((x) => isObj(x) && typeof x.kind === 'string' && isObj(x.metadata));
}

/** Line numbers of paths in a text, parsed on first use (only errors need them). */
export function lineFinder(text: () => string): (doc: number, path: (string | number)[]) => number | undefined {
  let parsed: { docs: Document[]; counter: LineCounter } | undefined;
  return (doc, path) => {
    try {
      if (!parsed) {
        const counter = new (yamlModule().LineCounter)();
        parsed = { docs: parseYamlDocuments(text(), DEFAULT_MAX_DEPTH, { lineCounter: counter }), counter };
      }
      const d = parsed.docs[doc];
      if (!d) return undefined;
      for (let n = path.length; n >= 0; n--) {
        const node = d.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
        if (node && typeof node === 'object' && node.range) return parsed.counter.linePos(node.range[0]).line;
      }
    } catch {
      // no line then
    }
    return undefined;
  };
}
