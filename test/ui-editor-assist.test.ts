/**
 * The editor's understanding of YAML and JSON (ui/src/editor/context.ts) and its use of the
 * server's JSON Schemas (ui/src/editor/schema-assist.ts), against the schemas a real server serves.
 */
import { expect } from 'chai';
import { jsonContext, yamlContext } from '../ui/src/editor/context.js';
import { describe as describeField, keySuggestions, valueSuggestions, type Schema } from '../ui/src/editor/schema-assist.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** Splits text at the `|` marking the cursor. */
const at = (marked: string) => ({ text: marked.replace('|', ''), pos: marked.indexOf('|') });

describe('editor: cursor context and JSON Schema assistance', () => {
  let s: TestServer;
  let dashboard: Schema;
  const plugins = async (kind: string) => {
    const r = await s.api('GET', `/api/v1/schemas/plugins/${kind}`);
    return r.status === 200 ? (r.body as Schema) : undefined;
  };
  before(async () => {
    s = await startTestServer();
    dashboard = (await s.api('GET', '/api/v1/schemas/dashboards')).body;
  });
  after(async () => s?.stop());

  it('finds the path in block YAML: keys, values, sequence items', () => {
    const doc =
      'spec:\n  panels:\n    a:\n      spec:\n        queries:\n          - kind: TimeSeriesQuery\n            spec:\n              plugin:\n                kind: X\n                sp|';
    const c = yamlContext(at(doc).text, at(doc).pos);
    expect(c).to.include({ atKey: true, prefix: 'sp' });
    expect(c.parent).to.deep.equal(['spec', 'panels', 'a', 'spec', 'queries', 0, 'spec', 'plugin']);
    const v = at('spec:\n  layouts:\n    - kind: Grid\n    - kind: Gr|');
    expect(yamlContext(v.text, v.pos)).to.deep.include({ parent: ['spec', 'layouts', 1], atKey: false, key: 'kind', prefix: 'Gr' });
    const top = at('kind: Dashboard\nme|');
    expect(yamlContext(top.text, top.pos)).to.deep.include({ parent: [], atKey: true, prefix: 'me' });
  });

  it('finds the path in JSON, also unfinished', () => {
    const k = at('{"spec": {"display": {"na|');
    expect(jsonContext(k.text, k.pos)).to.deep.include({ parent: ['spec', 'display'], atKey: true, prefix: 'na', quoted: true });
    const v = at('{"spec": {"layouts": [{"kind": "Grid"}, {"kind": "G|');
    expect(jsonContext(v.text, v.pos)).to.deep.include({ parent: ['spec', 'layouts', 1], atKey: false, key: 'kind', prefix: 'G' });
    const i = at('{"metadata": {\n    "ta|"\n    "name": "d"}}');
    expect(jsonContext(i.text, i.pos)).to.deep.include({ parent: ['metadata'], atKey: true, prefix: 'ta', from: i.pos - 2 });
  });

  it('suggests the keys a dashboard spec may have, without those it has', async () => {
    const keys = (await keySuggestions(dashboard, ['spec'], { spec: { duration: '1h' } }, plugins)).map((k) => k.key);
    expect(keys).to.include.members(['refreshInterval', 'panels', 'layouts', 'variables', 'display']);
    expect(keys).to.not.include('duration');
    const meta = (await keySuggestions(dashboard, ['metadata'], undefined, plugins)).map((k) => k.key);
    expect(meta).to.include('tags');
  });

  it("follows a plugin object into its plugin's schema, and lists enumerated values", async () => {
    const data = {
      spec: { panels: { a: { kind: 'Panel', spec: { plugin: { kind: 'TimeSeriesChart', spec: { legend: { position: 'bottom' } } } } } } },
    };
    const keys = (await keySuggestions(dashboard, ['spec', 'panels', 'a', 'spec', 'plugin', 'spec', 'legend'], data, plugins)).map(
      (k) => k.key,
    );
    expect(keys).to.include.members(['mode', 'size']).and.not.include('position');
    const values = await valueSuggestions(dashboard, ['spec', 'panels', 'a', 'spec', 'plugin', 'spec', 'legend', 'mode'], data, plugins);
    expect(values.map((v) => v.value)).to.deep.equal(['list', 'table']);
  });

  it('picks the branch of a conditional schema that fits the data (a text or a list variable)', async () => {
    const text = { spec: { variables: [{ kind: 'TextVariable', spec: { name: 'x' } }] } };
    const keys = (await keySuggestions(dashboard, ['spec', 'variables', 0, 'spec'], text, plugins)).map((k) => k.key);
    expect(keys).to.include.members(['value', 'constant']).and.not.include('allowMultiple');
  });

  it('explains a field with its description, type and default', async () => {
    const d = await describeField(dashboard, ['spec', 'duration'], {}, plugins);
    expect(d).to.match(/^duration: string\nA duration such as/);
  });
});
