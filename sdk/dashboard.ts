import type {
  Annotation,
  Dashboard,
  DashboardSpec,
  DashboardVariable,
  DatasourceSpec,
  Display,
  GridItem,
  GridLayout,
  Link,
  Panel,
} from './generated/types.js';
import { isPlaced, type PanelGroup, type PlacedPanel } from './group.js';
import { flow, keyFromTitle, uniqueKey, widthFor } from './layout.js';
import { traced } from './origin.js';
import { hintsOf } from './panel.js';

/** What `dashboard` takes: the metadata, then the spec, groups of panels instead of panels and layouts. */
export interface DashboardOptions {
  /** `metadata.name`: letters, digits, `_`, `.`, `-`. */
  name: string;
  /** `metadata.project`; without it dashctl uses `-p` or the context's project. */
  project?: string;
  tags?: string[];
  /** The title shown (`spec.display.name`). */
  title?: string;
  /** `spec.display.description`. */
  description?: string;
  /** The whole `spec.display`, for what title and description do not say (they are added to it). */
  display?: Display;
  /** Default time range, such as `'1h'` (the server uses 1h when absent). */
  duration?: string;
  refreshInterval?: string;
  timezone?: string;
  /** Datasources of this dashboard only, by name. */
  datasources?: Record<string, DatasourceSpec>;
  /** `listVariable(...)`, `textVariable(...)`, in display order. */
  variables?: readonly DashboardVariable[];
  /** Sections top to bottom: `panelGroup(...)`. */
  groups?: readonly PanelGroup[];
  links?: Link[];
  annotations?: Annotation[];
  /** Grid sections written out, after the groups' (for layouts the groups cannot express). */
  layouts?: readonly GridLayout[];
  /** Panels by key besides the groups' (referenced by `layouts`, or by none). */
  panels?: Record<string, Panel>;
}

/** A Dashboard resource. Panel keys and grid positions are computed; nothing the server sets is written. */
export function dashboard(options: DashboardOptions): Dashboard {
  const { name, project, tags, title, description, display: ownDisplay, groups = [], layouts = [], panels: extra = {}, ...rest } = options;
  if (typeof name !== 'string' || !name)
    throw new Error('dashboard(): name is required (metadata.name), e.g. dashboard({ name: "service-overview", ... })');
  const keys = assignKeys(groups, extra);
  const panels: Record<string, Panel> = { ...extra };
  for (const [p, key] of keys) panels[key] = p;
  const display: Display | undefined =
    title === undefined && description === undefined
      ? undefined
      : { ...(title !== undefined ? { name: title } : {}), ...(description !== undefined ? { description } : {}) };
  const spec: DashboardSpec = {
    ...(display ? { display } : {}),
    ...definedOnly(rest),
    panels,
    layouts: [...groups.map((g) => gridOf(g, keys)), ...layouts],
  } as DashboardSpec;
  const metadata = { name, ...(project !== undefined ? { project } : {}), ...(tags !== undefined ? { tags } : {}) };
  return traced({ kind: 'Dashboard', metadata, spec }, dashboard);
}

const panelOf = (x: Panel | PlacedPanel): Panel => (isPlaced(x) ? x.panel : x);

/**
 * The key of every panel of the groups: its own (`panel({key})`) first, then one derived from its
 * title, unique in the dashboard. A panel object placed twice keeps one key; one that is also in
 * `panels` has the key it has there.
 */
function assignKeys(groups: readonly PanelGroup[], extra: Record<string, Panel>): Map<Panel, string> {
  const all = groups.flatMap((g) => g.panels.map(panelOf));
  const used = new Set(Object.keys(extra));
  const keys = new Map<Panel, string>(Object.entries(extra).map(([k, p]) => [p, k]));
  for (const p of all) {
    const own = hintsOf(p).key;
    if (own === undefined || keys.has(p)) continue;
    if (used.has(own)) throw new Error(`dashboard(): two panels have the key "${own}"; give one another key`);
    used.add(own);
    keys.set(p, own);
  }
  for (const p of all) if (!keys.has(p)) keys.set(p, uniqueKey(keyFromTitle(p.spec.display?.name), used));
  return keys;
}

function gridOf(g: PanelGroup, keys: Map<Panel, string>): GridLayout {
  const auto = g.panels.filter((x): x is Panel => !isPlaced(x));
  const cells = flow(auto.map((p) => ({ width: hintsOf(p).width ?? widthFor(g.columns), height: hintsOf(p).height ?? g.height })));
  let next = 0;
  const items: GridItem[] = g.panels.map((x) => {
    const ref = { $ref: `#/spec/panels/${keys.get(panelOf(x))}` };
    if (!isPlaced(x)) return { ...cells[next++], content: ref };
    const { x: px, y, width, height, repeatVariable } = x;
    return { x: px, y, width, height, content: ref, ...(repeatVariable ? { repeatVariable } : {}) };
  });
  const display =
    g.title === undefined ? undefined : { title: g.title, ...(g.collapsed !== undefined ? { collapse: { open: !g.collapsed } } : {}) };
  return {
    kind: 'Grid',
    spec: { ...(display ? { display } : {}), items, ...(g.repeatVariable !== undefined ? { repeatVariable: g.repeatVariable } : {}) },
  };
}

/** The entries whose value is not undefined (an option left out writes no key). */
function definedOnly(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
