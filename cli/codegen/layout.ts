import { flow, keyFromTitle, uniqueKey, widthFor } from '../../sdk/layout.js';
import { isObj, type Obj } from '../../src/lib/is-obj.js';
import { hasOnly } from './plugins.js';

const REF_PREFIX = '#/spec/panels/';

/** A grid item the groups can say. */
export interface Item {
  key: string;
  x: number;
  y: number;
  width: number;
  height: number;
  repeatVariable?: unknown;
}

/** A grid layout the groups can express, read; undefined when it needs writing out. */
export function readGrid(
  layout: unknown,
  panels: Obj,
): { title?: string | undefined; collapsed?: boolean | undefined; repeatVariable?: string | undefined; items: Item[] } | undefined {
  if (!isObj(layout) || layout.kind !== 'Grid' || !hasOnly(layout, ['kind', 'spec'], ['kind', 'spec']) || !isObj(layout.spec))
    return undefined;
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
    if (!isObj(it) || !hasOnly(it, ['x', 'y', 'width', 'height', 'content', 'repeatVariable'], ['x', 'y', 'width', 'height', 'content']))
      return undefined;
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

/** Where the groups lay panels out themselves (rows of `columns`), and the panels' own sizes there. */
export function groupSizes(grids: (ReturnType<typeof readGrid> | undefined)[]): {
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
    const needs = g.items.map((it) => ({
      key: it.key,
      hint: { ...(it.width !== width ? { width: it.width } : {}), ...(it.height !== height ? { height: it.height } : {}) },
    }));
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
export function explicitKeys(inGroups: string[], panels: Obj, reserved: Set<string>): Set<string> {
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
