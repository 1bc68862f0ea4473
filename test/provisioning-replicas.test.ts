/**
 * Several replicas on one PostgreSQL database provisioning the same folder and Git repository:
 * they race on every object, yet each is written once, no replica reports a problem, re-reads
 * write nothing, and a change makes one version, not one per replica.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { dashboard, passes, project, sources, TestRepo, writeResources } from './helpers/provisioning.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { WatchStream } from './helpers/watch.js';
import { needsPrograms } from './helpers/programs.js';

const DASHBOARDS = 20;
const titles = (prefix: string) =>
  Array.from({ length: DASHBOARDS }, (_, i) => dashboard('shared', `d${String(i).padStart(2, '0')}`, `${prefix} ${i}`));

describe('provisioning on replicas sharing one PostgreSQL database', function () {
  needsPrograms('postgresql');
  this.timeout(120_000);
  let pg: TestPostgres;
  let db: { url: string; drop(): Promise<void> };
  let replicas: TestServer[] = [];
  let repo: TestRepo;
  const folder = tempDir('dashplane-provisioned-');

  before(async () => {
    pg = await sharedPostgres();
    db = await pg.createDatabase();
    repo = await TestRepo.create();
    await repo.commit('first', { 'git.yaml': [dashboard('shared', 'from-git', 'From Git')] });
    writeResources(folder.path, 'project.yaml', [project('shared')]);
    writeResources(folder.path, 'dashboards.json', titles('First'));
    const env = {
      DASHPLANE_DATABASE_POSTGRES_URL: db.url,
      DASHPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      DASHPLANE_PROVISIONING_FOLDERS: JSON.stringify([folder.path]),
      DASHPLANE_PROVISIONING_INTERVAL: '200ms',
      DASHPLANE_PROVISIONING_GIT: JSON.stringify([{ url: repo.url, ref: 'main' }]),
    };
    // started together: their first passes race on every object
    replicas = await Promise.all([startTestServer({ env }), startTestServer({ env })]);
  });
  after(async () => {
    for (const r of replicas) await r.stop();
    await db?.drop();
    await pg?.stop();
    repo?.remove();
    folder.remove();
  });

  it('every object is written once (version 0, one ADDED event), neither replica reports a problem, re-reads write nothing; a changed file makes one version per changed object', async () => {
    const [a, b] = replicas;
    for (const r of replicas)
      for (const i of [0, 1]) await waitFor(`source ${i}'s first pass on ${r.url}`, async () => (await sources(r))[i].passes > 0);
    const watch = await WatchStream.must(`${b.url}/api/v1/dashboards?watch=true&since=0`);
    try {
      for (const r of replicas) await passes(r, 3);
      const objects = DASHBOARDS + 2;
      const created = (await Promise.all(replicas.map((r) => sources(r)))).flat();
      expect(created.flatMap((s) => s.problems)).to.deep.equal([]);
      expect(
        created.reduce((n, s) => n + s.writes.created, 0),
        'each object created by one replica',
      ).to.equal(objects);
      expect(created.reduce((n, s) => n + s.writes.updated + s.writes.takenBack, 0)).to.equal(0);
      const list = (await a.api('GET', '/api/v1/projects/shared/dashboards')).body as { metadata: { version: number } }[];
      expect(list.map((d) => d.metadata.version)).to.deep.equal(Array(DASHBOARDS + 1).fill(0));
      await watch.waitForChanges(DASHBOARDS + 1);
      expect(watch.changes().every((e) => e.type === 'ADDED')).to.equal(true);

      writeResources(folder.path, 'dashboards.json', [...titles('Second').slice(0, 10), ...titles('First').slice(10)]);
      await watch.waitForChanges(DASHBOARDS + 11);
      for (const r of replicas) await passes(r, 3);
      const after = (await Promise.all(replicas.map((r) => sources(r)))).flat();
      expect(after.flatMap((s) => s.problems)).to.deep.equal([]);
      expect(
        after.reduce((n, s) => n + s.writes.updated, 0),
        'one update per changed object',
      ).to.equal(10);
      expect(watch.summary().slice(DASHBOARDS + 1), 'one event per changed object').to.have.length(10);
      const changed = (await b.api('GET', '/api/v1/projects/shared/dashboards/d03')).body;
      expect([changed.spec.display.name, changed.metadata.version]).to.deep.equal(['Second 3', 1]);
    } finally {
      await watch.close();
    }
  });
});
