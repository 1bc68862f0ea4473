import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, posix } from 'node:path';

type Json = Record<string, unknown>;

/** `dashboard-spec.json` -> `DashboardSpec`. */
function pascal(file: string): string {
  return basename(file, '.json')
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/**
 * The kind schemas of schemas/ (kinds/, defs/, config.json) as OpenAPI 3.1 component schemas:
 * one component per file (a kind by its title, a definition file by its name in PascalCase),
 * `definitions` renamed `$defs` and every `$ref` between files rewritten to point inside
 * `#/components/schemas`. The schemas themselves are not changed otherwise, so the document says
 * exactly what the server validates.
 */
export function schemaComponents(schemasDir: string): Record<string, Json> {
  const files: { dir: string; file: string; name: string }[] = [];
  for (const dir of ['defs', 'kinds']) {
    for (const file of readdirSync(join(schemasDir, dir))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const schema = JSON.parse(readFileSync(join(schemasDir, dir, file), 'utf8')) as Json;
      files.push({ dir, file, name: dir === 'kinds' ? String(schema.title) : pascal(file) });
    }
  }
  files.push({ dir: '', file: 'config.json', name: 'ServerConfig' });
  const nameOf = new Map(files.map((f) => [posix.join(f.dir, f.file), f.name]));
  const out: Record<string, Json> = {};
  for (const f of files) {
    const schema = JSON.parse(readFileSync(join(schemasDir, f.dir, f.file), 'utf8')) as Json;
    delete schema.$schema;
    delete schema.$id;
    if (out[f.name]) throw new Error(`two schemas would be the component ${f.name}`);
    out[f.name] = rewrite(schema, (ref) => resolveRef(ref, f.dir, f.name, nameOf)) as Json;
  }
  return out;
}

/** A draft-07 `$ref` of a file in `dir` -> its place among the components. */
function resolveRef(ref: string, dir: string, self: string, nameOf: Map<string, string>): string {
  const [path, fragment = ''] = ref.split('#', 2);
  let target = self;
  if (path) {
    const found = nameOf.get(posix.join(dir, path));
    if (!found) throw new Error(`schema reference ${ref} (from ${dir}/) names no schema file`);
    target = found;
  }
  return `#/components/schemas/${target}${fragment.replace(/^\/definitions\//, '/$defs/')}`;
}

/** Keywords that OpenAPI tools resolve wherever they appear, even as a property name. */
const KEYWORD_NAMES = /^\$(?:ref|id|schema|anchor|dynamicRef|dynamicAnchor)$/;

function rewrite(value: unknown, ref: (r: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewrite(v, ref));
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string') out.$ref = ref(v);
    else if (k === 'definitions') out.$defs = rewrite(v, ref);
    else if (k === 'properties' && v && typeof v === 'object') Object.assign(out, splitKeywordProperties(v as Json, ref, out));
    else out[k] = rewrite(v, ref);
  }
  return out;
}

/**
 * A property named like a keyword (a layout item's `content.$ref`) is the same constraint written
 * as `patternProperties: {"^\\$ref$": ...}`: OpenAPI tools that resolve every `$ref` key then do
 * not mistake the property for a reference.
 */
function splitKeywordProperties(props: Json, ref: (r: string) => string, into: Json): Json {
  const plain: Json = {};
  const patterns: Json = { ...((into.patternProperties as Json | undefined) ?? {}) };
  for (const [name, schema] of Object.entries(props)) {
    if (KEYWORD_NAMES.test(name)) patterns[`^\\${name}$`] = rewrite(schema, ref);
    else plain[name] = rewrite(schema, ref);
  }
  return { properties: plain, ...(Object.keys(patterns).length ? { patternProperties: patterns } : {}) };
}
