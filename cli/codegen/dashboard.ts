import { isObj, type Obj } from '../../src/lib/is-obj.js';
import { explicitKeys, groupSizes, readGrid } from './layout.js';
import { panelCode, variableCode } from './panels.js';
import { hasOnly, withPlugins } from './plugins.js';
import { call, data, object, type Node } from './print.js';

/** What the dashboard's code needs besides the expression: builders used, panels declared once as consts. */
export interface CodeParts {
  used: Set<string>;
  consts: { name: string; value: Node }[];
}

/**
 * The code of a Dashboard: `dashboard({...})` with its sections as `panelGroup`s (rows of N where
 * the positions are the computed ones, else each panel `placed`), panels as `panel(...)` with
 * builder calls for their plugins, variables as `listVariable`/`textVariable`. What the builders
 * cannot say (an unknown key, an unusual layout) stays data, so the build gives back the input.
 */
export function dashboardCode(d: Obj, parts: CodeParts): Node {
  const { used } = parts;
  const meta = d.metadata as Obj;
  const spec = d.spec as Obj;
  const panels: Obj = isObj(spec.panels) ? spec.panels : {};
  const { display, variables, panels: _p, layouts, ...rest } = spec;
  // the groups come first in the built dashboard: from the first layout they cannot say, all are written out
  const read = (Array.isArray(layouts) ? layouts : []).map((l) => readGrid(l, panels));
  const cut = read.indexOf(undefined) < 0 ? read.length : read.indexOf(undefined);
  const grids = (Array.isArray(layouts) ? layouts : []).map((l, i) => ({ raw: l, grid: i < cut ? read[i] : undefined }));
  const expressible = new Set(Object.keys(panels).filter((k) => panelCode(panels[k], undefined, {}, new Set()) !== undefined));
  // how often each panel is used: one used twice (or in a written-out layout as well) becomes a const
  const uses = new Map<string, number>();
  for (const g of grids) for (const it of g.grid?.items ?? []) uses.set(it.key, (uses.get(it.key) ?? 0) + 1);
  const inGroups = [...new Set(grids.flatMap((g) => g.grid?.items.map((i) => i.key) ?? []))];
  // panels outside the groups, and those panel() cannot write (kept as data under their key)
  const extra = Object.keys(panels).filter((k) => !inGroups.includes(k) || !expressible.has(k));
  const sizes = groupSizes(grids.map((g) => g.grid));
  const explicit = explicitKeys(
    inGroups.filter((k) => !extra.includes(k)),
    panels,
    new Set(extra),
  );
  const panelNode = (key: string): Node => {
    const hint = sizes.hints.get(key) ?? {};
    const code = panelCode(panels[key], explicit.has(key) ? key : undefined, hint, used) ?? data(panels[key]);
    if ((uses.get(key) ?? 0) < 2 && expressible.has(key)) return code;
    const name = `panel_${parts.consts.length + 1}`;
    parts.consts.push({ name, value: code });
    return { ref: name };
  };
  const refs = new Map<string, Node>();
  const refOf = (key: string): Node => {
    if (!refs.has(key)) refs.set(key, panelNode(key));
    return refs.get(key)!;
  };
  const groups: Node[] = [];
  const written: unknown[] = [];
  grids.forEach(({ raw, grid }, i) => {
    if (!grid) return void written.push(raw);
    used.add('panelGroup');
    const size = sizes.groups[i]!;
    const items = grid.items.map((it) => {
      if (size.auto) return refOf(it.key);
      used.add('placed');
      return call(
        'placed',
        refOf(it.key),
        object({
          x: it.x,
          y: it.y,
          width: it.width,
          height: it.height,
          repeatVariable: it.repeatVariable === undefined ? undefined : data(it.repeatVariable),
        }),
      );
    });
    groups.push(
      call(
        'panelGroup',
        object({
          title: grid.title,
          collapsed: grid.collapsed,
          repeatVariable: grid.repeatVariable,
          columns: size.columns === 2 ? undefined : size.columns,
          height: size.height === 8 ? undefined : size.height,
          panels: items,
        }),
      ),
    );
  });
  used.add('dashboard');
  const simpleDisplay =
    isObj(display) &&
    Object.keys(display).length > 0 &&
    hasOnly(display, ['name', 'description']) &&
    Object.values(display).every((v) => typeof v === 'string');
  return call(
    'dashboard',
    object({
      name: data(meta.name),
      project: data(meta.project),
      tags: data(meta.tags),
      title: simpleDisplay ? data(display.name) : undefined,
      description: simpleDisplay ? data(display.description) : undefined,
      display: display !== undefined && !simpleDisplay ? data(display) : undefined,
      ...(Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, withPlugins(v, used)])) as Record<string, Node>),
      variables: Array.isArray(variables)
        ? variables.map((v) => variableCode(v, used))
        : variables === undefined
          ? undefined
          : data(variables),
      groups: groups.length ? groups : undefined,
      layouts: written.length ? written.map((l) => data(l)) : undefined,
      panels: extra.length
        ? object(
            Object.fromEntries(
              extra.map((k) => [k, inGroups.includes(k) ? refOf(k) : (panelCode(panels[k], undefined, {}, used) ?? data(panels[k]))]),
            ),
          )
        : undefined,
    }),
  );
}
