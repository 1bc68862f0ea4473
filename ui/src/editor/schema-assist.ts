// JSON Schema answers for the editor: which keys and values fit where the cursor is, and what a
// field means. Schemas come bundled from the server (GET /api/v1/schemas/...): every $ref is
// `#` or `#/definitions/<name>`. A `{kind, spec}` plugin object's spec takes the schema of the
// plugin its `kind` names.

import type { Segment } from './context.js';

export interface Schema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  title?: string;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema | Schema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  if?: Schema;
  then?: Schema;
  else?: Schema;
  required?: string[];
  definitions?: Record<string, Schema>;
  writeOnly?: boolean;
}

/** A schema and the bundle its $refs point into. */
interface Located {
  s: Schema;
  root: Schema;
}

/** Finds a plugin's spec schema (fetched from the server), or undefined. */
export type PluginSchemas = (kind: string) => Promise<Schema | undefined>;

function deref({ s, root }: Located, depth = 0): Located {
  if (!s.$ref || depth > 20) return { s, root };
  if (s.$ref === '#') return deref({ s: root, root }, depth + 1);
  const name = s.$ref.replace(/^#\/definitions\//, '');
  const target = root.definitions?.[name];
  return target ? deref({ s: target, root }, depth + 1) : { s: {}, root };
}

/** Whether `value` fits the simple conditions schemas use in `if` (consts and enums of properties). */
function fits(cond: Schema, value: unknown): boolean {
  if (cond.const !== undefined) return value === cond.const;
  if (cond.enum) return cond.enum.includes(value);
  if (cond.properties) {
    if (value === null || typeof value !== 'object') return false;
    for (const [k, sub] of Object.entries(cond.properties)) {
      const v = (value as Record<string, unknown>)[k];
      if (v === undefined) {
        if (cond.required?.includes(k)) return false;
        continue;
      }
      if (!fits(sub, v)) return false;
    }
    return true;
  }
  if (cond.required && (value === null || typeof value !== 'object' || cond.required.some((k) => !(k in (value as object))))) return false;
  return true;
}

/** The schema and every subschema that also applies to `value` (allOf, matching if/then, any/oneOf branches that fit). */
function branches(l: Located, value: unknown, depth = 0): Located[] {
  const x = deref(l);
  if (depth > 10) return [x];
  const out: Located[] = [x];
  for (const sub of x.s.allOf ?? []) out.push(...branches({ s: sub, root: x.root }, value, depth + 1));
  for (const list of [x.s.anyOf, x.s.oneOf]) {
    if (!list) continue;
    const subs = list.map((sub) => deref({ s: sub, root: x.root }));
    // a branch whose consts fit the value; else every branch (suggest all that could fit)
    const fitting = subs.filter(
      (sub) =>
        value !== undefined &&
        sub.s.properties &&
        fits({ properties: Object.fromEntries(Object.entries(sub.s.properties).filter(([, p]) => p.const !== undefined)) }, value) &&
        Object.values(sub.s.properties).some((p) => p.const !== undefined),
    );
    for (const sub of fitting.length ? fitting : subs) out.push(...branches(sub, value, depth + 1));
  }
  if (x.s.if) {
    const then = fits(deref({ s: x.s.if, root: x.root }).s, value) ? x.s.then : x.s.else;
    if (then) out.push(...branches({ s: then, root: x.root }, value, depth + 1));
  }
  return out;
}

/** A `{kind, spec}` plugin object: its spec is open here and checked against the plugin's own schema. */
function isPluginObject(all: Located[]): boolean {
  const props = Object.assign({}, ...all.map((b) => b.s.properties ?? {})) as Record<string, Schema>;
  return !!props.kind && !!props.spec && Object.keys(props).every((k) => ['kind', 'spec', 'metadata'].includes(k));
}

/** The schemas that apply at `path` inside `data` (several when branches apply). */
export async function schemasAt(root: Schema, path: Segment[], data: unknown, plugins: PluginSchemas): Promise<Located[]> {
  let current: Located[] = [{ s: root, root }];
  let value = data;
  for (const seg of path) {
    const all = current.flatMap((l) => branches(l, value));
    let next: Located[] = [];
    if (seg === 'spec' && isPluginObject(all) && value && typeof (value as { kind?: unknown }).kind === 'string') {
      const plugin = await plugins((value as { kind: string }).kind);
      if (plugin) next = [{ s: plugin, root: plugin }];
    }
    if (next.length === 0) {
      for (const b of all) {
        const s = b.s;
        if (typeof seg === 'number') {
          const items = Array.isArray(s.items) ? s.items[seg] : s.items;
          if (items) next.push({ s: items, root: b.root });
          continue;
        }
        if (s.properties?.[seg]) next.push({ s: s.properties[seg], root: b.root });
        else {
          const pattern = Object.entries(s.patternProperties ?? {}).find(([re]) => new RegExp(re).test(seg));
          if (pattern) next.push({ s: pattern[1], root: b.root });
          else if (s.additionalProperties && typeof s.additionalProperties === 'object')
            next.push({ s: s.additionalProperties, root: b.root });
        }
      }
    }
    if (next.length === 0) return [];
    current = next;
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[String(seg)] : undefined;
  }
  return current.flatMap((l) => branches(l, value));
}

/** One key that fits an object, with what the schema says about it. */
export interface KeySuggestion {
  key: string;
  description?: string | undefined;
  type?: string | undefined;
  required: boolean;
}

/** The keys the schema allows in the object at `path` that it does not have yet. */
export async function keySuggestions(root: Schema, path: Segment[], data: unknown, plugins: PluginSchemas): Promise<KeySuggestion[]> {
  const all = await schemasAt(root, path, data, plugins);
  const obj = valueAt(data, path);
  const present = obj !== null && typeof obj === 'object' ? new Set(Object.keys(obj as object)) : new Set<string>();
  const out = new Map<string, KeySuggestion>();
  for (const b of all) {
    for (const [key, sub] of Object.entries(b.s.properties ?? {})) {
      if (present.has(key) || out.has(key)) continue;
      const d = deref({ s: sub, root: b.root }).s;
      out.set(key, { key, description: sub.description ?? d.description, type: typeName(d), required: !!b.s.required?.includes(key) });
    }
  }
  return [...out.values()].sort((a, b) => Number(b.required) - Number(a.required) || a.key.localeCompare(b.key));
}

/** The values the schema allows at `path` when it lists them (enum, const, boolean). */
export async function valueSuggestions(
  root: Schema,
  path: Segment[],
  data: unknown,
  plugins: PluginSchemas,
): Promise<{ value: unknown; description?: string }[]> {
  const all = await schemasAt(root, path, data, plugins);
  const out: { value: unknown; description?: string }[] = [];
  const seen = new Set<string>();
  const add = (value: unknown, description?: string) => {
    const k = JSON.stringify(value);
    if (!seen.has(k)) {
      seen.add(k);
      out.push({ value, ...(description ? { description } : {}) });
    }
  };
  for (const b of all) {
    for (const v of b.s.enum ?? []) add(v, b.s.description);
    if (b.s.const !== undefined) add(b.s.const, b.s.description);
    if (b.s.type === 'boolean') {
      add(true);
      add(false);
    }
  }
  return out;
}

/** What the schema says about the field at `path`: description, type, allowed values, default. */
export async function describe(root: Schema, path: Segment[], data: unknown, plugins: PluginSchemas): Promise<string | undefined> {
  if (path.length === 0) return undefined;
  const all = await schemasAt(root, path, data, plugins);
  if (all.length === 0) return undefined;
  const description = all.map((b) => b.s.description).find(Boolean);
  const type = all.map((b) => typeName(b.s)).find(Boolean);
  const values = all.flatMap((b) => b.s.enum ?? (b.s.const !== undefined ? [b.s.const] : []));
  const def = all.map((b) => b.s.default).find((d) => d !== undefined);
  const lines = [
    `${String(path[path.length - 1])}${type ? `: ${type}` : ''}${all.some((b) => b.s.writeOnly) ? ' (write-only)' : ''}`,
    description,
    values.length ? `One of: ${values.map((v) => JSON.stringify(v)).join(', ')}` : undefined,
    def !== undefined ? `Default: ${JSON.stringify(def)}` : undefined,
  ].filter(Boolean);
  return lines.join('\n');
}

function typeName(s: Schema): string | undefined {
  if (Array.isArray(s.type)) return s.type.join(' | ');
  if (s.type) return s.type;
  if (s.enum) return 'enum';
  if (s.properties) return 'object';
  return undefined;
}

export function valueAt(data: unknown, path: Segment[]): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[String(seg)];
  }
  return cur;
}
