/**
 * Request bodies built to cost a server as much as their size allows (COST-01/02): hand-written
 * shapes of JSON and YAML text, and bodies made from any real object by flooding each of its
 * arrays and objects with entries or stretching each of its strings, each as large as a body limit
 * allows. `largestUnder` finds the largest instance of a shape under the limit.
 */
import { stringify } from 'yaml';

export const JSON_TYPE = 'application/json';
export const YAML_TYPE = 'application/yaml';

/** One body: what it is, its content type, its text. */
export interface Body {
  label: string;
  type: string;
  text: string;
}

/** The text of `make(n)` for the largest n (up to `max`) whose text is at most `limit` characters long. */
export function largestUnder(limit: number, make: (n: number) => string, max = Number.MAX_SAFE_INTEGER): string {
  const per = Math.max(1, (make(32).length - make(16).length) / 16);
  let n = Math.min(max, Math.floor((limit - make(0).length) / per));
  let text = make(n);
  while (text.length > limit) {
    n = Math.floor(n * Math.min(0.995, limit / text.length));
    text = make(n);
  }
  return text;
}

const keys = (n: number, value: string, sep = ': ') => Array.from({ length: n }, (_, i) => `k${i}${sep}${value}`);
const HEAD = 'kind: Dashboard\nmetadata:\n  name: hostile\n  project: p\nspec:\n';
const WIDE = keys(9000, '1').join(', ');

/** Hand-written shapes of text, each `limit` characters or just under. */
export function textShapes(limit: number): Body[] {
  const y = (label: string, make: (n: number) => string, max?: number): Body => ({
    label,
    type: YAML_TYPE,
    text: largestUnder(limit, make, max),
  });
  const j = (label: string, make: (n: number) => string, max?: number): Body => ({
    label,
    type: JSON_TYPE,
    text: largestUnder(limit, make, max),
  });
  return [
    y(
      'YAML: one block mapping of many keys',
      (n) =>
        `${HEAD}  panels:\n${keys(n, '1')
          .map((k) => `    ${k}`)
          .join('\n')}`,
    ),
    y('YAML: one flow mapping of many keys', (n) => `${HEAD}  panels: {${keys(n, '1').join(', ')}}`),
    y('YAML: many mappings of 9,000 keys', (n) => `${HEAD}${Array.from({ length: n }, (_, m) => `  m${m}: {${WIDE}}`).join('\n')}`),
    y(
      'YAML: an anchor of 9,000 keys and aliases of it',
      (n) => `${HEAD}  panels: &p {${WIDE}}\n  layouts: [${Array(n).fill('*p').join(', ')}]`,
    ),
    y(
      'YAML: many anchors, each aliased',
      (n) =>
        `${HEAD}  a: [${Array.from({ length: n }, (_, i) => `&a${i} {x: ${i}}`).join(', ')}]\n  b: [${Array.from({ length: n }, (_, i) => `*a${i}`).join(', ')}]`,
    ),
    y('YAML: nested aliases (a billion laughs as long as the limit)', (n) => {
      const levels = [`  l0: &l0 [${Array(n).fill('lol').join(', ')}]`];
      for (let i = 1; i < 12; i++)
        levels.push(
          `  l${i}: &l${i} [${Array(10)
            .fill(`*l${i - 1}`)
            .join(', ')}]`,
        );
      return `${HEAD}${levels.join('\n')}`;
    }),
    y(
      'YAML: an alias of a long string, many times',
      (n) => `${HEAD}  display: {name: &s "${'x'.repeat(500_000)}"}\n  tags: [${Array(n).fill('*s').join(', ')}]`,
    ),
    y('YAML: many small flow collections', (n) => `${HEAD}  layouts: [${Array.from({ length: n }, (_, i) => `{a: [${i}]}`).join(', ')}]`),
    y('YAML: collections as keys', (n) => `${HEAD}  panels: {${Array.from({ length: n }, (_, i) => `[${i}]: {}`).join(', ')}}`),
    y('YAML: many documents', (n) => Array.from({ length: n }, (_, i) => `a: ${i}`).join('\n---\n')),
    y('YAML: a long plain scalar over many lines', (n) => `${HEAD}  display:\n    name: ${Array(n).fill('word').join('\n      ')}`),
    y('YAML: a long quoted string of escapes', (n) => `${HEAD}  display: {name: "${'\\u00e9\\t'.repeat(n)}"}`),
    y('YAML: a long key', (n) => `${HEAD}  panels: {"${'k'.repeat(n)}": {}}`),
    y('YAML: blank lines and comments', (n) => `${HEAD}${'\n# c\n'.repeat(n)}  panels: {}`),
    y(
      'YAML: many invalid panels',
      (n) =>
        `${HEAD}  panels:\n${keys(n, '{kind: Panel, spec: {plugin: {kind: Nope, spec: {}}, queries: [1, 2]}}')
          .map((k) => `    ${k}`)
          .join('\n')}`,
      9999,
    ),
    y(
      'YAML: many invalid variables',
      (n) =>
        `${HEAD}  variables:\n${Array.from({ length: n }, (_, i) => `    - {kind: ListVariable, spec: {name: "${i}", plugin: {kind: Nope}}}`).join('\n')}`,
    ),
    j('JSON: one object of many keys', (n) =>
      JSON.stringify({ kind: 'Dashboard', metadata: { name: 'h' }, spec: Object.fromEntries(keys(n, '').map((k) => [k, 1])) }),
    ),
    j('JSON: many small values', (n) => `{"kind":"Dashboard","metadata":{"name":"h"},"spec":{"tags":[${'0,'.repeat(n)}0]}}`),
    j(
      'JSON: many invalid panels',
      (n) =>
        JSON.stringify({
          kind: 'Dashboard',
          metadata: { name: 'h' },
          spec: { panels: Object.fromEntries(keys(n, '').map((k) => [k, { kind: 'Panel', spec: { queries: [{}] } }])) },
        }),
      9999,
    ),
    j('JSON: many invalid layouts and variables', (n) =>
      JSON.stringify({
        kind: 'Dashboard',
        metadata: { name: 'h' },
        spec: {
          layouts: Array(n).fill({ kind: 'Grid', spec: { items: [{ content: { $ref: '#/spec/panels/x' } }] } }),
          variables: Array(n).fill(1),
        },
      }),
    ),
    j('JSON: a long string', (n) =>
      JSON.stringify({ kind: 'Dashboard', metadata: { name: 'h' }, spec: { display: { name: 'x'.repeat(n) } } }),
    ),
    j('JSON: a long key', (n) => JSON.stringify({ kind: 'Dashboard', metadata: { name: 'h' }, spec: { panels: { ['k'.repeat(n)]: {} } } })),
    j(
      'JSON: nested arrays at the depth limit',
      (n) =>
        `{"kind":"Dashboard","spec":{"a":[${Array(n)
          .fill(`${'['.repeat(97)}${']'.repeat(97)}`)
          .join(',')}]}}`,
    ),
  ];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every array and object of a value, with a copy of its first entry as it is now, and what one such copy adds. */
function containers(value: Json, out: { at: Json[] | { [k: string]: Json }; entry: Json; nodes: number; chars: number }[] = []) {
  if (value === null || typeof value !== 'object') return out;
  const first = (Array.isArray(value) ? value[0] : Object.values(value)[0]) ?? 1;
  const text = JSON.stringify(first);
  out.push({ at: value, entry: JSON.parse(text), nodes: text.split(/[,[{]/).length, chars: text.length + 8 });
  for (const v of Array.isArray(value) ? value : Object.values(value)) containers(v, out);
  return out;
}

/**
 * `seed` with every array and object given many more entries, copies of its first one as the seed
 * has it (`copies`; for an object that is not a map, unknown keys) or the number 1 (`scalars`): as
 * many as the limit allows, within `maxKeys` per object and `maxNodes` in all, so that validation
 * has all of it to read.
 */
export function flood(seed: unknown, mode: 'copies' | 'scalars', o: { limit: number; maxNodes: number; maxKeys: number }): string {
  const value = structuredClone(seed) as Json;
  const cs = containers(value);
  const per = (c: (typeof cs)[number]) => (mode === 'scalars' ? { nodes: 1, chars: 10 } : c);
  const room = o.limit * 0.9 - JSON.stringify(value).length;
  const n = Math.max(
    1,
    Math.min(
      o.maxKeys - 100,
      Math.floor((o.maxNodes * 0.9) / cs.reduce((s, c) => s + per(c).nodes, 0)),
      Math.floor(room / cs.reduce((s, c) => s + per(c).chars, 0)),
    ),
  );
  for (const c of cs) {
    const entry = mode === 'scalars' ? 1 : c.entry;
    for (let i = 0; i < n; i++) {
      if (Array.isArray(c.at)) c.at.push(entry);
      else c.at[`zz${i}`] = entry;
    }
  }
  return JSON.stringify(value);
}

/** Long strings of several kinds: what a pattern or a trim may read many times over. */
export const STRETCHES: [string, (n: number) => string][] = [
  ['word characters, then one other', (n) => `${'a'.repeat(n - 1)}!`],
  ['digits, then a space', (n) => `${'1'.repeat(n - 1)} `],
  ['slashes and dots, then a letter', (n) => `${'/.'.repeat(Math.floor(n / 2) - 1)}-a`],
  ['spaces around a colon', (n) => `a${' '.repeat(Math.floor(n / 2))}:${' '.repeat(Math.floor(n / 2) - 3)}b`],
];

/**
 * `seed` with every string replaced by `stretch` as long as the limit allows, except the kinds
 * (the object's and its plugins') and the object's own name and project, so that every rule and
 * plugin schema reads the long strings rather than the first check refusing the name.
 */
export function stretchStrings(seed: unknown, stretch: (n: number) => string, limit: number): string {
  const keep = (key: string, path: string, s: string) =>
    (key === 'kind' && /^[A-Z]/.test(s)) || path === 'metadata.name' || path === 'metadata.project';
  const walk = (v: Json, f: (s: string) => Json, key = '', path = ''): Json => {
    if (typeof v === 'string') return keep(key, path, v) ? v : f(v);
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, f, key, path));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, f, k, path ? `${path}.${k}` : k)]));
  };
  let strings = 0;
  walk(seed as Json, (s) => {
    strings++;
    return s;
  });
  const n = Math.max(2, Math.floor((limit * 0.9 - JSON.stringify(seed).length) / Math.max(1, strings)));
  const long = stretch(n);
  return JSON.stringify(walk(seed as Json, () => long));
}

/** A JSON text as YAML (flow style where it keeps the text short). */
export const asYaml = (json: string): string => stringify(JSON.parse(json), { aliasDuplicateObjects: false, lineWidth: 0 });
