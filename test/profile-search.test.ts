/**
 * The web UI's per-user profile (recently viewed, starred, preferences) and search across
 * projects: GET/POST/DELETE/PUT /api/v1/user/profile..., GET /api/v1/search.
 */
import { expect } from 'chai';
import { bearer, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';

const dash = (name: string, title: string, opts: { tags?: string[]; panelTitle?: string; query?: string } = {}) => ({
  kind: 'Dashboard',
  metadata: { name, ...(opts.tags ? { tags: opts.tags } : {}) },
  spec: {
    display: { name: title },
    duration: '1h',
    panels: {
      a: {
        kind: 'Panel',
        spec: {
          display: { name: opts.panelTitle ?? 'A panel' },
          plugin: { kind: 'TimeSeriesChart', spec: {} },
          queries: [
            { kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: opts.query ?? 'up' } } } },
          ],
        },
      },
    },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }],
  },
});

async function ok(r: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const res = await r;
  expect(res.status, res.text).to.equal(status);
  return res;
}

describe('user profile and search (web UI API)', function () {
  this.timeout(30_000);

  describe('auth on', () => {
    let s: TestServer;
    let alice: Tokens;
    let bob: Tokens;
    let admin: Tokens;
    const as = (t: Tokens) => (method: string, path: string, body?: unknown) => s.api(method, path, body, bearer(t));

    before(async () => {
      s = await startAuthServer();
      admin = await loginAdmin(s);
      await signUp(s, 'alice');
      await signUp(s, 'bob');
      alice = await login(s, 'alice');
      bob = await login(s, 'bob');
      const a = as(alice);
      await ok(a('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'team-a' }, spec: { display: { name: 'Team A' } } }));
      await ok(
        a(
          'POST',
          '/api/v1/projects/team-a/dashboards',
          dash('cpu', 'CPU usage', { tags: ['infra'], panelTitle: 'Load average', query: 'node_load1{job="node"}' }),
        ),
      );
      await ok(a('POST', '/api/v1/projects/team-a/dashboards', dash('mem', 'Memory', { query: 'node_memory_MemAvailable_bytes' })));
      await ok(as(bob)('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'team-b' }, spec: {} }));
      await ok(
        as(bob)(
          'POST',
          '/api/v1/projects/team-b/dashboards',
          dash('latency', 'Latency', { panelTitle: 'p99 latency', query: 'histogram_quantile(0.99, rate(http_bucket[5m]))' }),
        ),
      );
    });
    after(async () => s?.stop());

    it('starts empty, records views newest first without duplicates, and shows titles', async () => {
      const a = as(alice);
      expect((await ok(a('GET', '/api/v1/user/profile'))).body).to.deep.equal({ recent: [], starred: [], preferences: {} });
      await ok(a('POST', '/api/v1/user/profile/recent', { kind: 'Dashboard', project: 'team-a', name: 'cpu' }), 204);
      await ok(a('POST', '/api/v1/user/profile/recent', { kind: 'dashboard', project: 'team-a', name: 'mem' }), 204);
      await ok(a('POST', '/api/v1/user/profile/recent', { kind: 'Dashboard', project: 'team-a', name: 'cpu' }), 204);
      const recent = (await ok(a('GET', '/api/v1/user/profile'))).body.recent;
      expect(recent.map((r: any) => [r.kind, r.plural, r.project, r.name, r.title])).to.deep.equal([
        ['Dashboard', 'dashboards', 'team-a', 'cpu', 'CPU usage'],
        ['Dashboard', 'dashboards', 'team-a', 'mem', 'Memory'],
      ]);
      expect(Date.parse(recent[0].at)).to.be.greaterThan(0);
    });

    it("keeps one profile per user: bob sees his own, not alice's", async () => {
      expect((await ok(as(bob)('GET', '/api/v1/user/profile'))).body.recent).to.deep.equal([]);
    });

    it('refuses to record or star what the caller may not read (403), and bad references (400)', async () => {
      const b = as(bob);
      expect((await b('POST', '/api/v1/user/profile/recent', { kind: 'Dashboard', project: 'team-a', name: 'cpu' })).status).to.equal(403);
      expect((await b('POST', '/api/v1/user/profile/stars', { kind: 'Dashboard', project: 'team-a', name: 'cpu' })).status).to.equal(403);
      for (const body of [
        {},
        { kind: 'Nope', name: 'x' },
        { kind: 'Dashboard', name: 'x' },
        { kind: 'Dashboard', project: '../x', name: 'x' },
        { kind: 'GlobalDatasource', project: 'p', name: 'x' },
        null,
        'text',
      ]) {
        const r = await b('POST', '/api/v1/user/profile/stars', body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.message, JSON.stringify(body)).to.be.a('string');
      }
    });

    it('stars and unstars, once each', async () => {
      const a = as(alice);
      await ok(a('POST', '/api/v1/user/profile/stars', { kind: 'Dashboard', project: 'team-a', name: 'mem' }));
      const starred = (await ok(a('POST', '/api/v1/user/profile/stars', { kind: 'Dashboard', project: 'team-a', name: 'mem' }))).body
        .starred;
      expect(starred.map((r: any) => r.name)).to.deep.equal(['mem']);
      await ok(a('POST', '/api/v1/user/profile/stars', { kind: 'Project', name: 'team-a' }));
      const after = (await ok(a('DELETE', '/api/v1/user/profile/stars?kind=Dashboard&project=team-a&name=mem'))).body.starred;
      expect(after.map((r: any) => [r.kind, r.name, r.title])).to.deep.equal([['Project', 'team-a', 'Team A']]);
    });

    it('hides refs to objects that were deleted or are no longer readable', async () => {
      const a = as(alice);
      await ok(a('POST', '/api/v1/projects/team-a/dashboards', dash('gone', 'Gone soon')));
      await ok(a('POST', '/api/v1/user/profile/stars', { kind: 'Dashboard', project: 'team-a', name: 'gone' }));
      await ok(a('DELETE', '/api/v1/projects/team-a/dashboards/gone'), 204);
      expect((await ok(a('GET', '/api/v1/user/profile'))).body.starred.map((r: any) => r.name)).to.not.include('gone');
      // bob is granted viewer, stars cpu, then loses the role: the star is no longer shown
      await ok(
        a('POST', '/api/v1/projects/team-a/rolebindings', {
          kind: 'RoleBinding',
          metadata: { name: 'bob-viewer' },
          spec: { role: 'viewer', subjects: [{ kind: 'User', name: 'bob' }] },
        }),
      );
      await ok(as(bob)('POST', '/api/v1/user/profile/stars', { kind: 'Dashboard', project: 'team-a', name: 'cpu' }));
      expect((await ok(as(bob)('GET', '/api/v1/user/profile'))).body.starred.map((r: any) => r.name)).to.deep.equal(['cpu']);
      await ok(a('DELETE', '/api/v1/projects/team-a/rolebindings/bob-viewer'), 204);
      expect((await ok(as(bob)('GET', '/api/v1/user/profile'))).body.starred).to.deep.equal([]);
    });

    it('merges preferences and removes one with null; refuses bad names and values', async () => {
      const a = as(alice);
      await ok(a('PUT', '/api/v1/user/profile/preferences', { theme: 'dark', density: 'compact' }));
      const prefs = (await ok(a('PUT', '/api/v1/user/profile/preferences', { density: null }))).body.preferences;
      expect(prefs).to.deep.equal({ theme: 'dark' });
      for (const body of [{ 'bad name': 'x' }, { theme: 3 }, { theme: 'x'.repeat(201) }, ['theme'], 'dark']) {
        expect((await a('PUT', '/api/v1/user/profile/preferences', body)).status, JSON.stringify(body)).to.equal(400);
      }
    });

    it('a user deleted and created again under the same name starts with an empty profile', async () => {
      await signUp(s, 'carol');
      const carol = await login(s, 'carol');
      await ok(as(carol)('PUT', '/api/v1/user/profile/preferences', { theme: 'dark' }));
      await ok(s.api('DELETE', '/api/v1/users/carol', undefined, bearer(admin)), 204);
      await signUp(s, 'carol');
      const again = await login(s, 'carol');
      expect((await ok(as(again)('GET', '/api/v1/user/profile'))).body.preferences).to.deep.equal({});
    });

    it('asks for credentials', async () => {
      expect((await s.api('GET', '/api/v1/user/profile')).status).to.equal(401);
      expect((await s.api('GET', '/api/v1/search?query=cpu')).status).to.equal(401);
    });

    it('searches by name, display name, tag, panel title and query text, only where the caller may read', async () => {
      const a = as(alice);
      const names = async (query: string, t = alice) =>
        (await ok(as(t)('GET', `/api/v1/search?query=${encodeURIComponent(query)}`))).body.map(
          (h: any) => `${h.kind}:${h.project ?? ''}/${h.name}`,
        );
      expect(await names('cpu')).to.deep.equal(['Dashboard:team-a/cpu']);
      expect(await names('memory')).to.deep.equal(['Dashboard:team-a/mem']);
      expect(await names('infra')).to.deep.equal(['Dashboard:team-a/cpu']);
      expect(await names('team a')).to.include('Project:/team-a');
      const byPanel = (await ok(a('GET', '/api/v1/search?query=load%20average'))).body;
      expect(byPanel.map((h: any) => h.name)).to.deep.equal(['cpu']);
      expect(byPanel[0].match).to.deep.equal({ path: 'spec.panels.a.spec.display.name', text: 'Load average' });
      const byQuery = (await ok(a('GET', '/api/v1/search?query=MemAvailable'))).body;
      expect(byQuery.map((h: any) => h.name)).to.deep.equal(['mem']);
      expect(byQuery[0].match.path).to.equal('spec.panels.a.spec.queries[0].spec.plugin.spec.query');
      expect(byQuery[0].match.text).to.equal('node_memory_MemAvailable_bytes');
      expect(await names('job="node"')).to.deep.equal(['Dashboard:team-a/cpu']); // words JSON escapes still match
      // every word must match somewhere
      expect(await names('cpu latency')).to.deep.equal([]);
      // bob cannot read team-a: none of it, however it is searched
      expect(await names('cpu', bob)).to.deep.equal([]);
      expect(await names('latency', bob)).to.deep.equal(['Dashboard:team-b/latency']);
      expect(await names('team-b', bob)).to.deep.equal(['Project:/team-b', 'Dashboard:team-b/latency']); // by project: the project first
      expect(await names('latency')).to.deep.equal([]);
      expect(await names('')).to.deep.equal([]);
      expect((await a('GET', `/api/v1/search?query=${'x'.repeat(201)}`)).status).to.equal(400);
      expect((await a('GET', '/api/v1/search?query=a&limit=0')).status).to.equal(400);
      expect(await names('ZZZnothing')).to.deep.equal([]);
    });
    it('shows as the reason a field holding every word of a multi-word query, not the first holding one', async () => {
      const a = as(alice);
      const d = dash('mixed', 'Mixed bag', { panelTitle: 'RAM Used' });
      const spec = d.spec as Record<string, unknown>;
      const panels = spec.panels as Record<string, unknown>;
      // a variable before the panels: "stat" is in its plugin kind, first in the stored text
      const mixed = {
        ...d,
        spec: {
          display: spec.display,
          duration: spec.duration,
          variables: [{ kind: 'ListVariable', spec: { name: 'size', plugin: { kind: 'StaticListVariable', spec: { values: ['lg'] } } } }],
          panels: {
            ...panels,
            b: { kind: 'Panel', spec: { display: { name: 'Stat Lg tiles' }, plugin: { kind: 'TimeSeriesChart', spec: {} } } },
            c: { kind: 'Panel', spec: { display: { name: 'RAM Total' }, plugin: { kind: 'TimeSeriesChart', spec: {} } } },
          },
          layouts: spec.layouts,
        },
      };
      await ok(a('POST', '/api/v1/projects/team-a/dashboards', mixed), 200);
      const why = async (query: string) => {
        const hits = (await ok(a('GET', `/api/v1/search?query=${encodeURIComponent(query)}`))).body;
        expect(hits.map((h: any) => h.name)).to.deep.equal(['mixed']);
        return hits[0].match;
      };
      expect(await why('Stat Lg')).to.deep.equal({ path: 'spec.panels.b.spec.display.name', text: 'Stat Lg tiles' });
      expect(await why('RAM Total')).to.deep.equal({ path: 'spec.panels.c.spec.display.name', text: 'RAM Total' });
      // a word only in the title (Mixed) does not stop the field with the other words from being the reason
      expect(await why('mixed ram total')).to.deep.equal({ path: 'spec.panels.c.spec.display.name', text: 'RAM Total' });
      // no field holds both words: the one holding the first stays the reason
      expect((await why('used tiles')).text).to.equal('RAM Used');
      await ok(a('DELETE', '/api/v1/projects/team-a/dashboards/mixed'), 204);
    });
  });

  describe('auth off', () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer();
      await ok(s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} }));
      await ok(s.api('POST', '/api/v1/projects/p/dashboards', dash('d', 'Overview')));
    });
    after(async () => s?.stop());

    it('keeps one anonymous profile', async () => {
      await ok(s.api('POST', '/api/v1/user/profile/stars', { kind: 'Dashboard', project: 'p', name: 'd' }));
      await ok(s.api('PUT', '/api/v1/user/profile/preferences', { theme: 'light' }));
      const profile = (await ok(s.api('GET', '/api/v1/user/profile'))).body;
      expect(profile.starred.map((r: any) => r.title)).to.deep.equal(['Overview']);
      expect(profile.preferences).to.deep.equal({ theme: 'light' });
      expect((await ok(s.api('GET', '/api/v1/search?query=overview'))).body.map((h: any) => h.name)).to.deep.equal(['d']);
    });
  });
});
