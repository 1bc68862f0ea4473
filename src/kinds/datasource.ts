import { proxyProblems, proxySecretNames } from '../proxy/proxy-block.js';
import type { KindDescriptor, KindHooks, ListFilter, SingleFlagRule } from './descriptor.js';
import type { Datasource as DatasourceObject, GlobalDatasource as GlobalDatasourceObject } from './generated/types.js';
import { Datasource, GlobalDatasource } from './generated/validators.js';

type AnyDatasource = DatasourceObject | GlobalDatasourceObject;
const pluginSpec = (obj: AnyDatasource) => obj.spec.plugin?.spec;

const hooks: KindHooks<AnyDatasource> = {
  validate: (obj, ctx) => [...ctx.plugins.check(obj.spec.plugin, ['Datasource'], 'spec.plugin'), ...proxyProblems(pluginSpec(obj))],
};
/** A datasource object is itself the datasource spec the proxy uses. */
const proxyParts = {
  secretRefs: (obj: AnyDatasource) => proxySecretNames(pluginSpec(obj)),
  datasourceSpec: (obj: AnyDatasource) => obj.spec,
};
const listFilters: ListFilter[] = [
  { param: 'kind', path: 'spec.plugin.kind', type: 'string' },
  { param: 'default', path: 'spec.default', type: 'boolean' },
];
const singleFlag: SingleFlagRule = { flag: 'spec.default', groupBy: 'spec.plugin.kind', label: 'default datasource' };

export const datasource: KindDescriptor<DatasourceObject> = {
  kind: 'Datasource',
  plural: 'datasources',
  shortNames: ['ds'],
  scope: 'project',
  validate: Datasource,
  history: true,
  searchable: true,
  hooks,
  secretKind: 'Secret',
  ...proxyParts,
  listFilters,
  singleFlag,
  disabledBy: [['datasource.project.disable']],
};

export const globalDatasource: KindDescriptor<GlobalDatasourceObject> = {
  kind: 'GlobalDatasource',
  plural: 'globaldatasources',
  shortNames: ['gds'],
  scope: 'global',
  validate: GlobalDatasource,
  history: true,
  searchable: true,
  hooks,
  secretKind: 'GlobalSecret',
  ...proxyParts,
  listFilters,
  singleFlag,
  disabledBy: [['datasource.global.disable']],
};
