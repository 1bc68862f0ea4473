import { createRequire } from 'node:module';
import { type ApiError, badRequest } from '../errors.js';
import { pathOfPlace } from '../lib/object-path.js';
import { type BodyLimits, tooDeep, tooManyKeys, tooManyNodes } from './body-limits.js';
import { assertSafeValue } from './hygiene.js';

type JsYaml = typeof import('js-yaml');

/**
 * A YAML body as the JSON text it stands for, which the server then reads like any JSON body
 * (`parseJson`): one document of the YAML 1.2 core schema without custom tags, every key unique,
 * within the body limits once its aliases are expanded.
 *
 * js-yaml reads it: it builds values directly, about ten times faster than the `yaml` package and
 * with a tenth of its memory (5 MB of small values: 0.5 s and 60 MB, against 5-10 s and 1 GB for
 * the `yaml` package's syntax tree, whose duplicate-key check also compared each key with every
 * earlier one: 20,000 keys blocked the server 12 s). js-yaml keeps an alias as a reference to its
 * anchor's value, so the expansion is counted here (`checkExpansion`) before anything walks it.
 * Large bodies are read in a worker thread (src/api/yaml-reader.ts).
 */
export function yamlBodyToJson(text: string, l: BodyLimits): string {
  if (text.trim() === '') throw badRequest('the request body is empty; send a YAML mapping');
  const { load, YAMLException } = jsYaml();
  let value: unknown;
  try {
    // js-yaml counts levels its own way: the exact limit is assertSafeValue's, on the value
    value = load(text, { schema: coreSchema(), maxDepth: l.maxDepth + 2 } as import('js-yaml').LoadOptions); // maxDepth: js-yaml 4.3, not in its types
  } catch (e) {
    if (!(e instanceof YAMLException)) throw e;
    if (/^nesting exceeded maxDepth/.test(e.reason)) throw tooDeep(l);
    if (/^expected a single document/.test(e.reason))
      throw badRequest('the request body holds more than one YAML document; send exactly one (dashctl apply splits files)');
    // the reason and position only: js-yaml's message quotes the text, which may hold a password
    throw badRequest(`the request body is not valid YAML: ${e.reason} (line ${e.mark.line + 1}, column ${e.mark.column + 1})`);
  }
  checkExpansion(value, l);
  assertSafeValue(value, l.maxDepth);
  return JSON.stringify(value) ?? 'null';
}

let loaded: { module: JsYaml; schema: InstanceType<JsYaml['Schema']> } | undefined;

/** js-yaml, loaded with the first YAML body (most servers never read one). */
function jsYaml(): JsYaml {
  loaded ??= withSchema(createRequire(import.meta.url)('js-yaml') as JsYaml);
  return loaded.module;
}

function coreSchema(): InstanceType<JsYaml['Schema']> {
  jsYaml();
  return loaded!.schema;
}

const INT = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;
const FLOAT =
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*))$/;

/**
 * The YAML 1.2 core schema exactly as the `yaml` package (and so dashctl, and this server before)
 * reads it: js-yaml's own core schema also reads `0b101` as a number and `-0` as 0.
 */
function withSchema(module: JsYaml): { module: JsYaml; schema: InstanceType<JsYaml['Schema']> } {
  const { FAILSAFE_SCHEMA, Type } = module;
  const types = (module as unknown as { types: Record<'null' | 'bool', InstanceType<JsYaml['Type']>> }).types;
  const int = new Type('tag:yaml.org,2002:int', {
    kind: 'scalar',
    resolve: (s: string | null) => s !== null && INT.test(s),
    construct: (s: string) =>
      s.startsWith('0o') ? Number.parseInt(s.slice(2), 8) : s.startsWith('0x') ? Number.parseInt(s.slice(2), 16) : Number.parseInt(s, 10),
  });
  const float = new Type('tag:yaml.org,2002:float', {
    kind: 'scalar',
    resolve: (s: string | null) => s !== null && FLOAT.test(s),
    construct: (s: string) =>
      /nan$/i.test(s) ? Number.NaN : /inf$/i.test(s) ? (s.startsWith('-') ? -1 : 1) * Number.POSITIVE_INFINITY : Number.parseFloat(s),
  });
  return { module, schema: FAILSAFE_SCHEMA.extend({ implicit: [types.null, types.bool, int, float] }) };
}

/** A container met on the walk, its place (for messages) and where its count started. */
interface Frame {
  value: object;
  parent?: Frame | undefined;
  key?: string | number | undefined;
  children: unknown[];
  next: number;
  nodes: number;
  bytes: number;
}

/**
 * Counts the values and the text a parsed YAML body stands for, an alias counting as a full copy
 * of its anchor's value (js-yaml shares it), without recursion and in time linear in the values
 * js-yaml built: what a shared value amounts to is counted once and remembered. Stops at the first
 * limit passed, or at a value that contains itself (`&a [*a]`, which JSON cannot hold).
 */
function checkExpansion(root: unknown, l: BodyLimits): void {
  const counted = new Map<object, { nodes: number; bytes: number }>();
  const open = new Set<object>();
  let nodes = 0;
  let bytes = 0;
  let aliased = false;
  const add = (n: number, b: number) => {
    nodes += n;
    bytes += b;
    if (nodes > l.maxNodes) throw tooManyNodes(l, aliased);
    if (bytes > l.maxBytes) throw tooMuchText(l);
  };
  const stack: Frame[] = [];
  const enter = (value: unknown, parent?: Frame, key?: string | number) => {
    if (value === null || typeof value !== 'object') return add(1, typeof value === 'string' ? value.length : 0);
    const seen = counted.get(value);
    if (seen) {
      aliased = true;
      return add(seen.nodes, seen.bytes);
    }
    if (open.has(value))
      throw badRequest(
        `${pathOfPlace({ parent, key }) || 'the body'}: a YAML alias here stands for a value that contains it; JSON cannot hold that`,
      );
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    const frame: Frame = { value, parent, key, children: keys ?? (value as unknown[]), next: 0, nodes, bytes };
    if (keys && keys.length > l.maxKeys) throw tooManyKeys(l, pathOfPlace(frame));
    add(1, keys ? keys.reduce((n, k) => n + k.length, 0) : 0);
    open.add(value);
    stack.push(frame);
  };
  enter(root);
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    if (f.next < f.children.length) {
      const i = f.next++;
      if (Array.isArray(f.value)) enter(f.children[i], f, i);
      else enter((f.value as Record<string, unknown>)[f.children[i] as string], f, f.children[i] as string);
      continue;
    }
    stack.pop();
    open.delete(f.value);
    counted.set(f.value, { nodes: nodes - f.nodes, bytes: bytes - f.bytes });
  }
}

function tooMuchText(l: BodyLimits): ApiError {
  return badRequest(
    `the body stands for more than ${l.maxBytes} bytes of text once its YAML aliases are expanded (http.body_limit); write the values out, or send less`,
  );
}
