import type { QueryContext } from './queries.js';
import type { Obj } from './read.js';

/** What a panel mapper produces: the Perses plugin, the queries, and notes on what was approximated. */
export interface MappedPanel {
  plugin: { kind: string; spec: Obj };
  queries: Obj[];
  notes: string[];
  /** True when the result is only a text placeholder for the Grafana panel. */
  placeholder?: boolean;
}

/** Maps one Grafana panel of a given type (or family of types) to a Perses panel plugin. */
export type PanelMapper = (panel: Obj, ctx: QueryContext) => MappedPanel;
