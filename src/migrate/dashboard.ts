import { annotationsOf, dashboardLinks, durationOf, refreshOf, tagsOf, timezoneOf } from './dashboard-settings.js';
import { DatasourceResolver, type DatasourceOptions } from './datasources.js';
import { replaceInputs, unwrapGrafanaDashboard } from './grafana-input.js';
import { layoutPanels } from './layout.js';
import { upgradeLegacyDashboard } from './legacy-dashboard.js';
import { dashboardName } from './names.js';
import { migratePanel } from './panels.js';
import type { QueryContext } from './queries.js';
import { defined, str, type Obj } from './read.js';
import { ReportBuilder, type MigrationReport } from './report.js';
import { migrateVariables } from './variables.js';

/** Everything the migration needs besides the Grafana dashboard. */
export interface MigrateOptions extends DatasourceOptions {
  /** The project the dashboard is for (metadata.project; "" when not known). */
  project?: string | undefined;
  /** The dashboard's name; default: the Grafana uid, or the title as a slug. */
  name?: string | undefined;
  /** Dashboard names already used in the project: a derived name avoids them. */
  takenNames?: ReadonlySet<string> | undefined;
  /** Whether the server knows a plugin kind; a panel whose plugin is unknown becomes a placeholder. Default: every kind. */
  hasPlugin?: ((kind: string) => boolean) | undefined;
  /**
   * Whether the web UI draws a plugin kind (the catalog's `ui` flag). When given, each panel and
   * variable gets a render verdict, and what the UI would show as an error counts as "unrendered",
   * not "mapped". Default: no verdicts.
   */
  inUi?: ((kind: string) => boolean) | undefined;
  /** "Now", for tests of absolute time ranges. */
  now?: number;
  /** How error messages name the input (default "grafanaDashboard", the API field). */
  source?: string;
  /** Notes for the dashboard's report entry from the caller (e.g. about the project's datasources). */
  notes?: string[];
}

/** A migrated dashboard and the report of what became of each Grafana element. */
export interface MigrationResult {
  dashboard: Obj;
  report: MigrationReport;
}

/** The zero time Perses writes into the metadata of a dashboard it has not stored. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * Migrates a Grafana dashboard (any schema version, `{dashboard}` API answers and exports with
 * `__inputs` included) to a Perses Dashboard. Every panel becomes a panel — mapped to the nearest
 * plugin or a Markdown placeholder — in Grid sections that keep Grafana's rows, order and sizes.
 * Throws a BadRequest ApiError when the input is not a Grafana dashboard.
 */
export function migrateGrafanaDashboard(input: unknown, opts: MigrateOptions = {}): MigrationResult {
  const grafana = upgradeLegacyDashboard(replaceInputs(unwrapGrafanaDashboard(input, opts.source), opts.input));
  const report = new ReportBuilder();
  const ds = new DatasourceResolver(grafana, opts);
  const ctx: QueryContext = { ds, report, hasPlugin: opts.hasPlugin ?? (() => true), inUi: opts.inUi };
  const notes: string[] = [...(opts.notes ?? [])];

  const durationNotes: string[] = [];
  const duration = durationOf(grafana.time, durationNotes, opts.now) ?? '1h';
  const { variables, entries: variableEntries } = migrateVariables(grafana, ctx, duration);
  const sections = layoutPanels(grafana, notes);
  const panels: Obj = {};
  const layouts = sections.map((section) => {
    const items = section.panels.map((p) => {
      const { panel, entry } = migratePanel(p.panel, `spec.panels.${p.key}`, ctx);
      panels[p.key] = panel;
      report.add(entry);
      return { ...p.item, content: { $ref: `#/spec/panels/${p.key}` } };
    });
    return { kind: 'Grid', spec: defined({ display: section.display, repeatVariable: section.repeatVariable, items }) };
  });
  for (const e of variableEntries) report.add(e);

  const links = dashboardLinks(grafana.links);
  const annotations = annotationsOf(grafana.annotations, ds);
  for (const e of [...links.entries, ...annotations.entries]) report.add(e);
  notes.push(...durationNotes);
  const spec = defined({
    display: defined({ name: str(grafana.title) ?? '', description: str(grafana.description) }),
    variables: variables.length > 0 ? variables : undefined,
    panels,
    layouts,
    duration,
    refreshInterval: refreshOf(grafana.refresh, notes),
    timezone: timezoneOf(grafana.timezone, notes),
    links: links.links.length > 0 ? links.links : undefined,
    annotations: annotations.annotations.length > 0 ? annotations.annotations : undefined,
  });
  if (ds.prometheusRefs.size > 1)
    notes.push(
      `the Grafana dashboard used ${ds.prometheusRefs.size} Prometheus datasources (${[...ds.prometheusRefs].join(', ')}): all its queries now use ${ds.target('PrometheusDatasource')}`,
    );
  const { name, notes: nameNotes } = dashboardName(grafana.uid, grafana.title, opts.takenNames, opts.name);
  const tags = tagsOf(grafana.tags, notes);
  const dashboard = {
    kind: 'Dashboard',
    metadata: defined({ name, createdAt: ZERO_TIME, updatedAt: ZERO_TIME, version: 0, project: opts.project ?? '', tags }),
    spec,
  };
  report.add({
    subject: 'dashboard',
    source: `dashboard "${str(grafana.title) ?? ''}"`,
    path: 'metadata.name',
    result: `Dashboard ${name}`,
    outcome: 'mapped',
    notes: [...nameNotes, ...notes],
  });
  return { dashboard, report: report.build() };
}
