/**
 * The migration report: what became of every Grafana panel, variable, query and dashboard
 * setting. Nothing is left out silently: anything not carried over is an entry with a note.
 */

/**
 * mapped: same meaning; approximated: a real plugin, something lost (see notes); unrendered: a real
 * Perses plugin that the web UI of this server does not draw (it shows an error there); placeholder:
 * kept as text only; dropped: nothing produced.
 */
export type Outcome = 'mapped' | 'approximated' | 'unrendered' | 'placeholder' | 'dropped';

/** The outcomes in the order reports list their counts. */
export const OUTCOMES: readonly Outcome[] = ['mapped', 'approximated', 'unrendered', 'placeholder', 'dropped'];

/** Whether the web UI draws a migrated panel or variable, and if not, why (one sentence per cause). */
export interface RenderVerdict {
  renders: boolean;
  reasons: string[];
}

/** What an entry is about. */
export type Subject = 'dashboard' | 'panel' | 'variable' | 'annotation' | 'link';

/** One Grafana element and what it became. */
export interface ReportEntry {
  subject: Subject;
  /** The Grafana element, e.g. `graph "CPU usage"` or `query variable "instance"`. */
  source: string;
  /** Where the result is in the Perses dashboard (`spec.panels.0_1`), absent when nothing was produced. */
  path?: string | undefined;
  /** The plugin or kind it became (`TimeSeriesChart`, `PrometheusLabelValuesVariable`...). */
  result?: string | undefined;
  outcome: Outcome;
  /** What was approximated or lost, one sentence each. */
  notes: string[];
  /** Panels and variables, when the migration knows which plugins the web UI draws: whether it draws this one. */
  render?: RenderVerdict | undefined;
}

/** Totals of one subject. */
export interface Counts {
  total: number;
  mapped: number;
  approximated: number;
  unrendered: number;
  placeholder: number;
  dropped: number;
}

/** The whole report: totals, then every entry in dashboard order. */
export interface MigrationReport {
  /** `other`: links and annotations. */
  summary: { panels: Counts; variables: Counts; queries: Counts; other: Counts };
  entries: ReportEntry[];
}

const zero = (): Counts => ({ total: 0, mapped: 0, approximated: 0, unrendered: 0, placeholder: 0, dropped: 0 });

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

  /** Adds the query counts of another builder (a panel mapped on the side, then kept); `unrendered` of its mapped queries are counted so instead. */
  addQueryCounts(other: ReportBuilder, unrendered = 0): void {
    for (const k of Object.keys(this.queries) as (keyof Counts)[]) this.queries[k] += other.queries[k];
    const moved = Math.min(unrendered, other.queries.mapped);
    this.queries.mapped -= moved;
    this.queries.unrendered += moved;
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
  const parts = OUTCOMES.filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  return `${c.total} ${what}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** The panels the web UI draws, as `9 of 12`; undefined when the report has no render verdicts. */
export function panelsDrawn(report: MigrationReport): string | undefined {
  const judged = report.entries.filter((e) => e.subject === 'panel' && e.render);
  return judged.length > 0 ? `${judged.filter((e) => e.render!.renders).length} of ${judged.length}` : undefined;
}

/** One line: `12 panels (10 mapped, 1 approximated, 1 placeholder); 4 variables (4 mapped); ...; the web UI draws 11 of 12 panels`. */
function summaryLine(report: MigrationReport): string {
  const s = report.summary;
  const drawn = panelsDrawn(report);
  return [
    counts(s.panels, 'panels'),
    counts(s.variables, 'variables'),
    counts(s.queries, 'queries'),
    counts(s.other, 'other settings'),
    ...(drawn ? [`the web UI draws ${drawn} panels`] : []),
  ].join('; ');
}

/** The summary as a compact JSON object, for the X-Migration-Summary response header. */
export function summaryHeader(report: MigrationReport): string {
  return JSON.stringify(report.summary);
}

/**
 * The report as text lines (dashctl's stderr): every entry that is not a plain mapping, with its
 * notes and why the web UI does not draw it, then the summary.
 */
export function formatReport(report: MigrationReport, verbose = false): string {
  const lines: string[] = [];
  for (const e of report.entries) {
    if (!verbose && e.outcome === 'mapped') continue;
    const to = e.result ? ` -> ${e.result}` : '';
    const at = e.path ? ` at ${e.path}` : '';
    lines.push(`${e.outcome.padEnd(12)} ${e.subject} ${e.source}${to}${at}`);
    for (const n of e.notes) lines.push(`             - ${n}`);
    if (e.render && !e.render.renders) lines.push(`             - not drawn by the web UI: ${e.render.reasons.join('; ')}`);
  }
  lines.push(summaryLine(report));
  return `${lines.join('\n')}\n`;
}
