import type { Plugin } from './plugin.js';
import { PLUGIN_TYPES } from './generated/catalog.js';
import type { Display, Link, Panel, PanelQuery } from './generated/types.js';
import { traced } from './origin.js';

/** What `panel` takes. */
export interface PanelOptions {
  /** The title (`spec.display.name`); the panel's key is derived from it unless `key` is given. */
  title?: string;
  /** `spec.display.description`. */
  description?: string;
  /** The whole `spec.display`, for what title and description do not say (they are added to it). */
  display?: Display;
  /** The panel's key in `spec.panels` (default: from the title, made unique in the dashboard). */
  key?: string;
  /** The visualisation: `timeSeriesChart({...})`, `statChart({...})`, `markdown({...})`... */
  plugin: Plugin;
  /** Queries: query plugins (`prometheusTimeSeriesQuery({...})`) or `query(plugin, {name})`. */
  queries?: readonly (Plugin | PanelQuery)[];
  links?: Link[];
  /** Columns this panel takes in its group (default: the group's). */
  width?: number;
  /** Rows this panel takes in its group (default: the group's). */
  height?: number;
}

/** How a panel asks to be laid out; kept beside it, never in the resource. */
export interface PanelHints {
  key?: string | undefined;
  width?: number | undefined;
  height?: number | undefined;
}

const HINTS = Symbol.for('dashplane.sdk.panelHints');

/** A dashboard panel. Give it to `panelGroup`; the dashboard gives it its key and place. */
export function panel(options: PanelOptions): Panel {
  const { title, description, key, plugin, queries, links, width, height } = options;
  const display: Display | undefined =
    title === undefined && description === undefined
      ? undefined
      : { ...(title !== undefined ? { name: title } : {}), ...(description !== undefined ? { description } : {}) };
  const p: Panel = {
    kind: 'Panel',
    spec: { ...(display ? { display } : {}), plugin, ...(queries ? { queries: queries.map(toQuery) } : {}), ...(links ? { links } : {}) },
  };
  Object.defineProperty(p, HINTS, { value: { key, width, height } satisfies PanelHints, enumerable: false });
  return traced(p, panel);
}

/** The layout hints `panel` recorded (none for a panel written as an object). */
export function hintsOf(p: Panel): PanelHints {
  return (p as unknown as Record<symbol, PanelHints | undefined>)[HINTS] ?? {};
}

/**
 * A panel query: the query plugin, with the query type (`TimeSeriesQuery`, `LogQuery`...) it
 * answers and an optional name. A panel's `queries` also take the plugin alone.
 */
export function query(plugin: Plugin, options: { name?: string; kind?: string } = {}): PanelQuery {
  const kind = options.kind ?? PLUGIN_TYPES[plugin.kind as keyof typeof PLUGIN_TYPES];
  if (!kind)
    throw new Error(
      `query(): "${plugin.kind}" is not a plugin the SDK knows; pass its query type: query(plugin, { kind: 'TimeSeriesQuery' })`,
    );
  return traced({ kind, spec: { ...(options.name !== undefined ? { name: options.name } : {}), plugin } }, query);
}

function toQuery(q: Plugin | PanelQuery): PanelQuery {
  const type: string | undefined = PLUGIN_TYPES[q.kind as keyof typeof PLUGIN_TYPES];
  return type?.endsWith('Query') ? query(q as Plugin) : (q as PanelQuery);
}
