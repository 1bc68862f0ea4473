import type { DatasourceSelector } from '@perses-dev/core';
import type { LokiClient } from '@perses-dev/loki-plugin';
import {
  datasourceSelectValueToSelector,
  type GetVariableOptionsContext,
  parseVariables,
  replaceVariables,
  type VariableOption,
  type VariablePlugin,
} from '@perses-dev/plugin-system';

/**
 * The Loki variables of the Perses catalog (LokiLabelValuesVariable, LokiLabelNamesVariable,
 * LokiLogQLVariable), which @perses-dev/loki-plugin 0.2, the published Loki package, does not
 * hold: dashplane's own, with the specs of schemas/plugins/loki-*-variable.json, calling Loki
 * through the Loki package's datasource client. Loaded, like the Loki package, only by a
 * dashboard that has one. No options editor: edit their spec as JSON in Perses' variable editor.
 */

type LokiDatasourceValue = string | DatasourceSelector | undefined;
interface LabelValuesSpec {
  datasource?: LokiDatasourceValue;
  labelName: string;
  matchers?: string[];
}
interface LabelNamesSpec {
  datasource?: LokiDatasourceValue;
  matchers?: string[];
}
interface LogQLSpec {
  datasource?: LokiDatasourceValue;
  expr: string;
  labelName?: string;
  /** the spelling of Perses' Go SDK */
  labelname?: string;
}

const LOKI: DatasourceSelector = { kind: 'LokiDatasource' };

/** The Loki client of the spec's datasource: a selector, a datasource variable (`$ds`), or the default Loki datasource. */
async function client(datasource: LokiDatasourceValue, ctx: GetVariableOptionsContext): Promise<LokiClient> {
  const items = typeof datasource === 'string' ? await ctx.datasourceStore.listDatasourceSelectItems(LOKI.kind) : undefined;
  const selector = datasourceSelectValueToSelector(datasource, ctx.variables, items) ?? LOKI;
  return ctx.datasourceStore.getDatasourceClient<LokiClient>(selector);
}

/** The time range as Loki takes it (Unix seconds). */
const range = (ctx: GetVariableOptionsContext) =>
  [String(Math.floor(ctx.timeRange.start.getTime() / 1000)), String(Math.ceil(ctx.timeRange.end.getTime() / 1000))] as const;

const options = (values: Iterable<string>): VariableOption[] => [...new Set(values)].sort().map((v) => ({ label: v, value: v }));

/** The label sets of the streams the matchers select (Loki's series API), for variables restricted by matchers. */
async function series(c: LokiClient, matchers: string[], ctx: GetVariableOptionsContext): Promise<Record<string, string>[]> {
  const [start, end] = range(ctx);
  return (
    await c.series(
      matchers.map((m) => replaceVariables(m, ctx.variables)),
      start,
      end,
    )
  ).data;
}

const matcherVariables = (matchers: string[] | undefined) => (matchers ?? []).flatMap((m) => parseVariables(m));

export const LokiLabelValuesVariable: VariablePlugin<LabelValuesSpec> = {
  getVariableOptions: async (spec, ctx) => {
    const c = await client(spec.datasource, ctx);
    const label = replaceVariables(spec.labelName, ctx.variables);
    if (spec.matchers?.length)
      return { data: options((await series(c, spec.matchers, ctx)).flatMap((s) => (s[label] === undefined ? [] : [s[label]]))) };
    const [start, end] = range(ctx);
    return { data: options((await c.labelValues(encodeURIComponent(label), start, end)).data ?? []) };
  },
  dependsOn: (spec) => ({ variables: [...matcherVariables(spec.matchers), ...parseVariables(spec.labelName ?? '')] }),
  createInitialOptions: () => ({ labelName: '' }),
};

export const LokiLabelNamesVariable: VariablePlugin<LabelNamesSpec> = {
  getVariableOptions: async (spec, ctx) => {
    const c = await client(spec.datasource, ctx);
    if (spec.matchers?.length) return { data: options((await series(c, spec.matchers, ctx)).flatMap((s) => Object.keys(s))) };
    const [start, end] = range(ctx);
    return { data: options((await c.labels(start, end)).data ?? []) };
  },
  dependsOn: (spec) => ({ variables: matcherVariables(spec.matchers) }),
  createInitialOptions: () => ({}),
};

export const LokiLogQLVariable: VariablePlugin<LogQLSpec> = {
  getVariableOptions: async (spec, ctx) => {
    const c = await client(spec.datasource, ctx);
    const label = spec.labelName ?? spec.labelname ?? '';
    const answer = await c.query({ query: replaceVariables(spec.expr, ctx.variables), time: range(ctx)[1] });
    // a metric query answers a vector of label sets, a log query streams
    const sets = (answer.data?.result ?? []).map((r) => ('metric' in r ? r.metric : r.stream));
    return { data: options(sets.flatMap((s) => (s[label] === undefined ? [] : [s[label]]))) };
  },
  dependsOn: (spec) => ({ variables: parseVariables(spec.expr ?? '') }),
  createInitialOptions: () => ({ expr: '', labelName: '' }),
};
