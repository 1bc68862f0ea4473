import { toHexColor } from './colors.js';
import { formatOf } from './field-config.js';
import type { QueryRef } from './queries.js';
import { arr, grafanaRegex, isObj, num, obj, type Obj } from './read.js';

/**
 * Per-series overrides of a time series panel as Perses `querySettings`: Perses styles whole
 * queries, so an override applies to the queries whose legend (byName, byRegexp) or refId
 * (byFrameRefID) it matches. Covers fieldConfig.overrides and the legacy graph's
 * `seriesOverrides` and `aliasColors`.
 */

const LINE_STYLES: Record<string, string> = { dash: 'dashed', dot: 'dotted', solid: 'solid' };

type Settings = Map<number, Obj>;

function merge(settings: Settings, refs: QueryRef[], partial: Obj): void {
  if (Object.keys(partial).length === 0) return;
  for (const r of refs) settings.set(r.index, { ...(settings.get(r.index) ?? { queryIndex: r.index }), ...partial });
}

function colorSetting(color: unknown, notes: string[]): Obj {
  const hex = toHexColor(color);
  if (hex) return { colorMode: 'fixed', colorValue: hex };
  if (color !== undefined) notes.push(`series colour "${String(color)}" is not a colour Perses accepts`);
  return {};
}

/** Grafana's stacking group of a stacking setting (`{mode, group}`): "A" unless named, compared as text (dashboards write `false` too). */
const stackGroup = (stacking: unknown): string => String(obj(stacking).group ?? 'A');
const stacks = (stacking: unknown): boolean => obj(stacking).mode === 'normal' || obj(stacking).mode === 'percent';

/**
 * One fieldConfig override property -> the querySettings fields it sets (unsupported ones noted
 * once). `panelStacking`: the panel's own stacking; a stacking override puts its series in the
 * panel's stack only when it names the panel's group (Grafana stacks each group apart).
 */
function property(p: Obj, notes: Set<string>, formatNotes: string[], panelStacking: unknown): Obj {
  const v = p.value;
  switch (p.id) {
    case 'color':
      return obj(v).mode === 'fixed' || obj(v).fixedColor ? colorSetting(obj(v).fixedColor, formatNotes) : {};
    case 'custom.fillOpacity':
      return num(v) === undefined ? {} : { areaOpacity: Math.min(1, Math.max(0, num(v)! / 100)) };
    case 'custom.lineStyle':
      return LINE_STYLES[obj(v).fill] ? { lineStyle: LINE_STYLES[obj(v).fill] } : {};
    case 'unit': {
      const format = formatOf(v, undefined, formatNotes);
      return format ? { format } : {};
    }
    case 'custom.transform':
      return v === 'negative-Y' ? { negativeY: true } : {};
    case 'custom.stacking':
      return { stack: stacks(v) && stackGroup(v) === stackGroup(panelStacking) };
    default:
      if (typeof p.id === 'string') notes.add(p.id);
      return {};
  }
}

function matching(matcher: Obj, refs: QueryRef[]): QueryRef[] | undefined {
  const options = matcher.options;
  if (typeof options !== 'string') return undefined;
  if (matcher.id === 'byName') return refs.filter((r) => r.legend === options);
  if (matcher.id === 'byFrameRefID') return refs.filter((r) => r.refId === options);
  if (matcher.id === 'byRegexp') {
    const re = grafanaRegex(options);
    return re ? refs.filter((r) => r.legend !== undefined && re.test(r.legend)) : [];
  }
  return undefined;
}

/** Legacy graph `seriesOverrides` entry -> querySettings fields. */
function legacyOverride(o: Obj, notes: Set<string>, colorNotes: string[]): Obj {
  const out: Obj = {};
  if (o.color !== undefined) Object.assign(out, colorSetting(o.color, colorNotes));
  if (num(o.fill) !== undefined) out.areaOpacity = Math.min(1, Math.max(0, num(o.fill)! / 10));
  if (o.dashes === true) out.lineStyle = 'dashed';
  if (o.transform === 'negative-Y') out.negativeY = true;
  if (typeof o.stack === 'boolean') out.stack = o.stack;
  for (const key of Object.keys(o))
    if (!['alias', 'color', 'fill', 'dashes', 'transform', 'stack', '$$hashKey'].includes(key)) notes.add(`series override "${key}"`);
  return out;
}

function legacyMatch(alias: unknown, refs: QueryRef[]): QueryRef[] {
  if (typeof alias !== 'string') return [];
  if (/^\/.*\/[a-z]*$/.test(alias)) {
    const re = grafanaRegex(alias);
    return re ? refs.filter((r) => r.legend !== undefined && re.test(r.legend)) : [];
  }
  return refs.filter((r) => r.legend === alias);
}

/** The querySettings of a time series (or legacy graph) panel, sorted by query index. */
export function querySettingsOf(panel: Obj, refs: QueryRef[], notes: string[]): Obj[] {
  const settings: Settings = new Map();
  const unsupported = new Set<string>();
  let unmatched = 0;
  const fieldConfig = obj(panel.fieldConfig);
  const custom = obj(obj(fieldConfig.defaults).custom);
  if (custom.transform === 'negative-Y') merge(settings, refs, { negativeY: true });
  for (const o of arr(fieldConfig.overrides)) {
    if (!isObj(o)) continue;
    const targets = matching(obj(o.matcher), refs);
    if (targets === undefined) {
      unsupported.add(`override matcher "${String(obj(o.matcher).id)}"`);
      continue;
    }
    if (targets.length === 0) unmatched++;
    for (const p of arr(o.properties)) {
      if (!isObj(p)) continue;
      merge(settings, targets, property(p, unsupported, notes, custom.stacking));
      if (p.id === 'custom.stacking' && stacks(p.value) && stackGroup(p.value) !== stackGroup(custom.stacking) && targets.length > 1)
        notes.push(
          `${targets.length} queries stacked in a group of their own (${JSON.stringify(obj(p.value).group)}): Perses stacks one group, so they are drawn unstacked`,
        );
    }
  }
  for (const [alias, color] of Object.entries(obj(panel.aliasColors))) {
    const targets = legacyMatch(alias, refs);
    if (targets.length === 0) unmatched++;
    merge(settings, targets, colorSetting(color, notes));
  }
  for (const o of arr(panel.seriesOverrides)) {
    if (!isObj(o)) continue;
    const targets = legacyMatch(o.alias, refs);
    if (targets.length === 0) unmatched++;
    merge(settings, targets, legacyOverride(o, unsupported, notes));
  }
  if (unmatched > 0)
    notes.push(`${unmatched} per-series override(s) name series that no query legend matches: not carried (Perses styles whole queries)`);
  if (unsupported.size > 0) notes.push(`per-series settings without a Perses equivalent: ${[...unsupported].join(', ')}`);
  const out = [...settings.values()].sort((a, b) => a.queryIndex - b.queryIndex);
  const unstacked = out
    .filter((q) => q.stack === false)
    .map((q) => refs.find((r) => r.index === q.queryIndex)?.refId ?? String(q.queryIndex));
  if ((stacks(custom.stacking) || panel.stack === true) && unstacked.length > 0)
    notes.push(
      `${unstacked.length > 1 ? `queries ${unstacked.join(', ')} are` : `query ${unstacked[0]} is`} kept out of the stack (querySettings stack: false), which the web UI's TimeSeriesChart does not apply yet: it stacks ${unstacked.length > 1 ? 'them' : 'it'} with the rest`,
    );
  return out;
}
