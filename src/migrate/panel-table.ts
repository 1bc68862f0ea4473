import { colorSchemeNote, formatOf } from './field-config.js';
import type { MappedPanel } from './panel-mapper.js';
import { migrateTargets, type QueryContext } from './queries.js';
import { arr, defined, isObj, num, obj, str, type Obj } from './read.js';
import { cellSettingsOf, TableColumns } from './table-columns.js';

/** Table, from Grafana 7+ `table` (transformations, overrides, mappings) and the legacy `table-old` (styles). */

const DENSITY: Record<string, string> = { sm: 'compact', md: 'standard', lg: 'comfortable' };
/** Grafana cell types (`cellOptions.type`, formerly `displayMode`) that colour cells with the colour scheme. */
const COLOURED_CELLS = /^(color-|gradient-gauge|lcd-gauge|basic|gauge|sparkline)/;

/** Whether some column of a Grafana 7+ table colours its cells (the default cell type, or an override's). */
function coloursCells(fieldConfig: Obj): boolean {
  const cellType = (custom: Obj) => String(obj(custom.cellOptions).type ?? custom.displayMode ?? '');
  const overridden = arr(fieldConfig.overrides).flatMap((o) =>
    arr(obj(o).properties).filter((p) => obj(p).id === 'custom.cellOptions' || obj(p).id === 'custom.displayMode'),
  );
  return [
    obj(obj(fieldConfig.defaults).custom),
    ...overridden.map((p) => (obj(p).id === 'custom.displayMode' ? { displayMode: p.value } : { cellOptions: p.value })),
  ].some((c) => COLOURED_CELLS.test(cellType(c)));
}

/** Transformations: organize and sortBy shape the columns, merge and joinByField become transforms, the rest is noted. */
function transformations(panel: Obj, columns: TableColumns, notes: string[]): Obj[] {
  const transforms: Obj[] = [];
  const dropped: string[] = [];
  for (const t of arr(panel.transformations)) {
    if (!isObj(t) || t.disabled === true) continue;
    const options = obj(t.options);
    if (t.id === 'organize' || (t.id === undefined && (options.renameByName || options.excludeByName || options.indexByName)))
      columns.organize(options);
    else if (t.id === 'merge') transforms.push({ kind: 'MergeSeries', spec: {} });
    else if (t.id === 'joinByField' && str(options.byField))
      transforms.push({ kind: 'JoinByColumnValue', spec: { columns: [options.byField] } });
    else if (t.id === 'sortBy')
      arr(options.sort)
        .filter((s) => str(obj(s).field))
        .forEach((s) => columns.sort(s.field, s.desc === true));
    else dropped.push(String(t.id));
  }
  if (dropped.length > 0) notes.push(`transformations without a Perses equivalent: ${dropped.join(', ')}`);
  return transforms;
}

/** `table` (Grafana 7+) -> Table. */
export function tablePanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const fieldConfig = obj(panel.fieldConfig);
  const defaults = obj(fieldConfig.defaults);
  const custom = obj(defaults.custom);
  const options = obj(panel.options);
  const columns = new TableColumns(arr(panel.targets).map((t) => String(obj(t).refId ?? '')));
  const transforms = transformations(panel, columns, notes);
  const unsupported = new Set<string>();
  for (const o of arr(fieldConfig.overrides)) {
    const matcher = obj(obj(o).matcher);
    if ((matcher.id === 'byName' || matcher.id === undefined) && typeof matcher.options === 'string')
      columns.override(matcher.options, arr(obj(o).properties), unsupported, notes);
    else unsupported.add(`matcher ${String(matcher.id)}`);
  }
  if (unsupported.size > 0) notes.push(`column settings without a Perses equivalent: ${[...unsupported].join(', ')}`);
  const defaultFormat = formatOf(defaults.unit, defaults.decimals, []);
  if (defaultFormat && defaultFormat.unit !== 'decimal')
    notes.push(`the default unit "${defaults.unit}" applies to no column: set it per column`);
  if (obj(options.footer).show === true) notes.push('the table footer (column totals) is not supported');
  if (coloursCells(fieldConfig)) colorSchemeNote(defaults, notes, 'Perses colours cells by value conditions only');
  const cellSettings = cellSettingsOf(defaults.mappings, notes);
  const columnSettings = columns.build();
  const spec = defined({
    density: DENSITY[options.cellHeight],
    defaultColumnWidth: num(custom.width),
    enableFiltering: custom.filterable === true ? true : undefined,
    columnSettings: columnSettings.length > 0 ? columnSettings : undefined,
    cellSettings: cellSettings.length > 0 ? cellSettings : undefined,
    transforms: transforms.length > 0 ? transforms : undefined,
  });
  return { plugin: { kind: 'Table', spec }, queries: q.queries, notes };
}

/** `table-old` (and `table` of Grafana < 7, which had `styles`) -> Table: one column per style. */
export function legacyTablePanel(panel: Obj, ctx: QueryContext): MappedPanel {
  const q = migrateTargets(panel, ctx);
  const notes = [...q.notes];
  const columns = new TableColumns(arr(panel.targets).map((t) => String(obj(t).refId ?? '')));
  const built: Obj[] = [];
  // a `/.*/` style of type hidden hides every column no earlier style names
  let hideOthers = false;
  for (const s of arr(panel.styles)) {
    if (!isObj(s) || !str(s.pattern)) continue;
    if (/^\/.*\/[a-z]*$/.test(s.pattern)) {
      if (s.pattern === '/.*/' && s.type === 'hidden') hideOthers = true;
      else if (s.pattern !== '/.*/')
        notes.push(`column style for the pattern ${s.pattern} is not supported (Perses names columns exactly)`);
      continue;
    }
    const link =
      str(s.linkUrl) && s.link === true
        ? defined({ url: s.linkUrl, title: str(s.linkTooltip), openNewTab: s.linkTargetBlank === true })
        : undefined;
    built.push(
      defined({
        name: columns.name(s.pattern),
        header: str(s.alias),
        // Grafana gives a column the first style that matches it: none after the catch-all hidden one
        hide: s.type === 'hidden' || hideOthers ? true : undefined,
        align: ['left', 'center', 'right'].includes(s.align) ? s.align : undefined,
        format: s.type === 'number' ? formatOf(s.unit, s.decimals, notes) : undefined,
        dataLink: link,
      }),
    );
  }
  if (str(panel.transform) && panel.transform !== 'table' && panel.transform !== 'timeseries_to_rows')
    notes.push(`the "${panel.transform}" table transform is not supported`);
  if (arr(panel.styles).some((s) => arr(obj(s).thresholds).length > 0)) notes.push('threshold colours of columns are not carried');
  if (hideOthers)
    notes.push(
      "the style /.*/ hides every column no earlier style names: kept as defaultColumnHidden, which the web UI's Table does not apply yet (it shows those columns)",
    );
  const spec = defined({ defaultColumnHidden: hideOthers ? true : undefined, columnSettings: built.length > 0 ? built : undefined });
  return { plugin: { kind: 'Table', spec }, queries: q.queries, notes };
}
