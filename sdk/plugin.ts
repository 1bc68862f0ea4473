import { DATASOURCE_KINDS, type PluginSpecs } from './generated/catalog.js';
import { traced } from './origin.js';

/** A plugin (panel, query, variable or datasource type) with its spec, as a resource carries it. */
export interface Plugin<K extends string = string> {
  kind: K;
  /** The spec of the plugin's kind; any object for a kind the catalog does not know. */
  spec: K extends keyof PluginSpecs ? PluginSpecs[K] : object;
  metadata?: { version?: string; registry?: string };
}

/**
 * A plugin of kind `kind` with `spec`. The builders of the catalog (`timeSeriesChart`,
 * `prometheusTimeSeriesQuery`, ...) call it; call it yourself for a plugin the server was given
 * with `plugin.schemas_dir`. A `datasource` given as a name (`'prom'`, not `'$ds'` which names a
 * variable) becomes the selector `{kind, name}` of the datasource kind the plugin queries.
 */
export function plugin<K extends keyof PluginSpecs & string>(kind: K, spec: PluginSpecs[K]): Plugin<K>;
export function plugin(kind: string, spec: Record<string, unknown>): Plugin;
export function plugin(kind: string, spec: object): Plugin {
  const dsKind = DATASOURCE_KINDS[kind];
  const ds = (spec as { datasource?: unknown }).datasource;
  const withRef = dsKind && typeof ds === 'string' && !ds.startsWith('$') ? { ...spec, datasource: { kind: dsKind, name: ds } } : spec;
  return traced({ kind, spec: withRef } as Plugin, plugin);
}
