import type { DashboardVariable, ListVariableSpec, TextVariableSpec } from './generated/types.js';
import { traced } from './origin.js';

/** What `listVariable` takes: the ListVariable spec (its `plugin` lists the values). */
export type ListVariableOptions = ListVariableSpec;

/**
 * A variable whose values a plugin lists: `listVariable({ name: 'job', plugin:
 * prometheusLabelValuesVariable({ labelName: 'job', datasource: 'prom' }), allowMultiple: true })`.
 */
export function listVariable(spec: ListVariableOptions): DashboardVariable {
  return traced({ kind: 'ListVariable', spec }, listVariable);
}

/** A variable the user types: `textVariable({ name: 'filter', value: '' })`. */
export function textVariable(spec: TextVariableSpec): DashboardVariable {
  return traced({ kind: 'TextVariable', spec }, textVariable);
}
