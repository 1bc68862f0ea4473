import { expect } from 'chai';
import { join } from 'node:path';
import { SCHEMAS_DIR } from '../paths.js';
import { PluginRegistry } from '../plugins/registry.js';
import { dashboardProblems, normalizeDashboard, variableProblems } from './dashboard-rules.js';

const plugins = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'));
const markdown = (text: unknown = 'hi') => ({
  kind: 'Panel',
  spec: { display: { name: 'P' }, plugin: { kind: 'Markdown', spec: { text } } },
});
const grid = (...refs: string[]) => [
  { kind: 'Grid', spec: { items: refs.map((r, i) => ({ x: 0, y: i, width: 12, height: 4, content: { $ref: r } })) } },
];
const listVariable = (name: string, plugin: unknown = { kind: 'StaticListVariable', spec: { values: ['a'] } }) => ({
  kind: 'ListVariable',
  spec: { name, plugin },
});
const prometheus = (extra: Record<string, unknown> = {}) => ({
  plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://prom:9090' } },
  ...extra,
});
const paths = (spec: unknown) => dashboardProblems(spec, plugins).map((p) => p.path);

describe('dashboard rules', () => {
  describe('normalizeDashboard', () => {
    it('turns a single variable object into a one-item list and fills the default duration (1h), keeping one given', () => {
      const v = listVariable('x');
      const body = { kind: 'Dashboard', spec: { variables: v } as Record<string, unknown> };
      normalizeDashboard(body);
      expect(body.spec).to.deep.equal({ variables: [v], duration: '1h', panels: {}, layouts: [] });
      const dated = { spec: { duration: '6h', variables: [], panels: { a: markdown() }, layouts: [] } };
      normalizeDashboard(dated);
      expect(dated.spec).to.deep.equal({ duration: '6h', variables: [], panels: { a: markdown() }, layouts: [] });
    });

    it('an absent or null panels map and layouts list are empty ones (Perses accepts both and answers null)', () => {
      for (const spec of [{}, { panels: null, layouts: null }]) {
        const body = { spec: spec as Record<string, unknown> };
        normalizeDashboard(body);
        expect(body.spec).to.deep.equal({ duration: '1h', panels: {}, layouts: [] });
      }
    });

    it('leaves a body without an object spec alone (the schema reports it)', () => {
      for (const spec of [undefined, null, 'x', [1]]) {
        const body = { spec };
        normalizeDashboard(body);
        expect(body).to.deep.equal({ spec });
      }
    });
  });

  describe('dashboardProblems', () => {
    it('a valid dashboard (panels, queries, layout, variables, a local datasource) has none', () => {
      const spec = {
        panels: {
          notes: markdown(),
          cpu: {
            kind: 'Panel',
            spec: {
              plugin: { kind: 'TimeSeriesChart', spec: {} },
              queries: [{ kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: 'up' } } } }],
            },
          },
        },
        layouts: grid('#/spec/panels/notes', '#/spec/panels/cpu'),
        variables: [listVariable('env'), { kind: 'TextVariable', spec: { name: 'free', value: '' } }],
        datasources: { prom: prometheus({ default: true }), other: prometheus() },
      };
      expect(dashboardProblems(spec, plugins)).to.deep.equal([]);
      expect(dashboardProblems('not an object', plugins)).to.deep.equal([]);
    });

    it('panel, query and plugin problems, each at its path, with what is known', () => {
      const spec = {
        panels: {
          a: { kind: 'Panel', spec: { plugin: { kind: 'NoSuchChart', spec: {} } } },
          b: markdown(42),
          c: { kind: 'Panel', spec: { plugin: { kind: 'PrometheusDatasource', spec: {} } } },
          d: {
            kind: 'Panel',
            spec: {
              plugin: { kind: 'Markdown', spec: { text: '' } },
              queries: [
                { kind: 'NoQuery', spec: {} },
                { kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: {} } } },
              ],
            },
          },
        },
      };
      const problems = dashboardProblems(spec, plugins);
      const at = (path: string) => problems.find((p) => p.path === path)?.message;
      expect(at('spec.panels.a.spec.plugin.kind')).to.match(/^unknown Panel plugin kind "NoSuchChart"; known: .*Markdown/);
      expect(at('spec.panels.b.spec.plugin.spec.text')).to.equal('must be a string');
      expect(at('spec.panels.c.spec.plugin.kind')).to.equal(
        'plugin "PrometheusDatasource" is a Datasource plugin; a Panel plugin is expected here',
      );
      expect(at('spec.panels.d.spec.queries[0].kind')).to.match(/^unknown query type "NoQuery"; known: .*TimeSeriesQuery/);
      expect(at('spec.panels.d.spec.queries[1].spec.plugin.spec.query')).to.equal('is required');
    });

    it('layout references must have the panel form and name a panel of spec.panels', () => {
      const spec = { panels: { a: markdown() }, layouts: grid('#/spec/panels/a', '#/spec/panels/missing', 'panels/a') };
      expect(dashboardProblems(spec, plugins)).to.deep.equal([
        { path: 'spec.layouts[0].spec.items[1].content.$ref', message: 'refers to panel "missing", which is not in spec.panels' },
        { path: 'spec.layouts[0].spec.items[2].content.$ref', message: '"panels/a" must have the form "#/spec/panels/<panel key>"' },
      ]);
    });

    it('variable names: letters, digits and "_" with a non-digit, not "__", each once', () => {
      const spec = {
        panels: {},
        variables: [listVariable('ok_1'), listVariable('9'), listVariable('a-b'), listVariable('__x'), listVariable('ok_1')],
      };
      expect(dashboardProblems(spec, plugins).map((p) => `${p.path}: ${p.message}`)).to.deep.equal([
        'spec.variables[1].spec.name: variable name "9" must be letters, digits and "_" with at least one non-digit',
        'spec.variables[2].spec.name: variable name "a-b" must be letters, digits and "_" with at least one non-digit',
        'spec.variables[3].spec.name: variable name "__x" must not start with "__" (reserved for built-in variables)',
        'spec.variables[4].spec.name: variable name "ok_1" is already used by spec.variables[0]',
      ]);
    });

    it('local datasources: known plugins, one default per plugin kind, proxy rules', () => {
      const spec = {
        panels: {},
        datasources: {
          a: prometheus({ default: true }),
          b: prometheus({ default: true }),
          c: { plugin: { kind: 'Markdown', spec: { text: 'x' } } },
          d: { plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: {} } } } },
        },
      };
      const problems = paths(spec);
      expect(problems).to.include('spec.datasources.b.default').and.not.include('spec.datasources.a.default');
      expect(problems).to.include('spec.datasources.c.plugin.kind');
      expect(problems.some((p) => p.startsWith('spec.datasources.d.plugin.spec.proxy'))).to.equal(true);
    });

    it('reports at the base path it is given (an EphemeralDashboard spec, a nested spec)', () => {
      expect(
        dashboardProblems({ panels: { a: { kind: 'Panel', spec: { plugin: { kind: 'Nope', spec: {} } } } } }, plugins, 'x.spec').map(
          (p) => p.path,
        ),
      ).to.deep.equal(['x.spec.panels.a.spec.plugin.kind']);
    });
  });

  describe('variableProblems', () => {
    it('checks the plugin of a ListVariable only', () => {
      const unknown = variableProblems(listVariable('v', { kind: 'Nope', spec: {} }), plugins, 'spec');
      expect(unknown.map((p) => p.path)).to.deep.equal(['spec.spec.plugin.kind']);
      expect(unknown[0].message).to.match(/^unknown Variable plugin kind "Nope"; known: .*StaticListVariable/);
      expect(variableProblems({ kind: 'TextVariable', spec: { name: 'v', plugin: { kind: 'Nope' } } }, plugins, 'spec')).to.deep.equal([]);
      expect(variableProblems(listVariable('v'), plugins, 'spec')).to.deep.equal([]);
      expect(variableProblems('x', plugins, 'spec')).to.deep.equal([]);
    });
  });
});
