import { variableProblems } from './dashboard-rules.js';
import type { KindDescriptor, KindHooks } from './descriptor.js';
import { GlobalVariable, Variable } from './generated/validators.js';

const hooks: KindHooks = {
  validate: (obj, ctx) => variableProblems(obj.spec, ctx.plugins, 'spec'),
};

export const variable: KindDescriptor = {
  kind: 'Variable',
  plural: 'variables',
  shortNames: ['var'],
  scope: 'project',
  validate: Variable,
  history: true,
  searchable: true,
  hooks,
};

export const globalVariable: KindDescriptor = {
  kind: 'GlobalVariable',
  plural: 'globalvariables',
  shortNames: ['gvar'],
  scope: 'global',
  validate: GlobalVariable,
  history: true,
  searchable: true,
  hooks,
};
