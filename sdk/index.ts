/**
 * dashplane's TypeScript SDK (`import { dashboard } from 'dashplane/sdk'`): builders of every kind
 * the server serves and every plugin it knows, typed from the same JSON Schemas the server
 * validates with. A file exports what `dashctl build` prints and `dashctl apply -f` applies:
 * docs/dashboards-as-code.md.
 */
export { dashboard, type DashboardOptions } from './dashboard.js';
export { panelGroup, placed, type GroupOptions, type PanelGroup, type PlacedPanel } from './group.js';
export { panel, query, type PanelOptions } from './panel.js';
export { plugin, type Plugin } from './plugin.js';
export { listVariable, textVariable, type ListVariableOptions } from './variables.js';
export { resource, isResource, type Kind, type Resource } from './resource.js';
export { project, datasource, globalDatasource, variable, globalVariable, type Meta } from './resources.js';
export { keyFromTitle, flow, widthFor, GRID_COLUMNS, type Cell } from './layout.js';
export { originOf } from './origin.js';
export type { BuildContext } from './build-context.js';
export * from './generated/plugins.js';
export * from './generated/catalog.js';
export type { Resources } from './generated/kinds.js';
export type * from './generated/types.js';
