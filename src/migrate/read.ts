/**
 * Tolerant readers for Grafana JSON: exported dashboards come from ten years of Grafana versions
 * and hand-written generators, so numbers arrive as strings, lists as null and objects as "".
 */

import { isObj as isJsonObject } from '../lib/is-obj.js';

/** A JSON object as read from a Grafana dashboard (read loosely: its fields are `any`). */
// biome-ignore lint/suspicious/noExplicitAny: Grafana JSON is read loosely on purpose (ten years of versions); every read goes through these helpers
export type Obj = Record<string, any>;

/** Whether `v` is a plain object (not an array, not null): lib's test, typed for the loose reads here. */
export const isObj: (v: unknown) => v is Obj = isJsonObject;

/** `v` when it is a plain object, else an empty one. */
export function obj(v: unknown): Obj {
  return isObj(v) ? v : {};
}

/** `v` when it is an array, else an empty one. */
// biome-ignore lint/suspicious/noExplicitAny: see Obj
export function arr(v: unknown): any[] {
  return Array.isArray(v) ? v : [];
}

/** A non-empty string, or undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A finite number, also from a numeric string ("10", "0.5"); undefined otherwise. */
export function num(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** Copies the entries of `from` whose value is not undefined (keeps specs free of empty keys). */
export function defined<T extends Obj>(from: T): T {
  const out: Obj = {};
  for (const [k, v] of Object.entries(from)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** True when the object has at least one key. */
export function nonEmpty(v: Obj | undefined): v is Obj {
  return v !== undefined && Object.keys(v).length > 0;
}

/** A Grafana regular expression written as "/pattern/flags" or as a bare pattern, as a RegExp (undefined when invalid). */
export function grafanaRegex(text: string): RegExp | undefined {
  const m = /^\/(.*)\/([gimsuy]*)$/s.exec(text);
  try {
    return m ? new RegExp(m[1], m[2].replace('g', '')) : new RegExp(text);
  } catch {
    return undefined;
  }
}

/** The pattern of a Grafana "/pattern/flags" regular expression without its slashes. */
export function regexSource(text: string): string {
  const m = /^\/(.*)\/[gimsuy]*$/s.exec(text);
  return m ? m[1] : text;
}

/** A text (a query, most often) quoted on one line for a report note: whitespace runs as one space, cut at `max` characters. */
export function quoted(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(line.length > max ? `${line.slice(0, max - 1)}…` : line);
}
