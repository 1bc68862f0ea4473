import { mappingsOf } from './field-config.js';
import { legendOf } from './legend.js';
import type { MappedPanel } from './panel-mapper.js';
import { migrateTargets, targetText, type QueryContext } from './queries.js';
import { arr, defined, isObj, obj, str, type Obj } from './read.js';

/** Markdown (text panels and placeholders), LogsTable and StatusHistoryChart. */

/** `text` -> Markdown: markdown as is, code in a fenced block, HTML passed through the Markdown renderer. */
export function textPanel(panel: Obj): MappedPanel {
  const options = obj(panel.options);
  const mode = options.mode ?? panel.mode ?? 'markdown';
  const content = typeof options.content === 'string' ? options.content : typeof panel.content === 'string' ? panel.content : '';
  const notes: string[] = [];
  let text = content;
  if (mode === 'code') {
    const language = str(obj(options.code).language) ?? '';
    text = `${fence(content)}${language}\n${content}\n${fence(content)}`;
  } else if (mode === 'html') {
    notes.push('HTML content is shown by the Markdown panel: the HTML is sanitised (no scripts or styles)');
  }
  return { plugin: { kind: 'Markdown', spec: { text } }, queries: [], notes };
}

/** A code fence longer than any backtick run in `text`. */
function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  return '`'.repeat(longest + 1);
}

/** `logs` -> LogsTable with Loki queries. */
export function logsPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx, 'LogQuery');
  const options = obj(panel.options);
  const spec = defined({
    allowWrap: typeof options.wrapLogMessage === 'boolean' ? options.wrapLogMessage : undefined,
    enableDetails: options.enableLogDetails !== false,
    showTime: typeof options.showTime === 'boolean' ? options.showTime : undefined,
  });
  const notes = [...q.notes];
  if (options.showLabels === true) notes.push('log labels are shown in the details, not inline');
  return { plugin: { kind: 'LogsTable', spec }, queries: q.queries, notes };
}

/** `status-history` and `state-timeline` -> StatusHistoryChart. */
export function statusHistoryPanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const defaults = obj(obj(panel.fieldConfig).defaults);
  const mappings = mappingsOf(defaults.mappings, notes);
  if (panel.type === 'state-timeline') notes.push('a state timeline is drawn as a status history (one cell per time step)');
  if (mappings.length === 0 && obj(defaults.color).mode === 'thresholds' && arr(obj(defaults.thresholds).steps).length > 1)
    notes.push('StatusHistoryChart does not colour by thresholds');
  const spec = defined({
    legend: legendOf(obj(panel.options).legend, notes, false),
    sorting: 'asc',
    mappings: mappings.length > 0 ? mappings : undefined,
  });
  return { plugin: { kind: 'StatusHistoryChart', spec }, queries: q.queries, notes };
}

/**
 * A Markdown panel standing for a Grafana panel that cannot be migrated: it names the panel type
 * and title, says why, and keeps the original query texts.
 */
export function placeholderPanel(panel: Obj, reason: string): MappedPanel {
  const type = str(panel.type) ?? (isObj(panel.libraryPanel) ? 'library panel' : 'unknown');
  const title = str(panel.title) ?? str(obj(panel.libraryPanel).name) ?? str(obj(panel.libraryPanel).uid) ?? '(untitled)';
  const queries = arr(panel.targets)
    .filter(isObj)
    .map((t) => `${t.refId ?? '-'}: ${targetText(t)}`);
  const lines = [`**Not migrated from Grafana**: "${title}" is a \`${type}\` panel. ${reason}`];
  if (queries.length > 0) {
    const body = queries.join('\n');
    lines.push('', 'Original queries:', '', `${fence(body)}text`, body, fence(body));
  }
  return { plugin: { kind: 'Markdown', spec: { text: lines.join('\n') } }, queries: [], notes: [reason], placeholder: true };
}
