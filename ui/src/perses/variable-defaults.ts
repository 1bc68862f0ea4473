import { DEFAULT_ALL_VALUE, type VariableDefinition, type VariableValue } from '@perses-dev/core';

/** What the variables' state holds of one variable (@perses-dev/plugin-system's VariableState). */
export interface VariableNow {
  value: VariableValue;
  options?: { value: string; label: string }[];
}

type ListSpec = Extract<VariableDefinition, { kind: 'ListVariable' }>['spec'];

/** The options in the order the variable's selector shows them (its `sort`, as Perses' ListVariable sorts). */
function sorted(options: { value: string; label: string }[], sort: string | undefined): string[] {
  const o = [...options];
  const num = (x: { label: string }) => Number.parseInt(x.label, 10);
  const ci = (x: { label: string }) => x.label.toLowerCase();
  if (sort === 'alphabetical-asc') o.sort((a, b) => (a.label > b.label ? 1 : -1));
  else if (sort === 'alphabetical-desc') o.sort((a, b) => (a.label > b.label ? -1 : 1));
  else if (sort === 'numerical-asc') o.sort((a, b) => (num(a) > num(b) ? 1 : -1));
  else if (sort === 'numerical-desc') o.sort((a, b) => (num(a) < num(b) ? 1 : -1));
  else if (sort === 'alphabetical-ci-asc') o.sort((a, b) => (ci(a) > ci(b) ? 1 : -1));
  else if (sort === 'alphabetical-ci-desc') o.sort((a, b) => (ci(a) > ci(b) ? -1 : 1));
  return o.map((x) => x.value);
}

/**
 * The value a list variable shows when the dashboard opens without one in the URL: its saved
 * default when the options hold it, else the first option (All aside), as Perses' ListVariable
 * resolves it. Undefined while its options are not known.
 */
function openingValue(spec: ListSpec, options: VariableNow['options']): VariableValue | undefined {
  if (!options) return undefined;
  const shown = [...(spec.allowAllValue ? [DEFAULT_ALL_VALUE] : []), ...sorted(options, spec.sort)];
  const first = shown[spec.allowAllValue ? 1 : 0];
  const saved = spec.defaultValue ?? null;
  const value = spec.allowMultiple ? (Array.isArray(saved) ? saved : typeof saved === 'string' ? [saved] : []) : saved;
  const present = Array.isArray(value) ? shown.some((v) => value.includes(v)) : shown.includes(value as string);
  if (first !== undefined && (!present || !value || value.length === 0)) return spec.allowMultiple ? [first] : first;
  return value;
}

/** Two values alike: lists as sets (the order of a multiple selection is no change), a one-item list as its item. */
function same(a: VariableValue | undefined, b: VariableValue | undefined): boolean {
  const set = (v: VariableValue | undefined) => new Set((Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]).map(String));
  const x = set(a);
  const y = set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/**
 * The dashboard's variables whose current value differs from the one it opens with: a text
 * variable's saved value, a list variable's saved default as Perses resolves it (the first
 * option when there is none, or when the options no longer hold it). Perses' own check compared
 * lists by identity and a missing default with the value shown, so every dashboard with a
 * multi-value or default-less variable counted as changed.
 */
export function changedVariables(definitions: VariableDefinition[], state: (name: string) => VariableNow | undefined): string[] {
  return definitions
    .filter((d) => {
      const now = state(d.spec.name);
      if (!now) return false;
      if (d.kind === 'TextVariable') return (typeof now.value === 'string' ? now.value : '') !== d.spec.value;
      if (now.value === null || now.value === undefined) return false;
      const opening = openingValue(d.spec, now.options);
      return opening === undefined ? !same(now.value, d.spec.defaultValue ?? null) : !same(now.value, opening);
    })
    .map((d) => d.spec.name);
}
