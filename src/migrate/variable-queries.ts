import { isObj, regexSource, str, type Obj } from './read.js';

/**
 * Grafana's Prometheus and Loki variable queries — `label_values`, `label_names`, `metrics`,
 * `query_result` and plain PromQL — as Perses Prometheus variable plugins.
 */

/** The argument text of `fn(...)` when `query` is exactly one call of `fn`. */
function callArgs(query: string, fn: string): string | undefined {
  const m = new RegExp(`^\\s*${fn}\\s*\\(`).exec(query);
  const end = query.lastIndexOf(')');
  if (!m || end < m[0].length - 1 || query.slice(end + 1).trim() !== '') return undefined;
  return query.slice(m[0].length, end);
}

/** Splits at the last comma outside braces, brackets, parentheses and quotes: `up{a="1",b="2"}, job` -> [`up{...}`, `job`]. */
function splitLastArg(args: string): [string | undefined, string] {
  let depth = 0;
  let quote: string | undefined;
  let last = -1;
  for (let i = 0; i < args.length; i++) {
    const c = args[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if ('({['.includes(c)) depth++;
    else if (')}]'.includes(c)) depth--;
    else if (c === ',' && depth === 0) last = i;
  }
  return last < 0 ? [undefined, args.trim()] : [args.slice(0, last).trim(), args.slice(last + 1).trim()];
}

/** The label a Grafana regex extracts from a series text, as in `/.*job="([^"]+)".*\/`. */
function labelFromRegex(regex: string | undefined): string | undefined {
  // \b: a match starts where a word does (a start inside one would rescan it: quadratic in a long word)
  return regex ? /\b(\w+)\s*=\s*\\?["']\(/.exec(regex)?.[1] : undefined;
}

/** The label of a `by (label)` clause (the first one when it lists several). */
function labelFromBy(expr: string): string | undefined {
  return /\bby\s*\(\s*(\w+)/.exec(expr)?.[1];
}

/** A Perses Prometheus variable: the plugin, and the value filter it needs (undefined: keep Grafana's regex as is). */
export interface PrometheusVariable {
  plugin: { kind: string; spec: Obj };
  /** Replaces Grafana's regex: null = no filter, a string = this filter. */
  capturingRegexp?: string | null | undefined;
}

/** Grafana Prometheus variable query (with its regex) -> Perses plugin; undefined when it is not PromQL at all. */
export function prometheusVariable(query: string, regex: string | undefined, notes: string[]): PrometheusVariable | undefined {
  const labelValues = callArgs(query, 'label_values');
  if (labelValues !== undefined) {
    const [selector, label] = splitLastArg(labelValues);
    if (!/^[a-zA-Z_]\w*$/.test(label)) return undefined;
    return { plugin: { kind: 'PrometheusLabelValuesVariable', spec: { labelName: label, matchers: selector ? [selector] : [] } } };
  }
  const labelNames = callArgs(query, 'label_names');
  if (labelNames !== undefined)
    return { plugin: { kind: 'PrometheusLabelNamesVariable', spec: { matchers: labelNames.trim() ? [labelNames.trim()] : [] } } };
  const metrics = callArgs(query, 'metrics');
  if (metrics !== undefined) {
    const filter = regexSource(metrics.trim());
    return {
      plugin: { kind: 'PrometheusLabelValuesVariable', spec: { labelName: '__name__', matchers: [] } },
      capturingRegexp: regex ? undefined : filter ? `^(.*(?:${filter}).*)$` : null,
    };
  }
  const inner = callArgs(query, 'query_result');
  const expr = inner ?? query;
  if (expr.trim() === '') return undefined;
  const fromRegex = labelFromRegex(regex);
  const label = fromRegex ?? labelFromBy(expr);
  if (label)
    return {
      plugin: { kind: 'PrometheusPromQLVariable', spec: { expr, labelName: label } },
      capturingRegexp: fromRegex ? null : undefined,
    };
  notes.push(`no label to list could be found in "${query}" (Grafana listed whole series): the metric name is listed`);
  return { plugin: { kind: 'PrometheusPromQLVariable', spec: { expr, labelName: '__name__' } } };
}

/** Grafana's structured Loki variable query types (LokiVariableQueryType). */
const LOKI_LABEL_NAMES = 0;
const LOKI_LABEL_VALUES = 1;

/** A Loki stream selector as Perses matchers: Grafana sends none for an empty one (`{}`). */
function lokiMatchers(stream: string | undefined): string[] {
  const s = stream?.trim() ?? '';
  return s === '' || /^\{\s*\}$/.test(s) ? [] : [s];
}

/**
 * Grafana Loki variable query -> Perses Loki variable plugin: the structured form
 * `{type: 0|1, label, stream}` of Grafana 9+, or the text `label_names()`,
 * `label_values(label)`, `label_values({selector}, label)`. Undefined for anything else, which
 * Grafana's Loki variables do not run either.
 */
export function lokiVariable(query: unknown): { kind: string; spec: Obj } | undefined {
  if (isObj(query) && typeof query.query !== 'string') {
    if (Number(query.type) === LOKI_LABEL_NAMES)
      return { kind: 'LokiLabelNamesVariable', spec: { matchers: lokiMatchers(str(query.stream)) } };
    const label = str(query.label)?.trim();
    if (Number(query.type) === LOKI_LABEL_VALUES && label && /^[a-zA-Z_]\w*$/.test(label))
      return { kind: 'LokiLabelValuesVariable', spec: { labelName: label, matchers: lokiMatchers(str(query.stream)) } };
    return undefined;
  }
  const text = isObj(query) ? String(query.query) : typeof query === 'string' ? query : '';
  const names = callArgs(text, 'label_names');
  if (names !== undefined) return names.trim() === '' ? { kind: 'LokiLabelNamesVariable', spec: { matchers: [] } } : undefined;
  const values = callArgs(text, 'label_values');
  if (values === undefined) return undefined;
  const [selector, label] = splitLastArg(values);
  if (!/^[a-zA-Z_]\w*$/.test(label)) return undefined;
  return { kind: 'LokiLabelValuesVariable', spec: { labelName: label, matchers: lokiMatchers(selector) } };
}
