import { arr, isObj, num, obj, str, type Obj } from './read.js';

/**
 * The `rows[]` layout of Grafana before schema version 16 as the newer `panels[]` form: each row
 * becomes a row panel holding its panels, and each panel gets a grid position from its `span`
 * (twelfths of the width) and the row's or its own `height` (pixels), laid out left to right
 * and wrapped as Grafana did when it upgraded such dashboards.
 */

/** Pixels per grid unit: a grid row is 30 px high plus an 8 px margin. */
const PX_PER_UNIT = 38;
const DEFAULT_ROW_HEIGHT_PX = 250;
const COLUMNS = 24;

/** A height in pixels ("250px", 250, "250") as grid units. */
function gridHeight(height: unknown, fallbackPx: number): number {
  const px = num(typeof height === 'string' ? height.replace(/px$/, '') : height) ?? fallbackPx;
  return Math.max(1, Math.ceil(px / PX_PER_UNIT));
}

/**
 * Whether row headers are shown: some row has a visible title, is collapsed or repeats, the test
 * of Grafana's upgrade (DashboardMigrator.upgradeToGridLayout); otherwise every panel is on the
 * top level, with no header, however many rows there were.
 */
function showsRows(rows: Obj[]): boolean {
  return rows.some((r) => r.showTitle === true || r.collapse === true || str(r.repeat) !== undefined);
}

/** Whether a legacy row is a copy Grafana made of a repeated row (only a truthy id or iteration marks one). */
export function isLegacyRowCopy(row: Obj): boolean {
  return Boolean(row.repeatRowId) || Boolean(row.repeatIteration);
}

/**
 * `rows[]` -> `panels[]` (row panels with their panels nested, or plain panels when no row shows a
 * header), starting at grid line `startY`. Copies of repeated rows are left out: `isLegacyRowCopy`.
 */
export function upgradeLegacyRows(rows: unknown, startY = 0): Obj[] {
  const list = arr(rows).filter(isObj);
  const headers = showsRows(list);
  const out: Obj[] = [];
  let y = startY;
  for (const row of list) {
    if (isLegacyRowCopy(row)) continue;
    const rowHeight = gridHeight(row.height, DEFAULT_ROW_HEIGHT_PX);
    const rowPanel: Obj = {
      type: 'row',
      title: str(row.title) ?? '',
      collapsed: row.collapse === true,
      gridPos: { x: 0, y, w: COLUMNS, h: 1 },
      panels: [],
    };
    if (str(row.repeat)) rowPanel.repeat = row.repeat;
    if (headers) y++;
    const top = y;
    let x = 0;
    let lineHeight = 0;
    const placed: Obj[] = [];
    for (const panel of arr(row.panels).filter(isObj)) {
      const w = Math.min(COLUMNS, Math.max(1, Math.round((num(panel.span) ?? 12) * 2)));
      const h =
        panel.height !== undefined && panel.height !== null && panel.height !== ''
          ? gridHeight(panel.height, DEFAULT_ROW_HEIGHT_PX)
          : rowHeight;
      if (x + w > COLUMNS) {
        x = 0;
        y += lineHeight;
        lineHeight = 0;
      }
      placed.push({ ...panel, gridPos: { x, y, w, h } });
      x += w;
      lineHeight = Math.max(lineHeight, h);
    }
    y += placed.length > 0 ? lineHeight : 0;
    // a collapsed row's panels take no room on the grid: the next row starts right below its header, as in Grafana's upgrade
    if (headers && rowPanel.collapsed) y = top;
    if (headers) {
      rowPanel.panels = placed;
      out.push(rowPanel);
    } else {
      out.push(...placed);
    }
  }
  return out;
}

/** Whether a dashboard has panels in the legacy `rows[]` layout (alone, or next to `panels[]`). */
export function hasLegacyRows(dashboard: Obj): boolean {
  return arr(obj(dashboard).rows).some((r) => arr(obj(r).panels).length > 0);
}
