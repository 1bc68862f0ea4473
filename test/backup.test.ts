import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildKindRegistry } from '../src/kinds/index.js';
import { AUTH_ENV } from './helpers/auth.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { runToExit, spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { tempDir } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { needsPrograms } from './helpers/programs.js';

const registry = buildKindRegistry();
const CANARY = 'canary-Backup-7f3a';

type Obj = { kind: string; metadata: { name: string; project?: string; version: number; updatedAt: string }; spec: any };
type Line = {
  dashplane_backup?: 1;
  revision?: number;
  sessions?: boolean;
  object?: Obj;
  version?: Obj;
  updatedBy?: string;
  managers?: unknown[];
  end?: { objects: number; versions: number; encryptionKeyIds: string[] };
};

const call = async (url: string, method: string, path: string, token?: string, body?: unknown) => {
  const res = await fetch(url + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
};

const dashboard = (name: string, title = name) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: { display: { name: title }, panels: {}, layouts: [], duration: '1h' },
});

async function adminToken(url: string): Promise<string> {
  const r = await call(url, 'POST', '/api/auth/providers/native/login', undefined, { login: 'admin', password: 'admin-password' });
  expect(r.status, r.text).to.equal(200);
  return r.body.access_token as string;
}

/** Some content: a project, a secret with a canary password, a dashboard with history. */
async function seed(url: string, token: string): Promise<void> {
  expect((await call(url, 'POST', '/api/v1/projects', token, { kind: 'Project', metadata: { name: 'p' }, spec: {} })).status).to.equal(200);
  expect(
    (
      await call(url, 'POST', '/api/v1/projects/p/secrets', token, {
        kind: 'Secret',
        metadata: { name: 's' },
        spec: { basicAuth: { username: 'u', password: CANARY } },
      })
    ).status,
  ).to.equal(200);
  expect((await call(url, 'POST', '/api/v1/projects/p/dashboards', token, dashboard('edited', 'v0'))).status).to.equal(200);
  for (let v = 1; v <= 3; v++)
    expect((await call(url, 'PUT', '/api/v1/projects/p/dashboards/edited', token, dashboard('edited', `v${v}`))).status).to.equal(200);
}

/** Writes one acknowledged change after another until stopped: new dashboards w0000, w0001, ... and updates of `edited`. */
function writer(url: string, token: string) {
  let stop = false;
  let created = 0;
  const done = (async () => {
    while (!stop) {
      const r = await call(url, 'POST', '/api/v1/projects/p/dashboards', token, dashboard(`w${String(created).padStart(4, '0')}`));
      expect(r.status, r.text).to.equal(200);
      created++;
      if (created % 3 === 0)
        expect((await call(url, 'PUT', '/api/v1/projects/p/dashboards/edited', token, dashboard('edited', `w${created}`))).status).to.equal(
          200,
        );
    }
  })();
  return {
    created: () => created,
    stop: async () => {
      stop = true;
      await done;
    },
  };
}

function readBackup(file: string): Line[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
}

/** A snapshot is consistent: the writer's dashboards form a gap-free prefix, every history ends at its object's version. */
function expectConsistent(lines: Line[]): { written: number } {
  expect(lines[0].dashplane_backup).to.equal(1);
  expect(lines.at(-1)!.end).to.not.equal(undefined);
  const objects = lines.filter((l) => l.object).map((l) => l.object!);
  const written = objects
    .filter((o) => o.kind === 'Dashboard' && /^w\d{4}$/.test(o.metadata.name))
    .map((o) => Number(o.metadata.name.slice(1)));
  expect(written, "the writer's dashboards: no gap").to.deep.equal(written.map((_, i) => i));
  let versions: Obj[] = [];
  for (const l of lines.slice(1, -1)) {
    if (l.version) versions.push(l.version);
    else if (l.object) {
      if (versions.length) {
        const nums = versions.map((v) => v.metadata.version);
        expect(nums, `${l.object.metadata.name}: versions in order`).to.deep.equal(nums.map((_, i) => nums[0] + i));
        expect(nums.at(-1), `${l.object.metadata.name}: history ends at the object`).to.equal(l.object.metadata.version);
        for (const v of versions) expect(v.metadata.name).to.equal(l.object.metadata.name);
      }
      versions = [];
    }
  }
  return { written: written.length };
}

/** What a reader of the restored server must see: every object of the backup (metadata), the history of `edited`. */
async function expectRestored(url: string, token: string, lines: Line[]): Promise<void> {
  const objects = lines.filter((l) => l.object && registry.byName(l.object.kind)).map((l) => l.object!);
  for (const d of registry.all()) {
    const listed = await call(url, 'GET', `/api/v1/${d.plural}`, token);
    expect(listed.status, listed.text).to.equal(200);
    const shown = (listed.body as Obj[]).map(
      (o) => `${o.metadata.project ?? ''}/${o.metadata.name}@${o.metadata.version} ${o.metadata.updatedAt}`,
    );
    const backedUp = objects
      .filter((o) => o.kind === d.kind)
      .map((o) => `${o.metadata.project ?? ''}/${o.metadata.name}@${o.metadata.version} ${o.metadata.updatedAt}`);
    expect(shown, d.kind).to.deep.equal(backedUp);
  }
  // the versions route lists the earlier versions (not the current one), newest first
  const current = objects.find((o) => o.kind === 'Dashboard' && o.metadata.name === 'edited')!.metadata.version;
  const versions = lines
    .filter((l) => l.version?.metadata.name === 'edited' && l.version.metadata.version < current)
    .map((l) => l.version!.metadata.version)
    .reverse();
  expect(versions.length).to.be.greaterThan(2);
  const restored = await call(url, 'GET', '/api/v1/projects/p/dashboards/edited/versions', token);
  expect((restored.body as { version: number }[]).map((v) => v.version)).to.deep.equal(versions);
  // who wrote each version, and through what, came along too
  const managers = lines.find((l) => l.object?.kind === 'Dashboard' && l.object.metadata.name === 'edited')!.managers;
  expect(managers, 'the backup holds the managers record').to.be.an('array').that.is.not.empty;
  expect((await call(url, 'GET', '/api/v1/projects/p/dashboards/edited/managers', token)).body).to.deep.equal(managers);
  expect(
    (restored.body as { manager: string }[]).every((v) => v.manager !== 'unknown'),
    JSON.stringify(restored.body),
  ).to.equal(true);
}

describe('dashplane backup and restore', function () {
  this.timeout(120_000);
  const key = randomBytes(32).toString('hex');
  const env = { ...AUTH_ENV, DASHPLANE_ENCRYPTION_KEY: key };

  describe('LevelDB: online backup through the server while it takes writes', () => {
    const dirs = { data: tempDir(), restored: tempDir(), files: tempDir() };
    let srv: ServerProcess;
    let token: string;
    before(async () => {
      srv = await spawnServer({ dataDir: dirs.data.path, env });
      token = await adminToken(srv.url);
      await seed(srv.url, token);
    });
    after(async () => {
      if (srv) await stopChild(srv.child);
      for (const d of Object.values(dirs)) d.remove();
    });

    it('only an administrator may take one: 401 without credentials, 403 for a user with a project of their own', async () => {
      expect((await call(srv.url, 'GET', '/api/v1/admin/backup')).status).to.equal(401);
      expect(
        (
          await call(srv.url, 'POST', '/api/v1/users', undefined, {
            kind: 'User',
            metadata: { name: 'bob' },
            spec: { nativeProvider: { password: 'bob-password' } },
          })
        ).status,
      ).to.equal(200);
      const bob = (await call(srv.url, 'POST', '/api/auth/providers/native/login', undefined, { login: 'bob', password: 'bob-password' }))
        .body.access_token as string;
      expect(
        (await call(srv.url, 'POST', '/api/v1/projects', bob, { kind: 'Project', metadata: { name: 'bobs' }, spec: {} })).status,
      ).to.equal(200);
      const r = await call(srv.url, 'GET', '/api/v1/admin/backup', bob);
      expect(r.status).to.equal(403);
      expect(r.text).to.not.include(CANARY);
      const cli = await runToExit(['backup', '--server', srv.url, '--to', join(dirs.files.path, 'refused.ndjson')], {
        DASHPLANE_TOKEN: bob,
      });
      expect(cli.code, cli.output).to.equal(1);
      expect(cli.output).to.match(/answered 403/);
      expect(existsSync(join(dirs.files.path, 'refused.ndjson')) || existsSync(join(dirs.files.path, 'refused.ndjson.partial'))).to.equal(
        false,
      );
    });

    it('is one consistent snapshot under concurrent writes, mode 0600, secrets still encrypted; a restore into an empty store gives the same objects, history and sessions', async () => {
      const file = join(dirs.files.path, 'backup.ndjson');
      const w = writer(srv.url, token);
      await waitFor('the writer to be under way', () => w.created() >= 20, 30_000);
      const before = w.created();
      const r = await runToExit(['backup', '--server', srv.url, '--token', token, '--to', file], {}, 60_000);
      const after = w.created();
      await w.stop();
      expect(r.code, r.output).to.equal(0);
      expect(r.output).to.match(/backup written to .*: \d+ objects, \d+ versions, revision \d+/);
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      const text = readFileSync(file, 'utf8');
      expect(text).to.not.include(CANARY);
      const lines = readBackup(file);
      const { written } = expectConsistent(lines);
      expect(written, 'taken while the writer ran').to.be.within(before, after + 1);
      expect(lines.at(-1)!.end!.encryptionKeyIds).to.have.length(1);
      expect(
        lines.some((l) => l.object?.kind === 'Session'),
        'sessions are in it',
      ).to.equal(true);

      const restored = await runToExit(['restore', '--from', file, '--to', `level:${dirs.restored.path}`], {}, 60_000);
      expect(restored.code, restored.output).to.equal(0);
      expect(restored.output).to.match(/done: \d+ objects and \d+ history entries restored/);
      const again = await runToExit(['restore', '--from', file, '--to', `level:${dirs.restored.path}`]);
      expect(again.code, 'only into an empty store').to.equal(1);
      expect(again.output).to.match(/empty store/);

      const wrongKey = await spawnServer({
        dataDir: dirs.restored.path,
        env: { ...env, DASHPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex') },
      }).then(
        (p) => stopChild(p.child).then(() => 'started'),
        (e: Error) => e.message,
      );
      expect(wrongKey, 'without its key the restored store does not open').to.match(/key/i).and.not.equal('started');

      const back = await spawnServer({ dataDir: dirs.restored.path, env });
      try {
        // the admin's session came along: the same token works on the restored server
        await expectRestored(back.url, token, lines);
        const secret = await call(back.url, 'GET', '/api/v1/projects/p/secrets/s', token);
        expect(secret.body.spec.basicAuth.password).to.equal('<secret>');
      } finally {
        await stopChild(back.child);
      }
    });

    it('refuses a cut-short or foreign file, and a LevelDB directory the server holds', async () => {
      const file = join(dirs.files.path, 'backup.ndjson');
      const cut = join(dirs.files.path, 'cut.ndjson');
      const text = readFileSync(file, 'utf8').split('\n');
      (await import('node:fs')).writeFileSync(cut, text.slice(0, -2).join('\n'));
      const r = await runToExit(['restore', '--from', cut, '--to', `level:${join(dirs.files.path, 'never')}`]);
      expect(r.code).to.equal(1);
      expect(r.output).to.match(/cut short/);
      expect(existsSync(join(dirs.files.path, 'never'))).to.equal(false);
      const held = await runToExit(['backup', '--from', `level:${dirs.data.path}`, '--to', join(dirs.files.path, 'held.ndjson')]);
      expect(held.code).to.equal(1);
      expect(held.output).to.match(/lock|another|in use/i);
      expect(existsSync(join(dirs.files.path, 'held.ndjson.partial'))).to.equal(false);
    });
  });

  describe('PostgreSQL: a backup straight from the database while a replica takes writes', () => {
    needsPrograms('postgresql');
    let pg: TestPostgres;
    before(async () => {
      pg = await sharedPostgres();
    });
    after(async () => pg?.stop());

    it('is consistent, leaves sessions out with --no-sessions, and restores into another database', async () => {
      const db = await pg.createDatabase();
      const target = await pg.createDatabase();
      const dirs = { data: tempDir(), files: tempDir() };
      const pgEnv = { ...env, DASHPLANE_DATABASE_POSTGRES_URL: db.url };
      const srv = await spawnServer({ dataDir: dirs.data.path, env: pgEnv });
      try {
        const token = await adminToken(srv.url);
        await seed(srv.url, token);
        const w = writer(srv.url, token);
        await waitFor('the writer to be under way', () => w.created() >= 10, 30_000);
        const file = join(dirs.files.path, 'pg.ndjson');
        const r = await runToExit(['backup', '--from', db.url, '--to', file, '--no-sessions'], {}, 60_000);
        await w.stop();
        expect(r.code, r.output).to.equal(0);
        const lines = readBackup(file);
        expect(lines[0].sessions).to.equal(false);
        expect(lines.some((l) => l.object?.kind === 'Session')).to.equal(false);
        expectConsistent(lines);
        const restored = await runToExit(['restore', '--from', file, '--to', target.url], {}, 60_000);
        expect(restored.code, restored.output).to.equal(0);
        const back = await spawnServer({ dataDir: dirs.data.path, env: { ...pgEnv, DASHPLANE_DATABASE_POSTGRES_URL: target.url } });
        try {
          const fresh = await adminToken(back.url); // no sessions were restored: sign in again
          expect((await call(back.url, 'GET', '/api/v1/projects', token)).status, 'old sessions are gone').to.equal(401);
          await expectRestored(back.url, fresh, lines);
        } finally {
          await stopChild(back.child);
        }
      } finally {
        await stopChild(srv.child);
        await db.drop();
        await target.drop();
        dirs.data.remove();
        dirs.files.remove();
      }
    });
  });
});
