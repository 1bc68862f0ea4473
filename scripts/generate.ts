/**
 * `npm run gen`: schemas/ -> src/kinds/generated/ (TypeScript types and ajv standalone validators)
 * and sdk/generated/ (the SDK's types and plugin builders, scripts/generate-sdk.ts).
 * The output is committed; test/generated.test.ts fails when it is stale.
 */
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Ajv } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { boundErrorCollection } from '../src/lib/ajv-bounds.js';
import { PACKAGE_ROOT, SCHEMAS_DIR } from '../src/paths.js';
import { generateSdk } from './generate-sdk.js';
import { compileTypes, HEADER, ID_BASE } from './schema-types.js';

export const GENERATED_DIR = join(PACKAGE_ROOT, 'src', 'kinds', 'generated');

interface Schema {
  $id: string;
  title: string;
  [k: string]: unknown;
}

function loadDir(sub: string): Schema[] {
  const dir = join(SCHEMAS_DIR, sub);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Schema);
}

/** Every schema the kinds and the configuration use, by $id. */
function loadAll(): { all: Map<string, Schema>; kinds: Schema[]; config: Schema } {
  const defs = loadDir('defs');
  const kinds = loadDir('kinds');
  const config = JSON.parse(readFileSync(join(SCHEMAS_DIR, 'config.json'), 'utf8')) as Schema;
  const all = new Map<string, Schema>();
  for (const s of [...defs, ...kinds, config]) {
    if (!s.$id?.startsWith(ID_BASE)) throw new Error(`schema "${s.title}" needs an $id under ${ID_BASE}`);
    all.set(s.$id, s);
  }
  return { all, kinds, config };
}

function validatorsSource(all: Map<string, Schema>, kinds: Schema[], config: Schema): string {
  const ajv = new Ajv({ allErrors: true, strict: true, code: { source: true, esm: true, lines: true } });
  for (const s of all.values()) ajv.addSchema(s);
  const exports: Record<string, string> = {};
  for (const k of kinds) exports[k.title] = k.$id;
  exports[config.title] = config.$id;
  const standaloneCode = standaloneModule as unknown as (ajv: Ajv, refs: Record<string, string>) => string;
  // errors merged in linear time and collection capped (src/lib/ajv-bounds.ts: COST-02)
  const code = boundErrorCollection(standaloneCode(ajv, exports).replace(/^"use strict";/, ''));
  return `${HEADER}// @ts-nocheck\nimport { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${code}\n`;
}

/** A configuration schema object, as far as `resolvedSchema` reads it. */
interface ObjectSchema {
  title?: string;
  type?: unknown;
  properties?: Record<string, ObjectSchema>;
  required?: string[];
  default?: unknown;
  [k: string]: unknown;
}

/**
 * The configuration as loadConfig returns it: every key with a default is filled in (objects
 * are, and so are their keys with defaults, but not the items of arrays), so it is required in
 * the type; named objects become `Resolved<Name>`. Other subschemas are shared with the
 * configuration's own type.
 */
function resolvedSchema(s: ObjectSchema, at: string): ObjectSchema {
  const { $id: _id, ...rest } = s;
  if (!s.properties) return rest;
  // a subschema with named types inside (the items of arrays) is the configuration's own: one type, not two
  const named = (p: ObjectSchema) => JSON.stringify(p).includes('"title"');
  const properties = Object.fromEntries(
    Object.entries(s.properties).map(([k, p]) => [
      k,
      p.type === 'object' && p.properties ? resolvedSchema(p, `${at}/properties/${k}`) : named(p) ? { $ref: `${at}/properties/${k}` } : p,
    ]),
  );
  const defaulted = Object.entries(s.properties)
    .filter(([, p]) => p.default !== undefined)
    .map(([k]) => k);
  return {
    ...rest,
    ...(s.title ? { title: `Resolved${s.title}` } : {}),
    properties,
    required: [...new Set([...(s.required ?? []), ...defaulted])],
  };
}

async function typesSource(all: Map<string, Schema>, kinds: Schema[], config: Schema): Promise<string> {
  // read like the others, from its own $id beside the configuration's (its relative $refs resolve there)
  const resolved = {
    ...resolvedSchema(config as ObjectSchema, `${config.$id}#`),
    $id: new URL('resolved-config.json', config.$id).href,
  } as Schema;
  all = new Map([...all, [resolved.$id, resolved]]);
  const root = {
    title: 'DashplaneSchemas',
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries([...kinds, config, resolved].map((s) => [s.title, { $ref: s.$id }])),
  };
  return compileTypes(root, 'DashplaneSchemas', all);
}

/** The generated files, path (relative to the package root) -> content. */
export async function generate(): Promise<Map<string, string>> {
  const { all, kinds, config } = loadAll();
  const out = new Map<string, string>();
  out.set(relative(PACKAGE_ROOT, join(GENERATED_DIR, 'validators.ts')), validatorsSource(all, kinds, config));
  out.set(relative(PACKAGE_ROOT, join(GENERATED_DIR, 'types.ts')), await typesSource(all, kinds, config));
  for (const [file, content] of await generateSdk()) out.set(file, content);
  return out;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  for (const [file, content] of await generate()) {
    mkdirSync(dirname(join(PACKAGE_ROOT, file)), { recursive: true });
    writeFileSync(join(PACKAGE_ROOT, file), content);
    console.log(`wrote ${file}`);
  }
}
