import { isPlaceholderQuery } from './queries.js';
import { isObj, obj, str, type Obj } from './read.js';
import type { RenderVerdict } from './report.js';
import { datasourceOfPlugin } from './target-plugins.js';

/**
 * Whether the web UI draws a migrated panel or variable: it draws a plugin kind only when it
 * bundles that plugin (the catalog's `ui` flag); a panel needs its panel plugin, each query's
 * plugin and the datasource plugin each query runs on.
 */

/** The datasource plugin a query or variable plugin `{kind, spec}` runs on (or lists, a DatasourceVariable): the one its spec names, else the one of its kind. */
function datasourceKind(plugin: Obj): string | undefined {
  const spec = obj(plugin.spec);
  return (
    (isObj(spec.datasource) ? str(spec.datasource.kind) : undefined) ??
    str(spec.datasourcePluginKind) ??
    datasourceOfPlugin(String(plugin.kind))
  );
}

/** The plugins the web UI lacks among `needed` (kind, and what it is), in order, each once: `LokiLogQuery (query)`. */
function missing(needed: [string | undefined, string][], inUi: (kind: string) => boolean): string[] {
  const out: string[] = [];
  for (const [kind, what] of needed) if (kind && !inUi(kind) && !out.includes(`${kind} (${what})`)) out.push(`${kind} (${what})`);
  return out;
}

/** The reason for lacking plugins, in one sentence. */
const lacking = (plugins: string[], effect: string): string =>
  `the web UI does not bundle the plugin${plugins.length > 1 ? 's' : ''} ${plugins.join(', ')}: ${effect}`;

/** The verdict on a Perses panel spec; `placeholder`: the panel is only a text standing for the Grafana one. */
export function panelVerdict(spec: Obj, placeholder: boolean, inUi: (kind: string) => boolean): RenderVerdict & { uiLacks: number } {
  if (placeholder) return { renders: false, reasons: ['only a text placeholder stands for it'], uiLacks: 0 };
  const queries = (Array.isArray(spec.queries) ? spec.queries : []).map((q: unknown) => obj(obj(obj(q).spec).plugin));
  const lacks = missing(
    [
      [str(obj(spec.plugin).kind), 'panel'],
      ...queries.flatMap((p: Obj): [string | undefined, string][] => [
        [str(p.kind), 'query'],
        [datasourceKind(p), 'datasource'],
      ]),
    ],
    inUi,
  );
  const reasons = lacks.length > 0 ? [lacking(lacks, 'the panel shows an error instead')] : [];
  const placeholders = (spec.queries ?? []).filter(isPlaceholderQuery).length;
  if (queries.length > 0 && placeholders === queries.length) reasons.push('none of its queries could be migrated: it shows no data');
  return { renders: reasons.length === 0, reasons, uiLacks: lacks.length };
}

/** How many of a panel's migrated (not placeholder) queries the web UI cannot run: all of them when it lacks the panel plugin. */
export function unrunnableQueries(spec: Obj, inUi: (kind: string) => boolean): number {
  const queries = (Array.isArray(spec.queries) ? spec.queries : [])
    .filter((q: unknown) => !isPlaceholderQuery(q))
    .map((q: unknown) => obj(obj(obj(q).spec).plugin));
  if (!inUi(String(obj(spec.plugin).kind))) return queries.length;
  return queries.filter(
    (p: Obj) =>
      missing(
        [
          [str(p.kind), 'query'],
          [datasourceKind(p), 'datasource'],
        ],
        inUi,
      ).length > 0,
  ).length;
}

/** The verdict on a Perses variable: a list variable needs its plugin and that plugin's datasource plugin; a text variable is drawn by the UI itself. */
export function variableVerdict(variable: Obj, inUi: (kind: string) => boolean): RenderVerdict {
  const plugin = obj(obj(variable.spec).plugin);
  if (variable.kind !== 'ListVariable') return { renders: true, reasons: [] };
  const lacks = missing(
    [
      [str(plugin.kind), 'variable'],
      [datasourceKind(plugin), 'datasource'],
    ],
    inUi,
  );
  return lacks.length > 0
    ? { renders: false, reasons: [lacking(lacks, 'the variable shows an error instead')] }
    : { renders: true, reasons: [] };
}
