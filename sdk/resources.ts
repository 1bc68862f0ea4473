import type { Datasource, DatasourceSpec, GlobalDatasource, GlobalVariable, Project, Variable, VariableSpec } from './generated/types.js';
import { resource } from './resource.js';

/** Metadata as a manifest gives it. */
export interface Meta {
  name: string;
  project?: string;
  tags?: string[];
}

/** A Project. */
export function project(name: string, options: { display?: { name?: string; description?: string }; tags?: string[] } = {}): Project {
  return resource('Project', {
    metadata: { name, ...(options.tags ? { tags: options.tags } : {}) },
    ...(options.display ? { spec: { display: options.display } } : {}),
  });
}

/** A Datasource of a project: `datasource({ name: 'prom' }, { default: true, plugin: prometheusDatasource({ directUrl }) })`. */
export function datasource(metadata: Meta, spec: DatasourceSpec): Datasource {
  return resource('Datasource', { metadata, spec });
}

/** A GlobalDatasource. */
export function globalDatasource(metadata: Omit<Meta, 'project'>, spec: DatasourceSpec): GlobalDatasource {
  return resource('GlobalDatasource', { metadata, spec });
}

/** A Variable shared by a project's dashboards; its spec is `listVariable(...)` or `textVariable(...)`. */
export function variable(metadata: Meta, spec: VariableSpec): Variable {
  return resource('Variable', { metadata, spec });
}

/** A GlobalVariable. */
export function globalVariable(metadata: Omit<Meta, 'project'>, spec: VariableSpec): GlobalVariable {
  return resource('GlobalVariable', { metadata, spec });
}
