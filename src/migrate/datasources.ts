import { arr, isObj, obj, str, type Obj } from './read.js';

/** How the datasources of a Grafana dashboard become datasources of the target project. */
export interface DatasourceOptions {
  /** Name of the Prometheus datasource of the target project every Prometheus query uses; absent: the project's default. */
  datasource?: string | undefined;
  /** Perses' `useDefaultDatasource`: no datasource names at all, the project's defaults are used. */
  useDefaultDatasource?: boolean | undefined;
  /** Values of the export's `${DS_X}` inputs (Perses' `input`): a datasource named there is kept by name. */
  input?: Record<string, string> | undefined;
}

/** `$name`, `${name}`, `${name:format}` or `[[name]]` -> name. */
function variableName(text: string): string | undefined {
  return /^\$\{(\w+)(?::\w+)?\}$|^\$(\w+)$|^\[\[(\w+)\]\]$/
    .exec(text.trim())
    ?.slice(1)
    .find((g) => g !== undefined);
}

/** Grafana plugin types of one family as one type: those that speak the Prometheus API as "prometheus", Pyroscope's (Phlare before it) as "pyroscope". */
export function normalizeType(type: string | undefined): string | undefined {
  if (type !== undefined && /prometheus|thanos|mimir|cortex|victoriametrics/i.test(type)) return 'prometheus';
  return type !== undefined && /pyroscope|phlare/i.test(type) ? 'pyroscope' : type;
}

const SPECIAL_UIDS: Record<string, string> = {
  '-- Mixed --': 'mixed',
  '-- Grafana --': 'grafana',
  '-- Dashboard --': 'dashboard',
  grafana: 'grafana',
};

/**
 * Resolves Grafana datasource references (`{type, uid}` objects, names, `${DS_X}` inputs,
 * `$datasource` variables): which plugin type they are, and which datasource of the target
 * project a query should name. Grafana uids never exist in the target project, so a query names
 * a datasource only when the caller chose one (`datasource`, or an `input` value).
 */
export class DatasourceResolver {
  /** `${DS_X}` input names and datasource variable names -> Grafana plugin type ("prometheus", "loki"...). */
  private readonly types = new Map<string, string>();
  /** Values the caller gave for inputs: a reference equal to one of them names a datasource on purpose. */
  private readonly chosen = new Map<string, string>();
  /** Datasource variables: name -> plugin type. */
  readonly variables = new Map<string, string>();
  /** Distinct literal Prometheus references seen (uids, names), for the "several datasources" note. */
  readonly prometheusRefs = new Set<string>();
  /** Datasource names the dashboard's log panels query with LogQL: Loki datasources, although the dashboard names no type. */
  private readonly learned = new Map<string, string>();
  /** The datasource inputs of the export, in order: name -> plugin type. */
  private readonly inputs: [string, string][] = [];
  /** Datasource variables kept as pickers (DatasourceVariables): name -> the Perses datasource kind they list. */
  private readonly pickers = new Map<string, string>();

  constructor(
    dashboard: Obj,
    private readonly opts: DatasourceOptions,
  ) {
    for (const input of arr(dashboard.__inputs)) {
      if (!isObj(input) || input.type !== 'datasource' || !str(input.name)) continue;
      const type = str(input.pluginId) ?? 'unknown';
      this.types.set(input.name, type);
      this.inputs.push([input.name, type]);
      const given = opts.input?.[input.name];
      if (given !== undefined) this.chosen.set(given, type);
    }
    for (const [key, value] of Object.entries(opts.input ?? {}))
      if (!this.chosen.has(value)) this.chosen.set(value, this.types.get(key) ?? 'unknown');
    for (const v of arr(obj(dashboard.templating).list)) {
      if (isObj(v) && v.type === 'datasource' && str(v.name)) {
        const type = typeof v.query === 'string' ? v.query : (str(obj(v.query).query) ?? 'unknown');
        this.variables.set(v.name, type);
        this.types.set(v.name, type);
      }
    }
    this.learnFromLogPanels(dashboard);
  }

  /**
   * Datasources named only by a name ("Loki") that a log panel queries with an `expr`: Grafana
   * sends a log panel's queries to Loki, so that name is a Loki datasource wherever it is used.
   */
  private learnFromLogPanels(dashboard: Obj): void {
    const walk = (panels: unknown): void => {
      for (const p of arr(panels)) {
        if (!isObj(p)) continue;
        walk(p.panels);
        if (p.type !== 'logs') continue;
        for (const t of arr(p.targets)) {
          const name = str(obj(t).datasource) ?? (obj(t).datasource === undefined ? str(p.datasource) : undefined);
          if (name && typeof obj(t).expr === 'string' && this.typeOf(name) === undefined && !variableName(name))
            this.learned.set(name, 'loki');
        }
      }
    };
    walk(dashboard.panels);
    for (const row of arr(dashboard.rows)) walk(obj(row).panels);
  }

  /**
   * Where a variable without a datasource of its own sent its query: Grafana's default datasource,
   * which in an export "for sharing externally" is its datasource input when there is one only
   * (or several of one type). Undefined when the dashboard does not tell.
   */
  defaultRef(): { ref?: string; type: string } | undefined {
    const types = new Set(this.inputs.map(([, type]) => type));
    if (types.size !== 1 || types.has('unknown')) return undefined;
    const [type] = types;
    if (this.inputs.length > 1) return { type };
    const [name] = this.inputs[0];
    return { ref: this.opts.input?.[name] ?? `\${${name}}`, type };
  }

  /** The Grafana plugin type a reference points at ("prometheus", "loki", "mixed", "testdata"...), undefined when it cannot be told. */
  typeOf(ref: unknown): string | undefined {
    if (isObj(ref)) {
      const type = str(ref.type);
      if (type === 'datasource') return SPECIAL_UIDS[String(ref.uid)] ?? 'mixed';
      if (type) return type;
      return this.typeOf(ref.uid);
    }
    const text = str(ref);
    if (!text) return undefined;
    if (SPECIAL_UIDS[text]) return SPECIAL_UIDS[text];
    const variable = variableName(text);
    if (variable) return this.types.get(variable);
    const chosen = this.chosen.get(text);
    return chosen && chosen !== 'unknown' ? chosen : this.learned.get(text);
  }

  /**
   * Whether the datasource variable `name` (listing datasources of the Perses `kind`) is kept as
   * a picker, a DatasourceVariable its queries name (`"$name"`): not when the caller asked for the
   * project's defaults, nor when it named the datasource it stands for (`input`).
   */
  keepPicker(name: string, kind: string): boolean {
    if (this.opts.useDefaultDatasource || this.opts.input?.[name] !== undefined) return false;
    this.pickers.set(name, kind);
    return true;
  }

  /** The datasource selector a migrated query or variable carries: an object, a datasource variable (`"$ds"`), or undefined for the project's default of `kind`. */
  selector(kind: string, ref: unknown): Obj | string | undefined {
    if (this.opts.useDefaultDatasource) return undefined;
    const text = isObj(ref) ? str(ref.uid) : str(ref);
    const variable = text ? variableName(text) : undefined;
    if (variable && this.pickers.get(variable) === kind) return `$${variable}`;
    // a datasource the caller named through `input` is kept, even when a project's default or `datasource` is given
    if (text && this.chosen.has(text)) return { kind, name: text };
    if (kind === 'PrometheusDatasource' && this.opts.datasource) return { kind, name: this.opts.datasource };
    if (text && kind === 'PrometheusDatasource' && !variableName(text)) this.prometheusRefs.add(text);
    return undefined;
  }

  /** The Prometheus datasource the caller chose for every query (`datasource`), if any. */
  chosenPrometheus(): string | undefined {
    return this.opts.useDefaultDatasource ? undefined : this.opts.datasource;
  }

  /** Human words for where the queries go, for report notes; `variable`: the datasource variable or input they used. */
  target(kind: string, variable?: string): string {
    const given = variable !== undefined && !this.opts.useDefaultDatasource ? this.opts.input?.[variable] : undefined;
    if (given !== undefined) return `the datasource "${given}" given as input ${variable}`;
    if (kind === 'PrometheusDatasource' && this.opts.datasource) return `the datasource "${this.opts.datasource}"`;
    return `the project's default ${kind}`;
  }
}
