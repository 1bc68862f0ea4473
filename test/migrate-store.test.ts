import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { buildKindRegistry } from '../src/kinds/index.js';
import { readResources } from './helpers/manifests.js';
import { skipWithoutCorpus } from './helpers/corpus.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { runToExit, spawnServer, type ServerProcess } from './helpers/process.js';
import { tempDir } from './helpers/server.js';
import { needsPrograms } from './helpers/programs.js';

const registry = buildKindRegistry();
const json = (method: string, body?: unknown) => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
});

/** Every listable object of every kind, its field managers, and the history of every kind that keeps one, as the API shows them. */
async function snapshot(url: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const d of registry.all()) {
    const items = (await (await fetch(`${url}/api/v1/${d.plural}`)).json()) as { metadata: { name: string; project?: string } }[];
    out[d.kind] = items;
    for (const o of items) {
      const path =
        d.scope === 'project'
          ? `/api/v1/projects/${o.metadata.project}/${d.plural}/${o.metadata.name}`
          : `/api/v1/${d.plural}/${o.metadata.name}`;
      const id = `${d.kind}/${o.metadata.project ?? ''}/${o.metadata.name}`;
      out[`${id}/managers`] = await (await fetch(`${url}${path}/managers`)).json();
      if (d.history) out[`${id}/versions`] = await (await fetch(`${url}${path}/versions`)).json();
    }
  }
  out.audit = await (await fetch(`${url}/api/v1/audit?limit=1000`)).json();
  return out;
}

async function stop(p: ServerProcess): Promise<void> {
  p.child.kill('SIGTERM');
  expect(await p.exited).to.equal(0);
}

describe('dashplane migrate-store', function () {
  needsPrograms('postgresql');
  this.timeout(120_000);
  let pg: TestPostgres;
  before(async () => {
    pg = await sharedPostgres();
  });
  after(async () => pg?.stop());

  it('round-trips the corpus: LevelDB -> PostgreSQL -> LevelDB, objects, history and encrypted secrets unchanged', async function () {
    const CORPUS = skipWithoutCorpus(this, 'corpus');
    const key = randomBytes(32).toString('hex');
    const level1 = tempDir();
    const level2 = tempDir();
    const db = await pg.createDatabase();
    try {
      let srv = await spawnServer({ dataDir: level1.path, env: { DASHPLANE_ENCRYPTION_KEY: key } });
      const index = JSON.parse((await import('node:fs')).readFileSync(join(CORPUS, 'INDEX.json'), 'utf8')) as {
        resources: { file: string; index: number; wrapper: string; kind: string }[];
      };
      const files = [...new Set(index.resources.filter((r) => r.wrapper === 'native').map((r) => r.file))];
      const resources = files.flatMap((f) => readResources(join(CORPUS, f)));
      const projects = new Set<string>(['corpus']);
      for (const r of resources) if (registry.byName(r.kind)?.scope === 'project' && r.metadata?.project) projects.add(r.metadata.project);
      for (const p of projects)
        await fetch(`${srv.url}/api/v1/projects`, json('POST', { kind: 'Project', metadata: { name: p }, spec: {} }));
      let stored = 0;
      for (const r of resources) {
        const d = registry.byName(String(r.kind));
        if (!d || d.isProjectScope) continue;
        const project = d.scope === 'project' ? r.metadata?.project || 'corpus' : undefined;
        const base = project ? `/api/v1/projects/${project}/${d.plural}` : `/api/v1/${d.plural}`;
        const body = { ...r, metadata: { ...r.metadata, ...(project ? { project } : {}) } };
        const res = await fetch(`${srv.url}${base}`, json('POST', body));
        // history, by another field manager
        if (res.status === 409)
          await fetch(`${srv.url}${base}/${r.metadata.name}`, {
            ...json('PUT', body),
            headers: { 'content-type': 'application/json', 'x-dashplane-manager': 'web-ui' },
          });
        if (res.ok) stored++;
      }
      expect(stored).to.be.greaterThan(80);
      expect(
        ((await (await fetch(`${srv.url}/api/v1/audit?limit=1000`)).json()) as unknown[]).length,
        'the audit log is copied too',
      ).to.be.greaterThan(80);
      const before = await snapshot(srv.url);
      const managers = Object.entries(before)
        .filter(([k]) => k.endsWith('/managers'))
        .flatMap(([, v]) => v as { manager: string }[]);
      expect(new Set(managers.map((m) => m.manager)), 'the copies are checked with more than one manager').to.include.members([
        'api',
        'web-ui',
      ]);
      await stop(srv);

      const there = await runToExit(['migrate-store', '--from', `level:${level1.path}`, '--to', db.url]);
      expect(there.code, there.output).to.equal(0);
      expect(there.output).to.match(/done: \d+ objects and \d+ history entries copied/);
      srv = await spawnServer({ dataDir: level1.path, env: { DASHPLANE_ENCRYPTION_KEY: key, DASHPLANE_DATABASE_POSTGRES_URL: db.url } });
      expect(await snapshot(srv.url)).to.deep.equal(before);
      await stop(srv);

      const again = await runToExit(['migrate-store', '--from', `level:${level1.path}`, '--to', db.url]);
      expect(again.code, 'an occupied target is refused').to.equal(1);
      expect(again.output).to.match(/empty store/);

      const back = await runToExit(['migrate-store', '--from', db.url, '--to', `level:${level2.path}`]);
      expect(back.code, back.output).to.equal(0);
      srv = await spawnServer({ dataDir: level2.path, env: { DASHPLANE_ENCRYPTION_KEY: key } });
      expect(await snapshot(srv.url)).to.deep.equal(before);
      await stop(srv);
    } finally {
      await db.drop();
      level1.remove();
      level2.remove();
    }
  });

  it('a LevelDB source that does not exist or holds no database is refused, and nothing is created (a mistyped path copied nothing and succeeded)', async () => {
    const dir = tempDir();
    try {
      const missing = join(dir.path, 'typo');
      const target = join(dir.path, 'target');
      const r = await runToExit(['migrate-store', '--from', `level:${missing}`, '--to', `level:${target}`]);
      expect(r.code, r.output).to.equal(1);
      expect(r.output).to.include(`level:${missing}: no such directory`);
      const backup = await runToExit(['backup', '--from', `level:${dir.path}`, '--to', join(dir.path, 'b.ndjson')]);
      expect(backup.code, backup.output).to.equal(1);
      expect(backup.output).to.include('holds no dashplane data');
      const { existsSync, readdirSync } = await import('node:fs');
      expect(existsSync(missing), 'no database made at the mistyped path').to.equal(false);
      expect(readdirSync(dir.path), 'nothing written at all').to.deep.equal([]);
    } finally {
      dir.remove();
    }
  });
});
