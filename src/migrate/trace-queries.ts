import { arr, defined, isObj, num, obj, quoted, str, type Obj } from './read.js';

/**
 * Grafana Tempo targets as TempoTraceQuery: a TraceQL query or a trace ID. Grafana's Tempo editor
 * saves the query text (`queryType: "traceql"`), the search form's filters (`traceqlSearch`,
 * which Grafana turns into TraceQL itself) or, before Grafana 10, the legacy search fields
 * (`nativeSearch`); the service graph and uploaded traces have no trace query.
 */

/** Tags TraceQL knows without a scope (Grafana writes them without one whatever the filter's scope). */
const INTRINSICS = new Set(['duration', 'kind', 'name', 'status', 'statusMessage', 'traceDuration', 'rootName', 'rootServiceName']);
/** Values written bare in TraceQL: numbers, durations, booleans, status and kind keywords. */
const BARE = /^(-?\d+(\.\d+)?(ns|us|µs|ms|s|m|h)?|true|false|nil|ok|error|unset|unspecified|internal|server|client|producer|consumer)$/;
/** Query types that search no traces, in words. */
const NO_TRACES: Record<string, string> = { serviceMap: 'the service graph', upload: 'an uploaded trace file', clear: 'an empty query' };

/** One filter of the search form as a TraceQL condition (`resource.service.name="api"`), or undefined when it is incomplete. */
function condition(f: Obj, durationTag: string): string | undefined {
  const tag = f.id === 'min-duration' || f.id === 'max-duration' ? durationTag : str(f.tag);
  const values = (Array.isArray(f.value) ? f.value : [f.value])
    .filter((v): v is string | number => (typeof v === 'string' && v !== '') || typeof v === 'number')
    .map(String);
  if (!tag || !str(f.operator) || values.length === 0) return undefined;
  const scope = f.scope === 'intrinsic' || INTRINSICS.has(tag) ? '' : f.scope === 'unscoped' || !str(f.scope) ? '.' : `${f.scope}.`;
  const text = values.join('|');
  const string = f.valueType === 'string' || (f.valueType === undefined && !BARE.test(text)) || values.length > 1;
  const operator = values.length > 1 && f.operator === '=' ? '=~' : values.length > 1 && f.operator === '!=' ? '!~' : f.operator;
  return `${scope}${tag}${operator}${string ? JSON.stringify(text) : text}`;
}

/** The search form's filters as Grafana runs them: `{ cond && cond }`, `{}` without any. */
function fromFilters(filters: unknown[]): string {
  const list = filters.filter(isObj);
  const durationTag = list.find((f) => f.id === 'duration-type')?.value === 'trace' ? 'traceDuration' : 'duration';
  const conditions = list
    .filter((f) => f.id !== 'duration-type')
    .map((f) => condition(f, durationTag))
    .filter((c): c is string => c !== undefined);
  return conditions.length > 0 ? `{${conditions.join(' && ')}}` : '{}';
}

/** The legacy search fields (service, span name, `key=value` tags, durations) as TraceQL. */
function fromLegacySearch(t: Obj): string {
  const conditions: string[] = [];
  if (str(t.serviceName)) conditions.push(`resource.service.name=${JSON.stringify(t.serviceName)}`);
  if (str(t.spanName)) conditions.push(`name=${JSON.stringify(t.spanName)}`);
  for (const m of String(t.search ?? '').matchAll(/([^\s=]+)=("(?:[^"\\]|\\.)*"|\S+)/g))
    conditions.push(`.${m[1]}=${m[2].startsWith('"') ? m[2] : JSON.stringify(m[2])}`);
  if (str(t.minDuration)) conditions.push(`duration>${t.minDuration}`);
  if (str(t.maxDuration)) conditions.push(`duration<${t.maxDuration}`);
  return conditions.length > 0 ? `{${conditions.join(' && ')}}` : '{}';
}

/** The TraceQL (or trace ID) a Tempo target runs; the query type's name for those that search no traces. */
export function tempoText(t: Obj): string {
  const type = str(t.queryType) ?? 'traceql';
  if (NO_TRACES[type]) return type;
  if (type === 'traceqlSearch') return fromFilters(arr(t.filters));
  if (type === 'nativeSearch' || type === 'search') return fromLegacySearch(t);
  return typeof t.query === 'string' ? t.query : '';
}

/** TempoTraceQuery: the TraceQL query or trace ID and the result limit; what Perses' trace panels cannot show is noted. */
export function tempoSpec(t: Obj, _panel: Obj, notes: string[]): Obj | string {
  const type = str(t.queryType) ?? 'traceql';
  if (NO_TRACES[type]) return `it shows ${NO_TRACES[type]}, which no Perses plugin draws`;
  if (type === 'traceqlMetrics' || str(t.metricsQueryType))
    return 'it is a TraceQL metrics query (time series), which TempoTraceQuery does not run';
  const id = t.refId ? `query ${t.refId}` : 'a query';
  const query = tempoText(t);
  if (type !== 'traceql') notes.push(`${id} (Grafana's Tempo search form) is written as the TraceQL ${quoted(query)}`);
  const groupBy = arr(t.groupBy).filter((g) => str(obj(g).tag));
  if (type === 'traceqlSearch' && groupBy.length > 0)
    notes.push(`${id}: grouping by ${groupBy.map((g) => g.tag).join(', ')} is not carried`);
  if (num(t.spss) !== undefined) notes.push(`${id}: the spans per span set (${t.spss}) are not carried: Perses shows whole traces`);
  if (t.tableType === 'spans') notes.push(`${id} listed spans: Perses lists traces`);
  return defined({ query, limit: num(t.limit) });
}
