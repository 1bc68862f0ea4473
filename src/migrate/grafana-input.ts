import { badRequest } from '../errors.js';
import { isObj, obj, type Obj } from './read.js';

/**
 * The Grafana dashboard inside what a user hands over: the dashboard itself, Grafana's HTTP API
 * answer `{dashboard, meta}`, or an export "for sharing externally" (with `__inputs`).
 * `field` names the input in error messages.
 */
export function unwrapGrafanaDashboard(input: unknown, field = 'grafanaDashboard'): Obj {
  if (!isObj(input)) throw badRequest(`${field} must be a Grafana dashboard JSON object (in Grafana: Share > Export > Save to file)`);
  const looksLike = (d: Obj) => Array.isArray(d.panels) || Array.isArray(d.rows) || typeof d.title === 'string' || isObj(d.templating);
  if (isObj(input.dashboard) && !looksLike(input))
    return unwrapGrafanaDashboard(input.dashboard, /\s/.test(field) ? `the "dashboard" field of ${field}` : `${field}.dashboard`);
  const apiVersion = typeof input.apiVersion === 'string' ? input.apiVersion : '';
  if (apiVersion.startsWith('dashboard.grafana.app/') && input.kind === 'Dashboard' && isObj(input.spec)) {
    // Grafana 12's resource form: v0/v1 wrap the classic JSON model in spec; v2 is another schema
    if (!/^dashboard\.grafana\.app\/v[01]/.test(apiVersion) || isObj(input.spec.elements) || isObj(input.spec.layout)) {
      throw badRequest(
        `${field} is a Grafana dashboard in the v2 schema (apiVersion ${apiVersion}: spec.elements and spec.layout), which dashplane does not read: export the classic JSON model instead (in Grafana: Export > Export as JSON, with the classic/v1 model) and migrate that`,
      );
    }
    const uid = input.spec.uid ?? obj(input.metadata).name;
    return unwrapGrafanaDashboard({ ...input.spec, uid }, /\s/.test(field) ? `the "spec" field of ${field}` : `${field}.spec`);
  }
  if (input.kind === 'Dashboard' && isObj(input.spec)) {
    throw badRequest(`${field} is already a Perses dashboard (kind: Dashboard): apply it as it is instead of migrating it`);
  }
  if (!looksLike(input)) {
    throw badRequest(
      `${field} is not a Grafana dashboard: it has no "panels", "rows", "title" or "templating" (in Grafana: Share > Export > Save to file)`,
    );
  }
  return input;
}

/** Escapes a value for a RegExp. */
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces `${KEY}` and `$KEY` in every string of the dashboard by the caller's input values (the
 * export's `__inputs`, such as `DS_PROMETHEUS`), as Grafana's import does. `$KEY` is replaced only
 * as a whole word, so `$DS_A` does not touch `$DS_AB`.
 */
export function replaceInputs(dashboard: Obj, input: Record<string, string> | undefined): Obj {
  const keys = Object.keys(input ?? {}).filter((k) => /^[\w-]+$/.test(k));
  if (keys.length === 0) return dashboard;
  const pattern = new RegExp(`\\$\\{(${keys.map(escapeRegExp).join('|')})\\}|\\$(${keys.map(escapeRegExp).join('|')})(?![\\w-])`, 'g');
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(pattern, (_m, a?: string, b?: string) => input![(a ?? b)!]);
    if (Array.isArray(v)) return v.map(walk);
    if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(dashboard) as Obj;
}

/** Checks Perses' `input` map: string keys to string values. */
export function checkInput(input: unknown, field = 'input'): Record<string, string> | undefined {
  if (input === undefined || input === null) return undefined;
  if (!isObj(input)) throw badRequest(`${field} must be an object of input names to values, e.g. {"DS_PROMETHEUS": "prometheus"}`);
  for (const [k, v] of Object.entries(input)) {
    if (typeof v !== 'string') throw badRequest(`${field}.${k} must be a string (the value that replaces \${${k}} in the dashboard)`);
  }
  return input as Record<string, string>;
}
