import type { KindDescriptor, KindHooks, ListFilter, SingleFlagRule } from './descriptor.js';
import { Datasource, GlobalDatasource } from './generated/validators.js';

const hooks: KindHooks = {
  validate: (obj, ctx) => ctx.plugins.check((obj.spec as { plugin?: unknown }).plugin, ['Datasource'], 'spec.plugin'),
};
const listFilters: ListFilter[] = [
  { param: 'kind', path: 'spec.plugin.kind', type: 'string' },
  { param: 'default', path: 'spec.default', type: 'boolean' },
];
const singleFlag: SingleFlagRule = { flag: 'spec.default', groupBy: 'spec.plugin.kind', label: 'default datasource' };

export const datasource: KindDescriptor = {
  kind: 'Datasource',
  plural: 'datasources',
  scope: 'project',
  validate: Datasource,
  history: true,
  hooks,
  listFilters,
  singleFlag,
};

export const globalDatasource: KindDescriptor = {
  kind: 'GlobalDatasource',
  plural: 'globaldatasources',
  scope: 'global',
  validate: GlobalDatasource,
  history: true,
  hooks,
  listFilters,
  singleFlag,
};
