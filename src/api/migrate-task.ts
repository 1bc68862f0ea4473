import { migrateGrafanaDashboard } from '../migrate/dashboard.js';
import { checkInput } from '../migrate/grafana-input.js';
import { summaryHeader } from '../migrate/report.js';

/** A migration as the worker thread receives it: the request's body and what the route read from the store. */
export interface MigrateTask {
  grafanaDashboard: unknown;
  input: unknown;
  useDefaultDatasource: boolean;
  datasource?: string;
  notes: string[];
  project?: string;
  name?: string;
  takenNames?: string[];
  /** The plugin kinds the server knows. */
  pluginKinds: string[];
  /** The plugin kinds the web UI draws (catalog `"ui": true`): the report's per-panel verdict. */
  uiKinds: string[];
  /** Answer `{dashboard, report}` rather than the dashboard. */
  report: boolean;
}

/** The answer's JSON text and its X-Migration-Summary header. */
export interface MigrateTaskResult {
  text: string;
  summary: string;
}

/**
 * `POST /api/migrate`'s work, which grows with the Grafana dashboard (10,000 panels took half a
 * second): run in the worker thread (`Offload`), so no dashboard holds the event loop.
 */
export function migrateTask(t: MigrateTask): MigrateTaskResult {
  const kinds = new Set(t.pluginKinds);
  const drawn = new Set(t.uiKinds);
  const { dashboard, report } = migrateGrafanaDashboard(t.grafanaDashboard, {
    input: checkInput(t.input),
    useDefaultDatasource: t.useDefaultDatasource,
    datasource: t.datasource,
    notes: t.notes,
    project: t.project,
    name: t.name,
    takenNames: t.takenNames ? new Set(t.takenNames) : undefined,
    hasPlugin: (kind) => kinds.has(kind),
    inUi: (kind) => drawn.has(kind),
  });
  return { text: JSON.stringify(t.report ? { dashboard, report } : dashboard), summary: summaryHeader(report) };
}
