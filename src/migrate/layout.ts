import { hasLegacyRows, isLegacyRowCopy, upgradeLegacyRows } from './legacy-rows.js';
import { arr, defined, isObj, num, obj, str, type Obj } from './read.js';

/** One panel in its place: the key it gets in `spec.panels`, the Grafana panel, its grid item (without content). */
export interface PlacedPanel {
  key: string;
  panel: Obj;
  item: Obj;
}

/** A Perses Grid section: a titled (collapsible) Grafana row, or top-level panels (above the first row, or after a collapsed one). */
export interface Section {
  /** Absent for top-level panels, which Grafana shows without a header. */
  display?: { title: string; collapse: { open: boolean } };
  repeatVariable?: string;
  panels: PlacedPanel[];
}

const COLUMNS = 24;
const DEFAULT_SIZE = { w: 12, h: 8 };

/** Grid coordinates: whole numbers within the 24-column grid. */
function gridItem(gridPos: unknown, flow: { x: number; y: number }): Obj {
  const g = obj(gridPos);
  if (num(g.w) === undefined || num(g.h) === undefined) {
    // no position (hand-written JSON): Grafana's default size, two per line
    const item = { x: flow.x, y: flow.y, width: DEFAULT_SIZE.w, height: DEFAULT_SIZE.h };
    flow.x += DEFAULT_SIZE.w;
    if (flow.x >= COLUMNS) Object.assign(flow, { x: 0, y: flow.y + DEFAULT_SIZE.h });
    return item;
  }
  const x = Math.min(COLUMNS - 1, Math.max(0, Math.floor(num(g.x) ?? 0)));
  return {
    x,
    y: Math.max(0, Math.floor(num(g.y) ?? 0)),
    width: Math.max(1, Math.min(COLUMNS - x, Math.floor(num(g.w)!))),
    height: Math.max(1, Math.floor(num(g.h)!)),
  };
}

function repeatOf(panel: Obj): Obj | undefined {
  if (!str(panel.repeat)) return undefined;
  return defined({
    value: panel.repeat,
    alignment: panel.repeatDirection === 'v' ? 'vertical' : 'horizontal',
    maxPer: num(panel.maxPerRow) !== undefined && num(panel.maxPerRow)! >= 1 ? Math.floor(num(panel.maxPerRow)!) : undefined,
  });
}

/** A library panel reference, resolved from the export's `__elements` when it is there (Grafana shows the library's model, whatever the reference holds). */
function resolveLibraryPanel(panel: Obj, elements: Obj, notes: string[]): Obj {
  const ref = obj(panel.libraryPanel);
  if (!str(ref.uid)) return panel;
  const model = obj(obj(elements[ref.uid]).model);
  if (!str(model.type)) return panel;
  notes.push(`library panel "${str(ref.name) ?? ref.uid}" was taken from the export's __elements`);
  return { ...model, gridPos: panel.gridPos ?? model.gridPos, title: panel.title ?? model.title, libraryPanel: undefined };
}

/** The lowest grid line the panels reach. */
function bottomOf(panels: Obj[]): number {
  return Math.max(0, ...panels.map((p) => (num(obj(p.gridPos).y) ?? 0) + (num(obj(p.gridPos).h) ?? 0)));
}

/** Whether Grafana made this panel or row as a copy for a repeat (only truthy markers count: `repeatPanelId: 0` is no copy). */
function isCopy(p: Obj): boolean {
  return Boolean(p.repeatPanelId) || Boolean(p.repeatedByRow) || (p.type === 'row' && Boolean(p.repeatIteration));
}

/** How the report names a copy left out. */
function copyName(p: Obj): string {
  const what = p.type === 'row' ? 'row' : `${str(p.type) ?? 'panel'}`;
  const of = p.repeatPanelId ? ` (copy of panel ${String(p.repeatPanelId)})` : '';
  const inside = p.type === 'row' && arr(p.panels).length > 0 ? ` (with ${arr(p.panels).length} panel(s))` : '';
  return `${what} "${str(p.title) ?? ''}"${of}${inside}`;
}

/**
 * The dashboard's panels in the `panels[]` form. Grafana's upgrade of schemas before 16 appends
 * the panels of the legacy `rows[]` to `panels[]` (a dashboard may have both), and so does this,
 * below the last panel. `copies` gets the names of the legacy row copies left out.
 */
function sourcePanels(dashboard: Obj, copies: string[]): Obj[] {
  const panels = arr(dashboard.panels).filter(isObj);
  if (!hasLegacyRows(dashboard)) return panels;
  for (const row of arr(dashboard.rows).filter(isObj)) if (isLegacyRowCopy(row)) copies.push(copyName({ ...row, type: 'row' }));
  return [...panels, ...upgradeLegacyRows(dashboard.rows, bottomOf(panels))];
}

/**
 * The Grafana panels in Perses Grid sections, in dashboard order: rows (collapsed ones hold their
 * panels, expanded ones are followed by theirs), top-level panels (above the first row or after a
 * collapsed one) in sections without header, and the legacy `rows[]` layout. Panel keys are "i"
 * (a top-level panel) and "i_j" (panel j of row i), as Perses names them.
 * Copies Grafana made of repeated panels and rows are left out, each named in a note: the repeat
 * comes back from the original's repeat variable.
 */
export function layoutPanels(dashboard: Obj, notes: string[]): Section[] {
  const copies: string[] = [];
  const source = sourcePanels(dashboard, copies);
  const elements = obj(dashboard.__elements);
  // fold the panels that follow an expanded row into it; a collapsed row holds its own panels,
  // and the top-level panels after it stay visible below it in Grafana (as in Perses' migration)
  const top: Obj[] = [];
  let expanded: Obj | undefined;
  for (const p of source) {
    if (isCopy(p)) {
      copies.push(copyName(p));
      continue;
    }
    if (p.type === 'row') {
      const row: Obj = { ...p, panels: [...arr(p.panels).filter(isObj)] };
      top.push(row);
      expanded = row.collapsed === true ? undefined : row;
    } else if (expanded) expanded.panels.push(p);
    else top.push(p);
  }
  const flow = { x: 0, y: 0 };
  const sections: Section[] = [];
  // top-level panels in a section without header: those above the first row, and those after a collapsed row
  let loose: PlacedPanel[] | undefined;
  top.forEach((p, i) => {
    if (p.type !== 'row') {
      const panel = resolveLibraryPanel(p, elements, notes);
      if (!loose) {
        loose = [];
        sections.push({ panels: loose });
      }
      loose.push({ key: String(i), panel, item: defined({ ...gridItem(panel.gridPos, flow), repeatVariable: repeatOf(panel) }) });
      return;
    }
    loose = undefined;
    const panels: PlacedPanel[] = [];
    arr(p.panels).forEach((child: Obj, j: number) => {
      if (isCopy(child)) return void copies.push(copyName(child));
      const panel = resolveLibraryPanel(child, elements, notes);
      panels.push({ key: `${i}_${j}`, panel, item: defined({ ...gridItem(panel.gridPos, flow), repeatVariable: repeatOf(panel) }) });
    });
    if (panels.length === 0) {
      notes.push(`the empty row "${str(p.title) ?? ''}" is not kept (a Perses section needs panels)`);
      return;
    }
    sections.push(
      defined({
        display: { title: str(p.title) ?? '', collapse: { open: p.collapsed !== true } },
        repeatVariable: str(p.repeat),
        panels,
      }) as Section,
    );
  });
  if (copies.length > 0)
    notes.push(
      `${copies.length} panel(s) or row(s) Grafana had copied for a repeat were left out, the repeated original standing for them: ${copies.join(', ')}`,
    );
  return sections;
}
