import { flow, keyFromTitle, uniqueKey, widthFor } from '../../sdk/layout.js';
import { isObj, type Obj } from '../../src/lib/is-obj.js';
import { hasOnly, pluginCode, queryTypeOf, withPlugins } from './plugins.js';
import { call, data, object, type Node } from './print.js';

const REF_PREFIX = '#/spec/panels/';

/** What the dashboard's code needs besides the expression: builders used, panels declared once as consts. */
export interface CodeParts {
  used: Set<string>;
  consts: { name: string; value: Node }[];
}

interface Item {
  key: string;
  x: number;
  y: number;
  width: number;
  height: number;
  repeatVariable?: unknown;
}

/** A grid layout the groups can express, read; undefined when it needs writing out. */
function readGrid(layout: unknown, panels: Obj): { title?: string; collapsed?: boolean; repeatVariable?: string; items: Item[] } | undefined {
  if (!isObj(layout) || layout.kind !== 'Grid' || !hasOnly(layout, ['kind', 'spec'], ['kind', 'spec']) || !isObj(layout.spec)) return undefined;
  const s = layout.spec;
  if (!hasOnly(s, ['display', 'items', 'repeatVariable'], ['items']) || !Array.isArray(s.items)) return undefined;
  if (s.repeatVariable !== undefined && typeof s.repeatVariable !== 'string') return undefined;
  let title: string | undefined;
  let collapsed: boolean | undefined;
  if (s.display !== undefined) {
    const d = s.display;
    if (!isObj(d) || !hasOnly(d, ['title', 'collapse'], ['title']) || typeof d.title !== 'string') return undefined;
    title = d.title;
    if (d.collapse !== undefined) {
      if (!isObj(d.collapse) || !hasOnly(d.collapse, ['open'], ['open']) || typeof d.collapse.open !== 'boolean') return undefined;
      collapsed = !d.collapse.open;
    }
  }
  const items: Item[] = [];
  for (const it of s.items) {
    if (!isObj(it) || !hasOnly(it, ['x', 'y', 'width', 'height', 'content', 'repeatVariable'], ['x', 'y', 'width', 'height', 'content'])) return undefined;
    const c = it.content;
    if (!isObj(c) || !hasOnly(c, ['$ref'], ['$ref']) || typeof c.$ref !== 'string' || !c.$ref.startsWith(REF_PREFIX)) return undefined;
    const key = c.$ref.slice(REF_PREFIX.length);
    if (!Object.hasOwn(panels, key) || ![it.x, it.y, it.width, it.height].every((n) => typeof n === 'number')) return undefined;
    items.push({
      key,
      x: it.x as number,
      y: it.y as number,
      width: it.width as number,
      height: it.height as number,
      ...(it.repeatVariable !== undefined ? { repeatVariable: it.repeatVariable } : {}),
    });
  }
  return { title, collapsed, repeatVariable: s.repeatVariable as string | undefined, items };
}

/** The most frequent value (the first of equals). */
function mode(values: number[], fallback: number): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = fallback;
  let n = 0;
  for (const [v, c] of counts) if (c > n) [best, n] = [v, c];
  return best;
}

/** Columns for a panel width, when a number of columns gives exactly that width. */
const columnsFor = (width: number): number | undefined => [...Array(24).keys()].map((i) => i + 1).find((n) => widthFor(n) === width);

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
      return call('placed', refOf(it.key), object({ x: it.x, y: it.y, width: it.width, height: it.height, repeatVariable: it.repeatVariable === undefined ? undefined : data(it.repeatVariable) }));
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
  const simpleDisplay = isObj(display) && Object.keys(display).length > 0 && hasOnly(display, ['name', 'description']) && Object.values(display).every((v) => typeof v === 'string');
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
      variables: Array.isArray(variables) ? variables.map((v) => variableCode(v, used)) : variables === undefined ? undefined : data(variables),
      groups: groups.length ? groups : undefined,
      layouts: written.length ? written.map((l) => data(l)) : undefined,
      panels: extra.length ? object(Object.fromEntries(extra.map((k) => [k, inGroups.includes(k) ? refOf(k) : (panelCode(panels[k], undefined, {}, used) ?? data(panels[k]))]))) : undefined,
    }),
  );
}

/** Where the groups lay panels out themselves (rows of `columns`), and the panels' own sizes there. */
function groupSizes(grids: (ReturnType<typeof readGrid> | undefined)[]): {
  groups: ({ auto: boolean; columns: number; height: number } | undefined)[];
  hints: Map<string, { width?: number; height?: number }>;
} {
  const hints = new Map<string, { width?: number; height?: number }>();
  const count = new Map<string, number>();
  for (const g of grids) for (const it of g?.items ?? []) count.set(it.key, (count.get(it.key) ?? 0) + 1);
  const groups = grids.map((g) => {
    if (!g) return undefined;
    const height = mode(
      g.items.map((i) => i.height),
      8,
    );
    const columns =
      columnsFor(
        mode(
          g.items.map((i) => i.width),
          12,
        ),
      ) ?? 2;
    const width = widthFor(columns);
    const cells = flow(g.items);
    const needs = g.items.map((it) => ({ key: it.key, hint: { ...(it.width !== width ? { width: it.width } : {}), ...(it.height !== height ? { height: it.height } : {}) } }));
    const auto =
      g.items.every((it, i) => it.repeatVariable === undefined && cells[i].x === it.x && cells[i].y === it.y) &&
      needs.every((n) => !Object.keys(n.hint).length || (count.get(n.key) === 1 && !hints.has(n.key)));
    if (auto) for (const n of needs) if (Object.keys(n.hint).length) hints.set(n.key, n.hint);
    return { auto, columns, height };
  });
  return { groups, hints };
}

/**
 * The panels whose key the code must state: the dashboard builder derives the others from their
 * titles (unique in the dashboard, after the stated keys and those of `panels`), as here.
 */
function explicitKeys(inGroups: string[], panels: Obj, reserved: Set<string>): Set<string> {
  const title = (k: string): string | undefined => {
    const name = (panels[k] as { spec?: { display?: { name?: unknown } } })?.spec?.display?.name;
    return typeof name === 'string' ? name : undefined;
  };
  const derivable = (k: string): boolean => {
    const base = keyFromTitle(title(k));
    return k === base || (k.startsWith(`${base}_`) && /^\d+$/.test(k.slice(base.length + 1)));
  };
  const explicit = new Set(inGroups.filter((k) => !derivable(k)));
  for (let changed = true; changed; ) {
    changed = false;
    const used = new Set([...reserved, ...inGroups.filter((k) => explicit.has(k))]);
    for (const k of inGroups.filter((x) => !explicit.has(x))) {
      if (uniqueKey(keyFromTitle(title(k)), used) !== k) {
        explicit.add(k);
        changed = true;
        break;
      }
    }
  }
  return explicit;
}

/** `panel({...})`, or undefined when the panel has what `panel` cannot write. */
function panelCode(p: unknown, key: string | undefined, size: { width?: number; height?: number }, used: Set<string>): Node | undefined {
  if (!isObj(p) || p.kind !== 'Panel' || !hasOnly(p, ['kind', 'spec'], ['kind', 'spec']) || !isObj(p.spec)) return undefined;
  const s = p.spec;
  if (!hasOnly(s, ['display', 'plugin', 'queries', 'links'], ['plugin'])) return undefined;
  if (s.queries !== undefined && !Array.isArray(s.queries)) return undefined;
  const d = s.display;
  const simple = isObj(d) && Object.keys(d).length > 0 && hasOnly(d, ['name', 'description']) && Object.values(d).every((v) => typeof v === 'string');
  used.add('panel');
  return call(
    'panel',
    object({
      key,
      title: simple ? (d.name as string | undefined) : undefined,
      description: simple ? (d.description as string | undefined) : undefined,
      display: d !== undefined && !simple ? data(d) : undefined,
      ...size,
      plugin: pluginCode(s.plugin, used),
      queries: Array.isArray(s.queries) ? s.queries.map((q) => queryCode(q, used)) : undefined,
      links: s.links === undefined ? undefined : data(s.links),
    }),
  );
}

/** A panel query: the plugin alone where the panel adds the rest, else `query(plugin, {...})`, else data. */
function queryCode(q: unknown, used: Set<string>): Node {
  if (!isObj(q) || !hasOnly(q, ['kind', 'spec'], ['kind', 'spec']) || !isObj(q.spec) || !hasOnly(q.spec, ['name', 'plugin'], ['plugin'])) return data(q);
  const plugin = q.spec.plugin;
  if (!isObj(plugin) || typeof plugin.kind !== 'string' || typeof q.kind !== 'string') return data(q);
  const type = queryTypeOf(plugin.kind);
  const code = pluginCode(plugin, used);
  if (type === q.kind && q.spec.name === undefined) return code;
  used.add('query');
  return call('query', code, object({ name: q.spec.name === undefined ? undefined : data(q.spec.name), kind: type === q.kind ? undefined : q.kind }));
}

/** `listVariable({...})` / `textVariable({...})`, or data. */
function variableCode(v: unknown, used: Set<string>): Node {
  if (!isObj(v) || !hasOnly(v, ['kind', 'spec'], ['kind', 'spec']) || !isObj(v.spec) || typeof v.spec.name !== 'string') return withPlugins(v, used);
  const builder = v.kind === 'ListVariable' ? 'listVariable' : v.kind === 'TextVariable' ? 'textVariable' : undefined;
  if (!builder) return withPlugins(v, used);
  used.add(builder);
  return call(builder, withPlugins(v.spec, used));
}
