import { arr, isObj, num, obj, str, type Obj } from './read.js';

/**
 * Dashboards of the first Grafana versions (schema before 6, some settings before 12) in the
 * later form the other modules read, as Grafana's own upgrade leaves them:
 *
 * - `services.filter` (schema 1) holds the variables (`list`) and the time range (`time`);
 * - the annotations sit in `pulldowns[]`, in the entry of type "annotations" (schema < 6);
 * - a variable of type "filter", or without a type, is a query variable (schema < 6);
 * - `hideVariable: true` / `hideLabel: true` are `hide: 2` / `hide: 1` (schema < 12);
 * - `graphite` panels are graph panels, and a graph's `legend: true`, `grid.min`/`max`
 *   (`leftMin`...) and `y_format`/`y_formats` are its legend and y-axes (schema < 2 to 7).
 *
 * Only what is missing in the later form is filled in: a dashboard written in it is returned as is.
 */
export function upgradeLegacyDashboard(dashboard: Obj): Obj {
  const filter = obj(obj(dashboard.services).filter);
  const templating = isObj(dashboard.templating)
    ? dashboard.templating
    : Array.isArray(filter.list)
      ? { list: filter.list }
      : dashboard.templating;
  const pulldown = arr(dashboard.pulldowns).find((p) => isObj(p) && p.type === 'annotations');
  const annotations = !isObj(dashboard.annotations) && pulldown ? { list: arr(pulldown.annotations) } : dashboard.annotations;
  const list = arr(obj(templating).list);
  const out: Obj = {
    ...dashboard,
    time: dashboard.time ?? filter.time,
    templating: templating === undefined ? undefined : { ...obj(templating), list: list.map((v) => (isObj(v) ? upgradeVariable(v) : v)) },
    annotations,
  };
  if (arr(dashboard.panels).some((p) => isObj(p) && (p.type === 'graphite' || p.type === 'graph')))
    out.panels = arr(dashboard.panels).map((p) => (isObj(p) ? upgradeGraph(p) : p));
  if (arr(dashboard.rows).some((r) => isObj(r)))
    out.rows = arr(dashboard.rows).map((r) =>
      isObj(r) ? { ...r, panels: arr(r.panels).map((p) => (isObj(p) ? upgradeGraph(p) : p)) } : r,
    );
  return out;
}

/** A variable of type "filter" or none is a query variable; `hideVariable`/`hideLabel` are `hide`. */
function upgradeVariable(v: Obj): Obj {
  const type = v.type === 'filter' || v.type === undefined || v.type === null || v.type === '' ? 'query' : v.type;
  const hide = v.hide ?? (v.hideVariable === true ? 2 : v.hideLabel === true ? 1 : undefined);
  return { ...v, type, hide };
}

/** The graph panel of the first versions (type "graphite", boolean legend, grid min/max, y_format) in its later form. */
function upgradeGraph(panel: Obj): Obj {
  if (panel.type !== 'graphite' && panel.type !== 'graph') return panel;
  const out: Obj = { ...panel, type: 'graph' };
  if (typeof panel.legend === 'boolean') out.legend = { show: panel.legend };
  if (!Array.isArray(panel.yaxes)) {
    const grid = obj(panel.grid);
    const formats = arr(panel.y_formats);
    const axis = (side: 'left' | 'right', format: unknown, min: unknown, max: unknown) => {
      const a: Obj = {
        format: str(format),
        min: num(grid[`${side}Min`] ?? min),
        max: num(grid[`${side}Max`] ?? max),
        logBase: num(grid[`${side}LogBase`]),
      };
      return Object.values(a).some((x) => x !== undefined) ? a : undefined;
    };
    const left = axis('left', formats[0] ?? panel.y_format, grid.min, grid.max);
    const right = axis('right', formats[1] ?? panel.y2_format, undefined, undefined);
    if (left || right) out.yaxes = [left ?? {}, right ?? {}];
  }
  return out;
}
