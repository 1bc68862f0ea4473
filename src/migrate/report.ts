/**
 * The migration report: what became of every Grafana panel, variable, query and dashboard
 * setting. Nothing is left out silently: anything not carried over is an entry with a note.
 */

/** mapped: same meaning; approximated: a real plugin, something lost (see notes); placeholder: kept as text only; dropped: nothing produced. */
export type Outcome = 'mapped' | 'approximated' | 'placeholder' | 'dropped';

/** What an entry is about. */
export type Subject = 'dashboard' | 'panel' | 'variable' | 'annotation' | 'link';

/** One Grafana element and what it became. */
export interface ReportEntry {
  subject: Subject;
  /** The Grafana element, e.g. `graph "CPU usage"` or `query variable "instance"`. */
  source: string;
  /** Where the result is in the Perses dashboard (`spec.panels.0_1`), absent when nothing was produced. */
  path?: string;
  /** The plugin or kind it became (`TimeSeriesChart`, `PrometheusLabelValuesVariable`...). */
  result?: string;
  outcome: Outcome;
  /** What was approximated or lost, one sentence each. */
  notes: string[];
}

/** Totals of one subject. */
export interface Counts {
  total: number;
  mapped: number;
  approximated: number;
  placeholder: number;
  dropped: number;
}

/** The whole report: totals, then every entry in dashboard order. */
export interface MigrationReport {
  /** `other`: links and annotations. */
  summary: { panels: Counts; variables: Counts; queries: Counts; other: Counts };
  entries: ReportEntry[];
}

const zero = (): Counts => ({ total: 0, mapped: 0, approximated: 0, placeholder: 0, dropped: 0 });

/** Collects entries while a dashboard is migrated. */
export class ReportBuilder {
  private readonly entries: ReportEntry[] = [];
  private readonly queries = zero();

  /** Records one element; the outcome becomes "approximated" when a mapped element has notes. */
  add(entry: ReportEntry): void {
    const outcome = entry.outcome === 'mapped' && entry.notes.length > 0 ? 'approximated' : entry.outcome;
    this.entries.push({ ...entry, outcome });
  }

  /** Counts one Grafana query (target) by what became of it. */
  countQuery(outcome: Outcome): void {
    this.queries.total++;
    this.queries[outcome]++;
  }

  /** Adds the query counts of another builder (a panel mapped on the side, then kept). */
  addQueryCounts(other: ReportBuilder): void {
    for (const k of Object.keys(this.queries) as (keyof Counts)[]) this.queries[k] += other.queries[k];
  }

  build(): MigrationReport {
    const panels = zero();
    const variables = zero();
    const other = zero();
    for (const e of this.entries) {
      if (e.subject === 'dashboard') continue;
      const c = e.subject === 'panel' ? panels : e.subject === 'variable' ? variables : other;
      c.total++;
      c[e.outcome]++;
    }
    return { summary: { panels, variables, queries: { ...this.queries }, other }, entries: [...this.entries] };
  }
}

function counts(c: Counts, what: string): string {
  const parts = (['mapped', 'approximated', 'placeholder', 'dropped'] as const).filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  return `${c.total} ${what}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** One line: `12 panels (10 mapped, 1 approximated, 1 placeholder); 4 variables (4 mapped); ...`. */
export function summaryLine(report: MigrationReport): string {
  const s = report.summary;
  return [counts(s.panels, 'panels'), counts(s.variables, 'variables'), counts(s.queries, 'queries'), counts(s.other, 'other settings')].join('; ');
}

/** The summary as a compact JSON object, for the X-Migration-Summary response header. */
export function summaryHeader(report: MigrationReport): string {
  return JSON.stringify(report.summary);
}

/** The report as text lines (dashctl's stderr): every entry that is not a plain mapping, then the summary. */
export function formatReport(report: MigrationReport, verbose = false): string {
  const lines: string[] = [];
  for (const e of report.entries) {
    if (!verbose && e.outcome === 'mapped') continue;
    const to = e.result ? ` -> ${e.result}` : '';
    const at = e.path ? ` at ${e.path}` : '';
    lines.push(`${e.outcome.padEnd(12)} ${e.subject} ${e.source}${to}${at}`);
    for (const n of e.notes) lines.push(`             - ${n}`);
  }
  lines.push(summaryLine(report));
  return `${lines.join('\n')}\n`;
}
