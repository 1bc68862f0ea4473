import { normalizeType } from './datasources.js';
import type { QueryContext } from './queries.js';
import { defined, quoted, str, type Obj } from './read.js';
import { TARGET_PLUGINS } from './target-plugins.js';

/**
 * The Perses datasource kind a Grafana datasource variable keeps listing as a DatasourceVariable
 * (a picker its queries name as `"$name"`), when its type's queries take one and the server has
 * the plugin; undefined when its queries are sent to one datasource instead (docs/migrate-grafana.md).
 */
export function pickerKind(v: Obj, ctx: QueryContext): string | undefined {
  const name = str(v.name);
  const target = TARGET_PLUGINS[normalizeType(ctx.ds.variables.get(name ?? '')) ?? ''];
  if (!name || !target?.datasourceVariable || !ctx.hasPlugin('DatasourceVariable')) return undefined;
  return ctx.ds.keepPicker(name, target.datasource) ? target.datasource : undefined;
}

/**
 * A Grafana datasource variable as Perses' DatasourceVariable: it lists the project's (and the
 * global) datasources of `kind`, and the queries that used it name it. Grafana's selection names
 * a Grafana datasource, unknown here: the default is the datasource chosen for the migration
 * (`datasource=`), else the variable's first option, the project's default datasource. What is
 * not kept goes to `notes`.
 */
export function datasourcePicker(v: Obj, kind: string, display: Obj, ctx: QueryContext, notes: string[]): Obj {
  const chosen = kind === 'PrometheusDatasource' ? ctx.ds.chosenPrometheus() : undefined;
  notes.push(
    `queries that used $${v.name} use the datasource it picks among the project's and the global ${kind}s, by default ${chosen ? `"${chosen}"` : "the project's default"}`,
  );
  if (v.multi === true || v.includeAll === true) notes.push('several datasources at once (multi-value or All) are not kept: it picks one');
  if (str(v.regex)) notes.push(`its regex ${quoted(String(v.regex))} filtering the datasources listed is not kept: it lists them all`);
  return {
    kind: 'ListVariable',
    spec: defined({
      name: v.name,
      display,
      defaultValue: chosen,
      plugin: { kind: 'DatasourceVariable', spec: { datasourcePluginKind: kind } },
    }),
  };
}
