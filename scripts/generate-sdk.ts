/**
 * The SDK's part of `npm run gen`: schemas/ -> sdk/generated/ (the types of every kind as a
 * manifest is written, the spec types of every plugin, and one builder per plugin kind of the
 * catalog). test/generated.test.ts fails when they are stale.
 *
 * The kinds' schemas are what the server validates; the SDK's types are those schemas with what
 * a manifest leaves out: the metadata the server fills in (`createdAt`, `updatedAt`, `version`)
 * is not there, `metadata.project` is optional (dashctl fills it in from `-p`), and the
 * `if kind = X then spec: Y` branches become a union TypeScript can check.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMAS_DIR } from '../src/paths.js';
import { builderName } from '../sdk/names.js';
import { compileTypes, HEADER, ID_BASE } from './schema-types.js';

/** Metadata the server sets on every write; a manifest never carries it. */
const SERVER_OWNED = ['createdAt', 'updatedAt', 'version'];

// biome-ignore lint/suspicious/noExplicitAny: JSON Schemas are walked by shape, any key may hold anything
type Json = Record<string, any>;

function readDir(sub: string): Json[] {
  const dir = join(SCHEMAS_DIR, sub);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'catalog.json')
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Json);
}

/** One entry of schemas/plugins/catalog.json. */
interface CatalogEntry {
  kind: string;
  type: string;
  schema: string | null;
  synonymOf?: string;
}

/** A schema with the server-owned metadata left out and `project` optional. */
function manifestMetadata(s: Json): Json {
  if (!s.properties?.createdAt) return s;
  const properties = Object.fromEntries(Object.entries(s.properties as Json).filter(([k]) => !SERVER_OWNED.includes(k)));
  return { ...s, properties, required: (s.required as string[]).filter((k) => !SERVER_OWNED.includes(k) && k !== 'project') };
}

/** `allOf` made only of `if {K: const C} then {...}` branches -> `oneOf` of the base narrowed to each C. */
function discriminated(s: Json): Json {
  const branches = s.allOf as Json[] | undefined;
  const isConst = (b: Json) =>
    b.if && b.then && Object.keys(b.if.properties ?? {}).length === 1 && Object.values(b.if.properties as Json)[0].const !== undefined;
  if (!branches?.length || !branches.every(isConst)) return s;
  const { allOf: _, ...base } = s;
  const oneOf = branches.map((b) => {
    const [key, cond] = Object.entries(b.if.properties as Json)[0];
    return {
      type: 'object',
      properties: { ...base.properties, [key]: { ...base.properties[key], const: cond.const, enum: undefined }, ...b.then.properties },
      required: base.required,
      additionalProperties: base.additionalProperties,
    };
  });
  const { properties: _p, required: _r, additionalProperties: _a, type: _t, ...rest } = base;
  return { ...rest, oneOf };
}

/**
 * `allOf: [{$ref: '#'}, patch]` where the patch only makes nested properties required ->
 * the referenced schema (the root of `root`) with those requirements merged in, branch by branch.
 */
function mergedPatch(s: Json, root: Json): Json {
  const parts = s.allOf as Json[] | undefined;
  if (parts?.length !== 2 || parts[0].$ref !== '#') return s;
  const patch = parts[1];
  const apply = (target: Json, p: Json): Json => {
    const out: Json = { ...target, required: [...new Set([...(target.required ?? []), ...(p.required ?? [])])] };
    if (!out.required.length) delete out.required;
    for (const [k, sub] of Object.entries((p.properties ?? {}) as Json)) {
      if (out.properties?.[k]?.$ref) continue; // a $ref'd sub-schema keeps its own requirements
      if (out.properties?.[k]) out.properties = { ...out.properties, [k]: apply(out.properties[k], sub) };
    }
    return out;
  };
  const { definitions: _d, $id: _i, $schema: _s, title: _t, description: _desc, ...body } = root;
  const base = discriminated(body);
  const branches = (base.oneOf ?? [base]).map((b: Json) => {
    const spec = b.properties?.spec;
    const target = spec?.$ref ? resolveLocal(root, spec.$ref) : spec;
    return { ...b, properties: { ...b.properties, spec: apply(target, patch.properties.spec) } };
  });
  return { title: s.title, description: s.description, oneOf: branches };
}

function resolveLocal(root: Json, ref: string): Json {
  return ref
    .slice(2)
    .split('/')
    .reduce((o, k) => o[k], root);
}

/** Every schema transformed into its manifest form, by $id. */
function sdkSchemas(): { all: Map<string, Json>; kinds: Json[]; plugins: Json[] } {
  const all = new Map<string, Json>();
  const kinds = readDir('kinds');
  const plugins = readDir('plugins');
  for (const s of [...readDir('defs'), ...kinds, ...plugins]) {
    let t = discriminated(manifestMetadata(s));
    // a plugin reference is the SDK's Plugin: typed by kind, and any of them fits where a plugin goes
    if (s.$id === `${ID_BASE}defs/plugin.json`)
      t = { ...t, tsType: '{ kind: string; spec: object; metadata?: { version?: string; registry?: string } }' };
    if (t.definitions)
      t = {
        ...t,
        definitions: Object.fromEntries(Object.entries(t.definitions as Json).map(([k, d]) => [k, mergedPatch(discriminated(d), s)])),
      };
    all.set(s.$id, t);
  }
  return { all, kinds, plugins };
}

/** sdk/generated/types.ts: every kind (manifest form) and every plugin spec. */
async function typesSource(): Promise<string> {
  const { all, kinds, plugins } = sdkSchemas();
  const root = {
    title: 'DashplaneSdkTypes',
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(
      [...kinds, ...plugins.filter((p) => p.title !== 'PluginCommonDefinitions')].map((s) => [s.title, { $ref: s.$id }]),
    ),
  };
  return compileTypes(root, 'DashplaneSdkTypes', all);
}

/** The datasource plugin kind a plugin spec's `datasource` selector names first, if it has one. */
function datasourceKind(schema: Json, common: Json): string | undefined {
  const ref = schema.properties?.datasource?.$ref as string | undefined;
  if (!ref) return undefined;
  const selector = common.definitions[ref.split('/').pop()!] as Json;
  const object = ((selector.oneOf ?? []) as Json[]).find((b) => b.type === 'object');
  const kind = object?.properties?.kind;
  return kind?.const ?? kind?.enum?.[0];
}

/** The first sentence of a schema description, for a TSDoc line. */
const firstSentence = (text: string | undefined): string =>
  (text ?? '')
    .replace(/\s+/g, ' ')
    .replace(/^(.*?\.)\s.*$/, '$1')
    .replace(/\*\//g, '*\\/');

/** sdk/generated/catalog.ts (the catalog as types and data) and sdk/generated/plugins.ts (one builder per plugin kind). */
function pluginsSource(): { catalog: string; builders: string } {
  const catalog = JSON.parse(readFileSync(join(SCHEMAS_DIR, 'plugins', 'catalog.json'), 'utf8')) as CatalogEntry[];
  const schemaOf = (file: string): Json => JSON.parse(readFileSync(join(SCHEMAS_DIR, 'plugins', file), 'utf8')) as Json;
  const common = schemaOf('common.json');
  const specType = (e: CatalogEntry) => (e.schema ? (schemaOf(e.schema).title as string) : 'OpenPluginSpec');
  const specImports = `import type { ${[...new Set(catalog.filter((e) => e.schema).map(specType))].sort().join(', ')} } from './types.js';`;
  const lines = [
    HEADER,
    specImports,
    '',
    '/** The spec of a plugin whose schema the server does not know: any object. */',
    'export type OpenPluginSpec = Record<string, unknown>;',
    '',
    '/** Every plugin kind of the catalog (schemas/plugins/catalog.json) and the type of its spec. */',
    'export interface PluginSpecs {',
    ...catalog.map((e) => `  ${e.kind}: ${specType(e)};`),
    '}',
    '',
    '/** The type of each plugin kind: Panel, Datasource, Variable, or the kind of query it answers. */',
    'export const PLUGIN_TYPES = {',
    ...catalog.map((e) => `  ${e.kind}: '${e.type}',`),
    '} as const;',
    '',
    '/** Other names of plugin kinds (no builder of their own): synonym -> kind. */',
    'export const PLUGIN_SYNONYMS: Readonly<Record<string, string>> = {',
    ...catalog.filter((e) => e.synonymOf).map((e) => `  ${e.kind}: '${e.synonymOf}',`),
    '};',
    '',
    '/** For plugins whose spec has a `datasource` selector: the datasource kind a name refers to. */',
    'export const DATASOURCE_KINDS: Readonly<Record<string, string>> = {',
    ...catalog.flatMap((e) => {
      const k = e.schema ? datasourceKind(schemaOf(e.schema), common) : undefined;
      return k ? [`  ${e.kind}: '${k}',`] : [];
    }),
    '};',
    '',
  ];
  const builders = [
    HEADER,
    `import { plugin, type Plugin } from '../plugin.js';`,
    `import type { OpenPluginSpec } from './catalog.js';`,
    specImports,
  ];
  for (const e of catalog.filter((x) => !x.synonymOf)) {
    const schema = e.schema ? schemaOf(e.schema) : undefined;
    const optional = !schema || (!(schema.required as string[] | undefined)?.length && !schema.oneOf && !schema.anyOf && !schema.allOf);
    const doc = schema ? firstSentence(schema.description as string) : `A ${e.type} plugin whose spec the server does not check.`;
    builders.push(
      '',
      `/** ${e.kind} (${e.type}). ${doc} */`,
      `export function ${builderName(e.kind)}(spec: ${specType(e)}${optional ? ' = {}' : ''}): Plugin<'${e.kind}'> {`,
      `  return plugin('${e.kind}', spec);`,
      '}',
    );
  }
  return { catalog: lines.join('\n'), builders: `${builders.join('\n')}\n` };
}

/** sdk/generated/kinds.ts: every kind the server serves, its manifest type and its scope. */
function kindsSource(): string {
  const kinds = readDir('kinds');
  const isProject = (k: Json) => String(k.properties.metadata.$ref).endsWith('project-metadata.json');
  return [
    HEADER,
    `import type { ${kinds.map((k) => k.title).join(', ')} } from './types.js';`,
    '',
    '/** Every kind the server serves (schemas/kinds/) and the type of its manifest. */',
    'export interface Resources {',
    ...kinds.map((k) => `  ${k.title}: ${k.title};`),
    '}',
    '',
    '/** Whether each kind belongs to a project or is global. */',
    "export const KIND_SCOPES: { readonly [K in keyof Resources]: 'project' | 'global' } = {",
    ...kinds.map((k) => `  ${k.title}: '${isProject(k) ? 'project' : 'global'}',`),
    '};',
    '',
  ].join('\n');
}

/** The SDK's generated files, path (relative to the package root) -> content. */
export async function generateSdk(): Promise<Map<string, string>> {
  return new Map([
    ['sdk/generated/types.ts', await typesSource()],
    ['sdk/generated/catalog.ts', pluginsSource().catalog],
    ['sdk/generated/plugins.ts', pluginsSource().builders],
    ['sdk/generated/kinds.ts', kindsSource()],
  ]);
}
