import type { ErrorDetail } from '../errors.js';
import { variableProblems } from './dashboard-rules.js';
import type { KindDescriptor, KindHooks } from './descriptor.js';
import { GlobalVariable, Variable } from './generated/validators.js';

/**
 * The name of a Variable resource is the name dashboards use it by (`$job`), so Perses checks it
 * as a variable name (internal/api/validate/validate.go): at least one character that is not a
 * digit (a name of digits alone would read as PromQL's `$1`), and not the built-in prefix `__`.
 * Perses' own expression, so nothing it accepts is refused: the one character outside `\w` it
 * lets through is also the one non-digit it requires.
 */
const RESOURCE_VARIABLE_NAME_RE = /^\w*?[^0-9]\w*$/;

function nameProblems(name: unknown): ErrorDetail[] {
  if (typeof name !== 'string' || name === '') return [];
  if (!RESOURCE_VARIABLE_NAME_RE.test(name)) {
    return [
      {
        path: 'metadata.name',
        message: `variable name '${name}' is not valid: dashboards use it as $${name}, so it must be letters, digits and "_" (with at most one "-" or "."), and not digits alone`,
      },
    ];
  }
  if (name.startsWith('__'))
    return [
      {
        path: 'metadata.name',
        message: `variable name '${name}' can not have builtin variable prefix: __ (reserved for built-in variables)`,
      },
    ];
  return [];
}

const hooks: KindHooks = {
  validate: (obj, ctx) => [...nameProblems(obj.metadata?.name), ...variableProblems(obj.spec, ctx.plugins, 'spec')],
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
  // its plugin may ask for a datasource of the project or a global one
  usesDatasources: { project: 'Datasource', global: 'GlobalDatasource' },
  // as in Perses: project variables need some datasource to query
  disabledBy: [['variable.project.disable'], ['datasource.global.disable', 'datasource.project.disable']],
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
  // as in Perses: global variables query global datasources
  disabledBy: [['variable.global.disable'], ['datasource.global.disable']],
};
