import { httpProxyProblems, secretNames } from '../proxy/http-proxy.js';
import type { Envelope } from '../storage/store.js';
import type { KindDescriptor, KindHooks, ListFilter, SingleFlagRule } from './descriptor.js';
import { Datasource, GlobalDatasource } from './generated/validators.js';

const pluginSpec = (obj: Envelope) => (obj.spec as { plugin?: { spec?: unknown } }).plugin?.spec;

const hooks: KindHooks = {
  validate: (obj, ctx) => [...ctx.plugins.check((obj.spec as { plugin?: unknown }).plugin, ['Datasource'], 'spec.plugin'), ...httpProxyProblems(pluginSpec(obj))],
};
/** A datasource object is itself the datasource spec the proxy uses. */
const proxyParts = {
  secretRefs: (obj: Envelope) => secretNames(pluginSpec(obj)),
  datasourceSpec: (obj: Envelope) => obj.spec,
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
  searchable: true,
  hooks,
  secretKind: 'Secret',
  ...proxyParts,
  listFilters,
  singleFlag,
};

export const globalDatasource: KindDescriptor = {
  kind: 'GlobalDatasource',
  plural: 'globaldatasources',
  scope: 'global',
  validate: GlobalDatasource,
  history: true,
  searchable: true,
  hooks,
  secretKind: 'GlobalSecret',
  ...proxyParts,
  listFilters,
  singleFlag,
};
