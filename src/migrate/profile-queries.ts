import { arr, defined, num, quoted, str, type Obj } from './read.js';

/**
 * Grafana Pyroscope targets (`grafana-pyroscope-datasource`, formerly Phlare) as
 * PyroscopeProfileQuery: Grafana saves a profile type and a label selector
 * (`{service_name="api", region=~"eu.*"}`); Perses asks for the profile type, the service and
 * label filters, which it joins back into the same selector (values are kept as written, escapes
 * included).
 */

const MATCHER = /([a-zA-Z_][\w.]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g;

/** The matchers of a label selector; undefined when it holds anything else than `name op "value"` matchers and commas. */
function matchers(selector: string): { labelName: string; operator: string; labelValue: string }[] | undefined {
  const inner = selector.trim().replace(/^\{/, '').replace(/\}$/, '');
  if (inner.replace(MATCHER, '').replace(/[\s,]/g, '') !== '') return undefined;
  return [...inner.matchAll(MATCHER)].map((m) => ({ labelName: m[1], operator: m[2], labelValue: m[3] }));
}

/** A Pyroscope target's profile type: blank makes the target empty. */
export function profileText(t: Obj): string {
  return typeof t.profileTypeId === 'string' ? t.profileTypeId : '';
}

/** PyroscopeProfileQuery: profile type, `service_name="..."` as the service, the other matchers as filters, max nodes. */
export function pyroscopeSpec(t: Obj, _panel: Obj, notes: string[]): Obj | string {
  const id = t.refId ? `query ${t.refId}` : 'a query';
  const selector = str(t.labelSelector) ?? '{}';
  const parsed = matchers(selector);
  if (!parsed) return `its label selector ${quoted(selector)} is not a list of label matchers`;
  const service = parsed.find((m) => m.labelName === 'service_name' && m.operator === '=');
  const filters = parsed.filter((m) => m !== service);
  const groupBy = arr(t.groupBy).filter((g) => typeof g === 'string');
  if (groupBy.length > 0) notes.push(`${id}: grouping by ${groupBy.join(', ')} is not carried (FlameChart draws one profile)`);
  if (arr(t.spanSelector).length > 0) notes.push(`${id}: the span selector ${arr(t.spanSelector).join(', ')} is not carried`);
  return defined({
    profileType: t.profileTypeId,
    service: service?.labelValue,
    filters: filters.length > 0 ? filters : undefined,
    maxNodes: num(t.maxNodes),
  });
}
