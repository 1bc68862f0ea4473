/**
 * What a save from Perses' edit mode stores: the version the editor loaded, as stored, with only
 * the changes the user made. Perses rewrites a dashboard as it loads it (the grid packs every
 * panel up, a list variable's `defaultValue: ["$__all"]` becomes `"$__all"`, keys it does not
 * know such as `links` are dropped, `refreshInterval: "0s"` is added...), and its save sends that
 * rewrite: a one-title edit of an imported dashboard showed as dozens of changes in history.
 *
 * A three-way merge: `stored` (the object as the server answered it), `loaded` (Perses' own
 * export of it before any edit) and `edited` (Perses' export at save time). Wherever `loaded` and
 * `edited` agree the user changed nothing and `stored` is kept (its forms, its key order);
 * elsewhere the edit wins. Grid positions are compared as the grid shows them (packed by the same
 * code: `compact`), so a panel that did not move keeps its stored position. Pure: no React, no
 * fetch (test/minimal-save.test.ts).
 */

type Obj = Record<string, unknown>;

/** One grid item as react-grid-layout holds it. */
export interface GridBox {
  i: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The grid's packing of one group's items (react-grid-layout's `correctBounds` then `compact`, as Perses' grid runs them). */
export type Compact = (items: GridBox[]) => GridBox[];

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Structural equality of JSON values; key order and keys holding `undefined` (dropped by JSON) do not count. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (!isObj(a) || !isObj(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

const has = (o: Obj, k: string) => Object.hasOwn(o, k) && o[k] !== undefined;

/** A value Perses' schemas read as they read an absent key: false, null, an empty list. */
const isEmptyDefault = (v: unknown) => v === false || v === null || (Array.isArray(v) && v.length === 0);

/** The stored document with only the changes from `loaded` to `edited` (see the module comment). */
export function minimalEdit<T>(stored: T, loaded: unknown, edited: unknown, compact: Compact): T {
  return merge(stored, loaded, edited, '', compact) as T;
}

function merge(s: unknown, n: unknown, e: unknown, path: string, compact: Compact): unknown {
  if (sameJson(n, e)) return s;
  if (sameJson(s, e)) return s;
  if (isObj(s) && isObj(n) && isObj(e)) return mergeObject(s, n, e, path, compact);
  if (Array.isArray(s) && Array.isArray(n) && Array.isArray(e) && s.length === n.length) {
    if (path === '.spec.layouts') return mergeLayouts(s, n, e, compact);
    return mergeArray(s, n, e, path, compact);
  }
  return e;
}

function mergeObject(s: Obj, n: Obj, e: Obj, path: string, compact: Compact): Obj {
  const out: Obj = {};
  for (const k of Object.keys(s)) {
    if (!has(e, k)) {
      // gone from the edit: the user removed it, unless Perses never had it (it drops what it does not know)
      if (!has(n, k)) out[k] = s[k];
      continue;
    }
    out[k] = merge(s[k], has(n, k) ? n[k] : undefined, e[k], `${path}.${k}`, compact);
  }
  for (const k of Object.keys(e)) {
    if (has(s, k) || !has(e, k)) continue;
    // Perses' own addition (e.g. refreshInterval "0s") unless the user changed it
    if (has(n, k) && sameJson(n[k], e[k])) continue;
    // a form's fill-in of a key neither stored nor loaded had (a list variable's editor writes
    // allowMultiple: false, allowAllValue: false): the same as absent, so no change
    if (!has(n, k) && isEmptyDefault(e[k])) continue;
    out[k] = e[k];
  }
  return out;
}

/** An element's identity where it has one: a variable's or link's name, a layout item's panel. */
function identity(v: unknown): string | undefined {
  if (!isObj(v)) return undefined;
  if (isObj(v.content) && typeof v.content.$ref === 'string') return `ref:${v.content.$ref}`;
  if (isObj(v.spec) && typeof v.spec.name === 'string') return `name:${String(v.kind)}:${v.spec.name}`;
  return undefined;
}

/**
 * Arrays whose stored and loaded forms correspond item by item: each edited element is matched
 * to a loaded one (an equal one, else one of the same identity, else the one at its index) and
 * merged with the stored element there; the edit's order is kept.
 */
function mergeArray(s: unknown[], n: unknown[], e: unknown[], path: string, compact: Compact): unknown[] {
  const used = new Set<number>();
  const match: (number | undefined)[] = e.map(() => undefined);
  const take = (j: number, i: number) => {
    match[j] = i;
    used.add(i);
  };
  e.forEach((x, j) => {
    const i = n.findIndex((y, k) => !used.has(k) && sameJson(x, y));
    if (i >= 0) take(j, i);
  });
  e.forEach((x, j) => {
    const id = identity(x);
    if (match[j] !== undefined || id === undefined) return;
    const i = n.findIndex((y, k) => !used.has(k) && identity(y) === id);
    if (i >= 0) take(j, i);
  });
  // by index last: a wrong pairing costs only minimality (stored forms are kept only where the
  // loaded and the edited values are equal), never content
  e.forEach((_x, j) => {
    if (match[j] === undefined && j < n.length && !used.has(j)) take(j, j);
  });
  return e.map((x, j) => (match[j] === undefined ? x : merge(s[match[j]!], n[match[j]!], x, `${path}[]`, compact)));
}

const refsOf = (group: unknown): string[] => {
  const items = isObj(group) && isObj(group.spec) && Array.isArray(group.spec.items) ? group.spec.items : [];
  return items.map((it) => (isObj(it) && isObj(it.content) ? String(it.content.$ref) : ''));
};
const titleOf = (group: unknown) => (isObj(group) && isObj(group.spec) && isObj(group.spec.display) ? group.spec.display.title : undefined);

/**
 * `spec.layouts`: each edited group is matched to the loaded group holding most of its panels
 * (Perses adds a new group first), else to one of the same title, else (both empty) to the one
 * at its index; then merged, its items by `mergeItems`.
 */
function mergeLayouts(s: unknown[], n: unknown[], e: unknown[], compact: Compact): unknown[] {
  const used = new Set<number>();
  const pair: (number | undefined)[] = e.map(() => undefined);
  const choose = (j: number, score: (i: number) => number) => {
    let best = -1;
    let bestScore = 0;
    n.forEach((_ng, i) => {
      const v = used.has(i) ? 0 : score(i);
      if (v > bestScore) [best, bestScore] = [i, v];
    });
    if (best >= 0) {
      pair[j] = best;
      used.add(best);
    }
  };
  e.forEach((eg, j) => {
    const mine = new Set(refsOf(eg));
    choose(j, (i) => {
      const overlap = refsOf(n[i]).filter((r) => mine.has(r)).length;
      return overlap && overlap * 4 + (sameJson(titleOf(n[i]), titleOf(eg)) ? 2 : 0) + (i === j ? 1 : 0);
    });
  });
  e.forEach((eg, j) => {
    if (pair[j] === undefined && titleOf(eg)) choose(j, (i) => (sameJson(titleOf(n[i]), titleOf(eg)) ? 2 + (i === j ? 1 : 0) : 0));
  });
  e.forEach((eg, j) => {
    if (pair[j] === undefined && refsOf(eg).length === 0) choose(j, (i) => (i === j && refsOf(n[i]).length === 0 ? 1 : 0));
  });
  return e.map((eg, j) => {
    const i = pair[j];
    if (i === undefined) return eg;
    const [sg, ng] = [s[i], n[i]];
    if (!isObj(sg) || !isObj(ng) || !isObj(eg) || !isObj(sg.spec) || !isObj(ng.spec) || !isObj(eg.spec))
      return merge(sg, ng, eg, '.spec.layouts[]', compact);
    const items = mergeItems(sg.spec.items, ng.spec.items, eg.spec.items, compact);
    const group = mergeObject(
      { ...sg, spec: { ...sg.spec, items: [] } },
      { ...ng, spec: { ...ng.spec, items: [] } },
      { ...eg, spec: { ...eg.spec, items: [] } },
      '.spec.layouts[]',
      compact,
    );
    return { ...group, spec: { ...(group.spec as Obj), items } };
  });
}

type Item = Obj & { x: number; y: number; width: number; height: number; content: { $ref: string } };
const isItem = (v: unknown): v is Item =>
  isObj(v) &&
  typeof v.x === 'number' &&
  typeof v.y === 'number' &&
  typeof v.width === 'number' &&
  typeof v.height === 'number' &&
  isObj(v.content) &&
  typeof v.content.$ref === 'string';
const box = (it: Item): GridBox => ({ i: it.content.$ref, x: it.x, y: it.y, w: it.width, h: it.height });
const samePlace = (a: GridBox | undefined, b: GridBox) => a !== undefined && a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;
const unique = (items: Item[]) => new Set(items.map((it) => it.content.$ref)).size === items.length;

/**
 * One group's items. An item is where it was when the edit has it at its stored place or where
 * the grid showed it (packed); such items keep their stored position. Moved and new items get
 * the edit's position, shifted by an offset between the stored and the packed positions when
 * that makes the grid show exactly what the user saw (checked by packing the result); otherwise
 * every item of the group takes the edit's position, so that no group mixes the two.
 */
function mergeItems(s: unknown, n: unknown, e: unknown, compact: Compact): unknown {
  if (!Array.isArray(s) || !Array.isArray(n) || !Array.isArray(e) || s.length !== n.length) return e;
  if (![s, n, e].every((list) => list.every(isItem) && unique(list as Item[])))
    return mergeArray(s, n, e, '.spec.layouts[].spec.items', compact);
  const [si, ni, ei] = [s as Item[], n as Item[], e as Item[]];
  const stored = new Map(si.map((it) => [it.content.$ref, box(it)]));
  const shown = new Map(compact(si.map(box)).map((b) => [b.i, b]));
  const moved = new Set(
    ei.filter((it) => !samePlace(stored.get(it.content.$ref), box(it)) && !samePlace(shown.get(it.content.$ref), box(it))),
  );
  const place = (shift?: number): GridBox[] =>
    ei.map((it) => {
      if (shift === undefined) return box(it);
      return moved.has(it) ? { ...box(it), y: it.y + shift } : stored.get(it.content.$ref)!;
    });
  const wanted = ei.map(box);
  const fits = (boxes: GridBox[]) => compact(boxes).every((b, k) => samePlace(wanted[k], b));
  const shift = moved.size === 0 ? 0 : offsetsOf(si, shown).find((d) => fits(place(d)));
  const boxes = place(shift);
  return ei.map((it, k) => {
    const b = boxes[k];
    const i = ni.findIndex((x) => x.content.$ref === it.content.$ref);
    // positions compare equal to the loaded ones, then are set: the rest of the item merges as any object
    const merged =
      i < 0
        ? it
        : merge(
            si[i],
            ni[i],
            { ...it, x: ni[i].x, y: ni[i].y, width: ni[i].width, height: ni[i].height },
            '.spec.layouts[].spec.items[]',
            compact,
          );
    return { ...(merged as Obj), x: b.x, y: b.y, width: b.w, height: b.h };
  });
}

/** The offsets between stored and packed rows in a group, the most frequent first, then none. */
function offsetsOf(items: Item[], shown: Map<string, GridBox>): number[] {
  const count = new Map<number, number>();
  for (const it of items) {
    const d = it.y - (shown.get(it.content.$ref)?.y ?? it.y);
    count.set(d, (count.get(d) ?? 0) + 1);
  }
  const ranked = [...count.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([d]) => d);
  return ranked.includes(0) ? ranked : [...ranked, 0];
}

/** Paths where two JSON values differ, key order aside: `spec.panels.a.spec.display.name`, `spec.layouts[0].spec.items[2].x`. */
export function changedPaths(a: unknown, b: unknown, path = ''): string[] {
  if (sameJson(a, b)) return [];
  if ((isObj(a) && isObj(b)) || (Array.isArray(a) && Array.isArray(b))) {
    const ao = a as Obj;
    const bo = b as Obj;
    const keys = [...new Set([...Object.keys(ao), ...Object.keys(bo)])];
    return keys.flatMap((k) => changedPaths(ao[k], bo[k], Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k));
  }
  return [path];
}
