import type { GridItemRepeatVariable, Panel } from './generated/types.js';
import type { Cell } from './layout.js';
import { traced } from './origin.js';

/** A panel at a position you choose (x, y, width, height in grid units) instead of the computed one. */
export interface PlacedPanel extends Cell {
  panel: Panel;
  repeatVariable?: GridItemRepeatVariable;
}

/** What `panelGroup` takes. */
export interface GroupOptions {
  /** The section's title; without one it has no header and cannot be collapsed. */
  title?: string;
  /** `true`: collapsible, closed when the dashboard opens; `false`: collapsible, open; absent: not collapsible. */
  collapsed?: boolean;
  /** Repeat the whole section for each selected value of this variable. */
  repeatVariable?: string;
  /** Panels per row (default 2): each is 24 / columns wide unless it says otherwise. */
  columns?: number;
  /** Height of each panel in grid rows (default 8) unless it says otherwise. */
  height?: number;
  /** Panels in reading order (placed in rows), or `placed(panel, {x, y, width, height})`. */
  panels: readonly (Panel | PlacedPanel)[];
}

/** A section of a dashboard, ready for `dashboard({groups})`. */
export interface PanelGroup extends GroupOptions {
  columns: number;
  height: number;
}

/** A section of panels laid out in rows of `columns`. */
export function panelGroup(options: GroupOptions): PanelGroup {
  if (options.collapsed !== undefined && options.title === undefined)
    throw new Error('panelGroup(): a group without a title cannot be collapsed; give it a title or leave collapsed out');
  const columns = options.columns ?? 2;
  if (!Number.isInteger(columns) || columns < 1 || columns > 24)
    throw new Error(`panelGroup(): columns must be a whole number from 1 to 24, not ${columns}`);
  return traced({ ...options, columns, height: options.height ?? 8 }, panelGroup);
}

/** `panel` at a fixed position of its group. */
export function placed(panel: Panel, at: Cell & { repeatVariable?: GridItemRepeatVariable }): PlacedPanel {
  return traced({ panel, ...at }, placed);
}

/** Whether a group entry is a placed panel. */
export const isPlaced = (x: Panel | PlacedPanel): x is PlacedPanel => 'panel' in x && !('kind' in x);
