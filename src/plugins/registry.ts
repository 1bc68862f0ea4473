import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import type { ErrorDetail } from '../errors.js';
import { boundErrorCollection } from '../lib/ajv-bounds.js';
import { schemaErrors, type ValidateFunction } from '../lib/schema-errors.js';
import { joinPath } from '../lib/object-path.js';
import { promqlProblem } from './promql-check.js';

/**
 * The query languages a plugin may declare for a string field of its spec (`languages` in its
 * catalog entry): each checks a text and answers the problem, or undefined.
 */
const LANGUAGES: Readonly<Record<string, (text: string) => string | undefined>> = { promql: promqlProblem };

/** One known plugin kind. */
export interface PluginInfo {
  kind: string;
  /** Panel, Datasource, Variable, TimeSeriesQuery, TraceQuery, LogQuery, ProfileQuery, ... */
  type: string;
  module: string;
  /** For synonyms such as MetricsDatasource -> PrometheusDatasource. */
  synonymOf?: string;
  /** Validator of the plugin's `spec`; absent = any object. */
  validate?: ValidateFunction;
  /** The JSON Schema of the plugin's `spec`, as written (for clients: GET /api/v1/schemas/plugins/{kind}). */
  schema?: Record<string, unknown>;
  /** True when dashplane's web UI bundles the code that draws this kind (ui/src/plugins.ts); absent otherwise. */
  ui?: true;
  /**
   * A datasource kind's suggested proxy `allowedEndpoints`: the calls its Perses plugin makes,
   * written to match whole paths as the proxy does. The web UI's datasource form offers them.
   */
  allowedEndpoints?: readonly AllowedEndpoint[];
  /** Fields of the spec written in a query language, checked when the spec is: field -> language (`promql`). */
  languages?: Readonly<Record<string, string>>;
  /**
   * A datasource kind's read-only query calls (GET, and POST with a form body that is the whole
   * query): the proxy's query cache shares and keeps their answers and sorts their parameters;
   * `align` names which times it may align. Other GETs are shared and kept as they come.
   */
  queries?: readonly QueryEndpoint[];
}

/** One `allowedEndpoints` entry of an HTTPProxy block. */
export interface AllowedEndpoint {
  endpointPattern: string;
  method: string;
}

/**
 * A read-only query call of a datasource kind: its method and path pattern (matched against the
 * whole decoded path, as allowedEndpoints are), and which of its times alignment moves: `range`
 * (start, end and step), `instant` (time), `bounds` (start and end of a lookup without a step).
 */
export interface QueryEndpoint extends AllowedEndpoint {
  align?: 'range' | 'instant' | 'bounds';
}

/** A catalog entry as written in schemas/plugins/catalog.json or a plugin.schemas_dir file. */
interface CatalogEntry {
  kind: string;
  type: string;
  module?: string;
  synonymOf?: string;
  /** A file name (catalog) or an inline JSON Schema (schemas_dir files); null = open object. */
  schema?: string | Record<string, unknown> | null;
  /** Built-in catalog only: the web UI renders this kind. */
  ui?: boolean;
  /** Built-in catalog only: a datasource kind's suggested proxy allowedEndpoints. */
  allowedEndpoints?: AllowedEndpoint[];
  /** Spec fields written in a query language (a key of LANGUAGES), e.g. `{"query": "promql"}`. */
  languages?: Record<string, string>;
  /** Built-in catalog only: a datasource kind's read-only query calls (the proxy's query cache). */
  queries?: QueryEndpoint[];
}

/**
 * The plugin kinds the server knows and their spec schemas: the built-in catalog
 * (schemas/plugins/catalog.json) plus the files of `plugin.schemas_dir`.
 */
export class PluginRegistry {
  private readonly byKind = new Map<string, PluginInfo>();
  private readonly kindLists = new Map<string, string>();
  readonly queryTypes: ReadonlySet<string>;
  /** The query types, sorted, as a message lists them. */
  readonly queryTypeList: string;

  private constructor(entries: PluginInfo[]) {
    for (const e of entries) this.byKind.set(e.kind, e);
    this.queryTypes = new Set(entries.map((e) => e.type).filter((t) => t.endsWith('Query')));
    this.queryTypeList = [...this.queryTypes].sort().join(', ');
  }

  /** Loads the built-in catalog from `builtinDir` and, when given, every `*.json` file of `extraDir`. */
  static load(builtinDir: string, extraDir?: string): PluginRegistry {
    const schemas = new Map<string, Record<string, unknown>>();
    for (const f of readdirSync(builtinDir).filter((n) => n.endsWith('.json') && n !== 'catalog.json')) {
      schemas.set(f, readJson(join(builtinDir, f)) as Record<string, unknown>);
    }
    // The built-in schemas reach Ajv, and each is compiled, only when a validator first runs:
    // checking them against the meta-schema and compiling them took a tenth of the server's start
    // (and memory for plugins a server may never see). src/plugins/registry.test.ts compiles them all.
    let builtins: Ajv | undefined;
    const builtinAjv = (): Ajv => {
      if (!builtins) {
        builtins = newAjv();
        for (const schema of schemas.values()) builtins.addSchema(schema);
      }
      return builtins;
    };
    const byFile = (file: string): Pick<PluginInfo, 'validate' | 'schema'> => {
      const schema = schemas.get(file);
      if (!schema) throw new Error(`schemas/plugins/catalog.json names ${file}, which is not in ${builtinDir}`);
      return { validate: compiledOnFirstUse(() => builtinAjv().getSchema(schema.$id as string) as ValidateFunction), schema };
    };
    const catalog = readJson(join(builtinDir, 'catalog.json')) as CatalogEntry[];
    const entries: PluginInfo[] = catalog.map((e) => ({
      kind: e.kind,
      type: e.type,
      module: e.module ?? e.kind,
      ...(e.synonymOf ? { synonymOf: e.synonymOf } : {}),
      ...(typeof e.schema === 'string' ? byFile(e.schema) : {}),
      ...(e.ui === true ? { ui: true as const } : {}),
      ...(e.allowedEndpoints ? { allowedEndpoints: Object.freeze(e.allowedEndpoints.map((x) => Object.freeze({ ...x }))) } : {}),
      ...(e.queries ? { queries: Object.freeze(e.queries.map((x) => Object.freeze({ ...x }))) } : {}),
      ...languagesOf(e, 'schemas/plugins/catalog.json'),
    }));
    // a plugin.schemas_dir schema may $ref a built-in one
    if (extraDir) entries.push(...loadExtra(builtinAjv(), extraDir));
    return new PluginRegistry(entries);
  }

  get(kind: string): PluginInfo | undefined {
    return this.byKind.get(kind);
  }

  /** The read-only query calls of a datasource kind (of the kind it is a synonym of), or none. */
  queriesOf(kind: string): readonly QueryEndpoint[] | undefined {
    const info = this.byKind.get(kind);
    return info?.queries ?? (info?.synonymOf ? this.byKind.get(info.synonymOf)?.queries : undefined);
  }

  all(): PluginInfo[] {
    return [...this.byKind.values()];
  }

  /**
   * Checks one `{kind, spec}` plugin object found at `path`: the kind must be known and of one of
   * `types`, and the spec must match its schema.
   */
  check(plugin: unknown, types: readonly string[], path: string): ErrorDetail[] {
    if (plugin === null || typeof plugin !== 'object') return [];
    const { kind, spec } = plugin as { kind?: unknown; spec?: unknown };
    if (typeof kind !== 'string') return [];
    const info = this.byKind.get(kind);
    const kindPath = joinPath(path, 'kind');
    if (!info) {
      return [{ path: kindPath, message: `unknown ${types.join('/')} plugin kind "${kind}"; known: ${this.kindsOf(types)}` }];
    }
    if (!types.includes(info.type)) {
      return [{ path: kindPath, message: `plugin "${kind}" is a ${info.type} plugin; a ${types.join('/')} plugin is expected here` }];
    }
    const specPath = joinPath(path, 'spec');
    return [
      ...(info.validate ? schemaErrors(info.validate, spec ?? {}, specPath, `${kind} plugin spec`) : []),
      ...languageErrors(info, spec, specPath),
    ];
  }

  /** The known kinds of `types`, as a message lists them (made once per list of types: a dashboard may name thousands of unknown kinds). */
  private kindsOf(types: readonly string[]): string {
    const key = types.join('/');
    let list = this.kindLists.get(key);
    if (list === undefined) {
      list = this.all()
        .filter((p) => types.includes(p.type))
        .map((p) => p.kind)
        .sort()
        .join(', ');
      this.kindLists.set(key, list);
    }
    return list;
  }
}

/** Problems of the spec's fields written in a query language (Perses checks PromQL the same way, at validation, create and update). */
function languageErrors(info: PluginInfo, spec: unknown, specPath: string): ErrorDetail[] {
  if (!info.languages || spec === null || typeof spec !== 'object') return [];
  const out: ErrorDetail[] = [];
  for (const [field, language] of Object.entries(info.languages)) {
    const text = (spec as Record<string, unknown>)[field];
    const message = typeof text === 'string' ? LANGUAGES[language](text) : undefined;
    if (message) out.push({ path: joinPath(specPath, field), message });
  }
  return out;
}

/** The `languages` of a catalog entry, each a known language. */
function languagesOf(e: CatalogEntry, where: string): Pick<PluginInfo, 'languages'> {
  if (e.languages === undefined) return {};
  for (const [field, language] of Object.entries(e.languages)) {
    if (!Object.hasOwn(LANGUAGES, language)) {
      throw new Error(
        `${where}: plugin "${e.kind}" declares field "${field}" in language "${language}"; known languages: ${Object.keys(LANGUAGES).join(', ')}`,
      );
    }
  }
  return { languages: Object.freeze({ ...e.languages }) };
}

/** Every problem of a plugin spec, found in linear time and at most MAX_SCHEMA_ERRORS of them (src/lib/ajv-bounds.ts). */
function newAjv(): Ajv {
  return new Ajv({ allErrors: true, strict: true, code: { process: boundErrorCollection } });
}

/** A validator that compiles its schema the first time it runs. */
function compiledOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validate: ValidateFunction = (data: unknown) => {
    compiled ??= compile();
    const ok = compiled(data);
    validate.errors = compiled.errors ?? null;
    return ok;
  };
  return validate;
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Reads plugin.schemas_dir: each file holds one entry or an array of `{kind, type, module?, schema?}`. */
function loadExtra(ajv: Ajv, dir: string): PluginInfo[] {
  const out: PluginInfo[] = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const file = join(dir, f);
    let parsed: unknown;
    try {
      parsed = readJson(file);
    } catch (e) {
      throw new Error(`plugin.schemas_dir: ${file} is not valid JSON: ${(e as Error).message}`);
    }
    for (const [i, raw] of (Array.isArray(parsed) ? parsed : [parsed]).entries()) {
      const e = raw as CatalogEntry;
      const where = `plugin.schemas_dir: ${file}${Array.isArray(parsed) ? ` [${i}]` : ''}`;
      if (typeof e?.kind !== 'string' || typeof e.type !== 'string') {
        throw new Error(`${where}: each entry needs a string "kind" (e.g. "FooChart") and "type" (e.g. "Panel")`);
      }
      let validate: ValidateFunction | undefined;
      if (e.schema && typeof e.schema === 'object') {
        try {
          validate = ajv.compile(e.schema) as ValidateFunction;
        } catch (err) {
          throw new Error(`${where}: the schema of plugin "${e.kind}" does not compile: ${(err as Error).message}`);
        }
      }
      out.push({
        kind: e.kind,
        type: e.type,
        module: e.module ?? e.kind,
        ...(validate ? { validate, schema: e.schema as Record<string, unknown> } : {}),
        ...languagesOf(e, where),
      });
    }
  }
  return out;
}
