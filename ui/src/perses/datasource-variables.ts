import {
  type DatasourceSelectValue,
  datasourceSelectValueToSelector,
  isVariableDatasource,
  parseVariables,
  type VariablePlugin,
} from '@perses-dev/plugin-system';

/**
 * A variable plugin whose `spec.datasource` may name a datasource variable (`"$ds"`, what a
 * DatasourceVariable picks), as Perses' queries allow: the Prometheus variables of the
 * prometheus-plugin 0.53 pass the string on as a selector and fail (its later versions resolve
 * it, as this does). The variable is resolved to the datasource it holds (the default of
 * `datasourceKind` when it holds none), and the plugin's variable depends on it, so its values
 * are listed again when another datasource is picked.
 */
export function withDatasourceVariable<S extends { datasource?: DatasourceSelectValue }>(
  plugin: VariablePlugin<S>,
  datasourceKind: string,
): VariablePlugin<S> {
  return {
    ...plugin,
    getVariableOptions: async (spec, ctx) => {
      if (!isVariableDatasource(spec.datasource)) return plugin.getVariableOptions(spec, ctx);
      const items = await ctx.datasourceStore.listDatasourceSelectItems(datasourceKind);
      const selector = datasourceSelectValueToSelector(spec.datasource, ctx.variables, items) ?? { kind: datasourceKind };
      return plugin.getVariableOptions({ ...spec, datasource: selector }, ctx);
    },
    dependsOn: (spec, ctx) => {
      const own = plugin.dependsOn?.(spec, ctx) ?? {};
      const picked = isVariableDatasource(spec.datasource) ? parseVariables(spec.datasource) : [];
      return { ...own, variables: [...(own.variables ?? []), ...picked] };
    },
  };
}
