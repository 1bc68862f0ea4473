import { formatOf, mappingsOf } from './field-config.js';
import { arr, defined, isObj, num, obj, str, type Obj } from './read.js';

/** Perses cell settings from value mappings: `{condition, text?, backgroundColor?}`. */
export function cellSettingsOf(mappings: unknown, notes: string[]): Obj[] {
  return mappingsOf(mappings, notes).map((m) => {
    const spec = obj(m.spec);
    const condition =
      m.kind === 'Range'
        ? { kind: 'Range', spec: defined({ min: spec.from, max: spec.to }) }
        : m.kind === 'Regex'
          ? { kind: 'Regex', spec: { expr: spec.pattern } }
          : { kind: m.kind, spec: { value: spec.value } };
    const result = obj(spec.result);
    return defined({ condition, text: result.value === '' ? undefined : result.value, backgroundColor: result.color });
  });
}

/**
 * The columns of a Perses Table, built from Grafana's organize transformations, field overrides
 * and legacy table styles. Grafana names a column by its field ("Value", "Time", "Value #A", a
 * label) and later steps refer to it by its current display name; Perses by its data name
 * ("value", "timestamp", "value #1").
 */
export class TableColumns {
  private readonly columns: Obj[] = [];
  /** Grafana field name of each column, and the name it shows after the organize transformations. */
  private readonly field = new Map<Obj, string>();
  private readonly shown = new Map<Obj, string>();
  private readonly noValue = new Map<Obj, Obj[]>();
  private readonly mapped = new Map<Obj, Obj[]>();
  private readonly order = new Map<Obj, number>();
  /** Columns touched by overrides, in the order of the overrides (they come first, as Perses orders them). */
  private readonly overridden: Obj[] = [];

  /** `refIds` of the panel's targets, in order ("Value #B" is the value of the second query). */
  constructor(private readonly refIds: string[]) {}

  /** Perses column name of a Grafana field name. */
  name(field: string): string {
    if (field === 'Time') return 'timestamp';
    if (field === 'Value') return 'value';
    const ref = /^Value #(.+)$/.exec(field)?.[1];
    if (ref === undefined) return field;
    const i = this.refIds.indexOf(ref);
    return `value #${i >= 0 ? i + 1 : ref}`;
  }

  /** The column shown as `display` after the organize transformations so far (field name, or its rename); created when absent. */
  column(display: string): Obj {
    const found =
      this.columns.find((c) => this.shown.get(c) === display) ??
      this.columns.find((c) => this.field.get(c) === display && !this.shown.has(c));
    if (found) return found;
    const created: Obj = { name: this.name(display) };
    this.columns.push(created);
    this.field.set(created, display);
    return created;
  }

  /** One `organize` transformation: keys refer to the names shown before it (renames chain, as in Grafana). */
  organize(options: Obj): void {
    const rename = Object.entries(obj(options.renameByName));
    const exclude = Object.entries(obj(options.excludeByName));
    const index = Object.entries(obj(options.indexByName));
    const resolved = new Map<string, Obj>();
    for (const [key] of [...rename, ...exclude, ...index]) if (!resolved.has(key)) resolved.set(key, this.column(key));
    for (const [key, header] of rename) {
      if (typeof header !== 'string') continue;
      resolved.get(key)!.header = header;
      this.shown.set(resolved.get(key)!, header);
    }
    for (const [key, hide] of exclude) if (typeof hide === 'boolean') resolved.get(key)!.hide = hide;
    for (const [key, i] of index) if (num(i) !== undefined) this.order.set(resolved.get(key)!, num(i)!);
  }

  /** One field override (byName matcher) with its properties; unsupported property ids are collected in `unsupported`. */
  override(display: string, properties: unknown[], unsupported: Set<string>, notes: string[]): void {
    const col = this.column(display);
    if (!this.overridden.includes(col)) this.overridden.push(col);
    for (const p of properties) {
      if (!isObj(p)) continue;
      const v = p.value;
      if (p.id === 'custom.width') col.width = num(v) ?? 'auto';
      else if (p.id === 'displayName' && typeof v === 'string') col.header = v;
      else if (p.id === 'unit') col.format = { ...obj(col.format), ...obj(formatOf(v, undefined, notes)) };
      else if (p.id === 'decimals' && num(v) !== undefined) col.format = { ...obj(col.format), decimalPlaces: Math.round(num(v)!) };
      else if (p.id === 'mappings') this.mapped.set(col, [...(this.mapped.get(col) ?? []), ...cellSettingsOf(v, notes)]);
      else if (p.id === 'noValue' && v !== undefined && v !== null)
        this.noValue.set(col, [{ condition: { kind: 'Misc', spec: { value: 'null' } }, text: String(v) }]);
      else if (p.id === 'links' && linkOf(arr(v)[arr(v).length - 1])) col.dataLink = linkOf(arr(v)[arr(v).length - 1]);
      else if (p.id === 'custom.align' && ['left', 'center', 'right'].includes(v)) col.align = v;
      else if (p.id === 'custom.hidden' || (p.id === 'custom.hideFrom' && obj(v).viz === true)) col.hide = v !== false;
      else unsupported.add(String(p.id));
    }
    if (col.format && Object.keys(col.format).length === 0) delete col.format;
  }

  /** Sets `sort` on a column (sortBy transformation). */
  sort(display: string, desc: boolean): void {
    this.column(display).sort = desc ? 'desc' : 'asc';
  }

  /** The column settings: with an `indexByName`, indexed columns in index order, then the others; else overridden columns first. */
  build(): Obj[] {
    const first =
      this.order.size > 0
        ? this.columns.filter((c) => this.order.has(c)).sort((a, b) => this.order.get(a)! - this.order.get(b)!)
        : this.overridden;
    const rest = this.columns.filter((c) => !first.includes(c));
    return [...first, ...rest].map((c) => {
      const cells = [...(this.noValue.get(c) ?? []), ...(this.mapped.get(c) ?? [])];
      return cells.length > 0 ? { ...c, cellSettings: cells } : c;
    });
  }
}

/** A Grafana data link as a Perses column data link. */
function linkOf(link: unknown): Obj | undefined {
  const l = obj(link);
  if (!str(l.url)) return undefined;
  return defined({ url: l.url, title: typeof l.title === 'string' ? l.title : undefined, openNewTab: l.targetBlank === true });
}
