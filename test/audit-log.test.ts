/**
 * The audit log (issue 20): a scripted session of writes, logins, failed logins, token uses and
 * denials produces exactly the expected entries (and nothing for dry runs and unchanged writes),
 * none holding a secret value; on LevelDB (with file shipping) and on two PostgreSQL replicas
 * (the script alternates between them). Filters, pages, watch, who may read it, retention, and
 * dashctl audit.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_ENV, bearer, login, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { dashctl, show } from './helpers/dashctl.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { WatchStream } from './helpers/watch.js';
import { needsPrograms } from './helpers/programs.js';

type Auth = Record<string, string>;
type Entry = Record<string, any>;

async function must(
  s: TestServer,
  auth: Auth,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const r = await s.api(method, path, body, { ...auth, ...headers });
  expect(r.status, `${method} ${path}: ${r.text}`).to.be.oneOf([200, 204]);
  return r.body;
}

/** Every entry after id `after`, oldest first (all pages). */
async function entriesAfter(s: TestServer, auth: Auth, after: number): Promise<Entry[]> {
  const out: Entry[] = [];
  let path: string | undefined = '/api/v1/audit?limit=50';
  while (path) {
    const r = await s.api('GET', path, undefined, auth);
    expect(r.status, r.text).to.equal(200);
    out.push(...(r.body as Entry[]));
    if ((r.body as Entry[]).some((e) => e.id <= after)) break;
    path = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
  }
  return out.filter((e) => e.id > after).reverse();
}

const lastId = async (s: TestServer, auth: Auth) => ((await must(s, auth, 'GET', '/api/v1/audit?limit=1')) as Entry[])[0]?.id ?? 0;

/** One line per entry: what the script checks exactly. */
function line(e: Entry): string {
  const object = [e.kind, e.project, e.name].filter((x) => x !== undefined).join('/');
  const versions =
    e.versionBefore !== undefined || e.versionAfter !== undefined ? ` ${e.versionBefore ?? ''}->${e.versionAfter ?? ''}` : '';
  const extra =
    e.action === 'denied'
      ? ` (${e.deniedAction})`
      : e.action.startsWith('login') || e.action === 'logout'
        ? ` [${e.provider ?? ''}${e.reason ? `: ${e.reason}` : ''}]`
        : '';
  return `${e.action} ${e.user} ${object}${versions}${e.manager ? ` via ${e.manager}` : ''}${extra}`;
}

const dashboard = (name: string, title = name) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: { display: { name: title }, duration: '1h', panels: {}, layouts: [] },
});

/**
 * The scripted session, alternating writes between `a` and `b` (the same server on LevelDB).
 * Returns the canaries (secret values) that must appear nowhere in the audit log.
 */
async function story(a: TestServer, b: TestServer, project: string): Promise<{ canaries: string[]; entries: Entry[] }> {
  const adminTokens = await loginAdmin(b);
  const before = await lastId(a, bearer(adminTokens));
  const canaries = [
    `pw-${randomBytes(6).toString('hex')}`,
    `secret-${randomBytes(6).toString('hex')}`,
    `ghost-${randomBytes(6).toString('hex')}`,
  ];
  const admin = bearer(await loginAdmin(a));
  expect((await b.api('POST', '/api/auth/providers/native/login', { login: 'admin', password: canaries[0] })).status).to.equal(400);
  expect((await a.api('POST', '/api/auth/providers/native/login', { login: canaries[2], password: canaries[0] })).status).to.equal(400);
  await signUp(a, `bob-${project}`, canaries[0]);
  const bob = bearer(await login(b, `bob-${project}`, canaries[0]));
  await must(
    a,
    admin,
    'POST',
    '/api/v1/projects',
    { kind: 'Project', metadata: { name: project }, spec: {} },
    { 'x-request-id': `req-${project}`, 'x-dashplane-manager': 'script' },
  );
  await must(b, admin, 'POST', `/api/v1/projects/${project}/secrets`, {
    kind: 'Secret',
    metadata: { name: 's' },
    spec: { basicAuth: { username: 'u', password: canaries[1] } },
  });
  await must(a, admin, 'POST', `/api/v1/projects/${project}/dashboards`, dashboard('d'));
  await must(b, admin, 'PUT', `/api/v1/projects/${project}/dashboards/d`, dashboard('d', 'changed'));
  await must(a, admin, 'PUT', `/api/v1/projects/${project}/dashboards/d`, dashboard('d', 'changed'), {
    'x-dashplane-skip-unchanged': 'true',
  });
  await must(b, admin, 'DELETE', `/api/v1/projects/${project}/dashboards/d?dryRun=true`);
  expect((await a.api('DELETE', `/api/v1/projects/${project}/dashboards/d`, undefined, bob)).status).to.equal(403);
  expect((await b.api('GET', '/api/v1/audit', undefined, bob)).status, 'bob may not read the audit log').to.equal(403);
  const pat = await must(b, admin, 'POST', '/api/v1/user/tokens', { name: 'script', ttl: '1h' });
  canaries.push(pat.token.split('_').slice(2).join('_'));
  for (const s of [a, b, a]) await must(s, bearer(pat.token), 'GET', '/api/v1/user/whoami');
  await waitFor('the token use to be recorded', async () => (await entriesAfter(a, admin, before)).some((e) => e.action === 'token-use'));
  await must(a, admin, 'DELETE', `/api/v1/user/tokens/${pat.id}`);
  await must(b, admin, 'DELETE', `/api/v1/projects/${project}/dashboards/d`);
  await must(a, admin, 'DELETE', `/api/v1/users/bob-${project}`, undefined, { 'x-dashplane-manager': 'web-ui' });
  await must(b, admin, 'DELETE', `/api/v1/projects/${project}`);
  await must(a, admin, 'GET', '/api/auth/logout');
  const entries = await entriesAfter(b, bearer(adminTokens), before);
  const p = project;
  expect(entries.map(line)).to.deep.equal([
    'login admin  [native]',
    'login-failed admin  [native: wrong password]',
    'login-failed -  [native: no such user]',
    `create anonymous User/bob-${p} ->0 via api`,
    `login bob-${p}  [native]`,
    `create admin Project/${p}/${p} ->0 via script`,
    `create admin Role/${p}/owner ->0 via script`,
    `create admin Role/${p}/editor ->0 via script`,
    `create admin Role/${p}/viewer ->0 via script`,
    `create admin RoleBinding/${p}/owner ->0 via script`,
    `create admin Secret/${p}/s ->0 via api`,
    `create admin Dashboard/${p}/d ->0 via api`,
    `update admin Dashboard/${p}/d 0->1 via api`,
    `denied bob-${p} Dashboard/${p}/d (delete)`,
    `denied bob-${p} AuditEvent (read)`,
    'token-create admin User/admin',
    'token-use admin User/admin',
    'token-revoke admin User/admin',
    `delete admin Dashboard/${p}/d 1-> via api`,
    `delete admin User/bob-${p} 0-> via web-ui`,
    `delete admin Project/${p}/${p} 0-> via api`,
    'logout admin  []',
  ]);
  const ids = entries.map((e) => e.id);
  expect(ids, 'ids increase without gaps').to.deep.equal(ids.map((_, i) => ids[0] + i));
  for (const e of entries) {
    expect(e.source, line(e)).to.equal('127.0.0.1');
    expect(e.requestId, line(e)).to.be.a('string').that.is.not.empty;
    expect(Date.parse(e.time), line(e)).to.be.within(Date.now() - 60_000, Date.now());
  }
  expect(
    entries
      .filter((e) => e.kind === 'Project' || e.kind === 'Role' || e.kind === 'RoleBinding')
      .every((e) => e.action !== 'create' || e.requestId === `req-${p}`),
  ).to.equal(true);
  expect(entries.filter((e) => e.action.startsWith('token-')).map((e) => e.token)).to.deep.equal([pat.id, pat.id, pat.id]);
  const text = JSON.stringify(entries);
  for (const c of canaries) expect(text, 'no secret value in the audit log').to.not.include(c);
  return { canaries, entries };
}

describe('audit log (issue 20)', function () {
  this.timeout(90_000);

  describe('on LevelDB, shipped to a file', () => {
    let s: TestServer;
    let admin: Auth;
    let dir: ReturnType<typeof tempDir>;
    let file: string;
    before(async () => {
      dir = tempDir('dashplane-audit-');
      file = join(dir.path, 'audit.jsonl');
      s = await startAuthServer({ DASHPLANE_AUDIT_FILE: file, DASHPLANE_WATCH_BOOKMARK_INTERVAL: '1s' });
      admin = bearer(await loginAdmin(s));
    });
    after(async () => {
      await s?.stop();
      dir?.remove();
    });

    it('a scripted session produces exactly the expected entries, none with a secret; the file holds the same entries', async () => {
      const { canaries, entries } = await story(s, s, 'lvl');
      const shipped = await waitFor('the file to hold the entries', () => {
        if (!existsSync(file)) return undefined;
        const lines = readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Entry);
        return lines.some((l) => l.id === entries[entries.length - 1].id) ? lines : undefined;
      });
      const byId = new Map(shipped!.map((l) => [l.id, l]));
      for (const e of entries) expect(byId.get(e.id), `entry ${e.id} shipped`).to.deep.equal({ kind: 'AuditEvent', ...e });
      const raw = readFileSync(file, 'utf8');
      for (const c of canaries) expect(raw).to.not.include(c);
    });

    it('filters, pages and time ranges', async () => {
      const all = await entriesAfter(s, admin, 0);
      const q = async (query: string) => ((await must(s, admin, 'GET', `/api/v1/audit?${query}`)) as Entry[]).map((e) => e.id);
      const expectIds = (want: Entry[]) => want.map((e) => e.id).reverse();
      expect(await q('user=bob-lvl&limit=1000')).to.deep.equal(expectIds(all.filter((e) => e.user === 'bob-lvl')));
      expect(await q('kind=Dashboard&project=lvl')).to.deep.equal(
        expectIds(all.filter((e) => e.kind === 'Dashboard' && e.project === 'lvl')),
      );
      expect(await q('action=denied')).to.deep.equal(expectIds(all.filter((e) => e.action === 'denied')));
      const mid = all[Math.floor(all.length / 2)].time;
      expect(await q(`from=${mid}&limit=1000`)).to.deep.equal(expectIds(all.filter((e) => e.time >= mid)));
      expect(await q(`to=${mid}&limit=1000`)).to.deep.equal(expectIds(all.filter((e) => e.time < mid)));
      const paged: number[] = [];
      let path: string | undefined = '/api/v1/audit?limit=3';
      while (path) {
        const r = await s.api('GET', path, undefined, admin);
        paged.push(...(r.body as Entry[]).map((e) => e.id));
        path = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
      }
      expect(paged).to.deep.equal(expectIds(all));
      for (const bad of [
        'action=fly',
        'from=yesterday',
        'project=../x',
        'limit=0',
        'limit=1001',
        'continue=%%%',
        'user=',
        'kind=Dash-board',
        'action=login&action=logout',
      ]) {
        const r = await s.api('GET', `/api/v1/audit?${bad}`, undefined, admin);
        expect(r.status, `${bad}: ${r.text}`).to.equal(400);
      }
    });

    it('watch: new entries as they are committed', async () => {
      const w = await WatchStream.must(`${s.url}/api/v1/audit?watch=true&action=create`, admin);
      try {
        await must(s, admin, 'POST', '/api/v1/globalvariables', {
          kind: 'GlobalVariable',
          metadata: { name: 'v' },
          spec: { kind: 'TextVariable', spec: { name: 'v', value: 'x' } },
        });
        await must(s, admin, 'DELETE', '/api/v1/globalvariables/v');
        await must(s, admin, 'POST', '/api/v1/globalvariables', {
          kind: 'GlobalVariable',
          metadata: { name: 'w' },
          spec: { kind: 'TextVariable', spec: { name: 'w', value: 'x' } },
        });
        const events = (await waitFor('two entries', () => (w.changes().length >= 2 ? w.changes() : undefined)))!;
        expect(events.map((e) => `${(e.object as Entry).action} ${(e.object as Entry).name}`)).to.deep.equal(['create v', 'create w']);
      } finally {
        await w.close();
      }
    });

    it('a project owner reads the entries about her project only', async () => {
      await signUp(s, 'olive');
      const olive = bearer(await login(s, 'olive'));
      await must(s, olive, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'olives' }, spec: {} });
      await must(s, olive, 'POST', '/api/v1/projects/olives/dashboards', dashboard('x'));
      const mine = (await must(s, olive, 'GET', '/api/v1/audit?limit=1000')) as Entry[];
      expect(mine.length).to.equal(6);
      expect(mine.every((e) => e.project === 'olives')).to.equal(true);
      expect((await s.api('GET', '/api/v1/audit?project=lvl', undefined, olive)).status).to.equal(403);
    });

    it('dashctl audit: filters, every page, table and JSON', async () => {
      const cfg = join(dir.path, 'dashctl.json');
      expect((await dashctl(cfg, ['login', s.url, '-u', 'admin', '--password-stdin'], { input: 'admin-password\n' })).code).to.equal(0);
      const r = await dashctl(cfg, ['audit', '--user', 'bob-lvl', '--action', 'denied', '-o', 'json']);
      expect(r.code, show(r)).to.equal(0);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Entry);
      expect(lines.map((e) => `${e.deniedAction} ${e.kind}`)).to.deep.equal(['read AuditEvent', 'delete Dashboard']);
      const all = await dashctl(cfg, ['audit', '--all', '--limit', '5', '--kind', 'dash', '--since', '1h']);
      expect(all.code, show(all)).to.equal(0);
      expect(all.stdout.split('\n')[0]).to.match(/^TIME\s+USER\s+ACTION\s+OBJECT\s+VERSION\s+THROUGH\s+SOURCE$/);
      expect(all.stdout).to.include('Dashboard/lvl/d').and.include('1->');
      const bad = await dashctl(cfg, ['audit', '--since', 'last tuesday']);
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.include('--since');
    });
  });

  describe('retention', () => {
    it('entries older than audit.retention are deleted; newer ones stay', async () => {
      const s = await startAuthServer({ DASHPLANE_AUDIT_RETENTION: '2s' });
      try {
        const admin = bearer(await loginAdmin(s));
        const first = await lastId(s, admin);
        expect(first).to.be.greaterThan(0);
        await waitFor(
          'the first entries to be deleted',
          async () => ((await must(s, admin, 'GET', '/api/v1/audit?limit=1000')) as Entry[]).every((e) => e.id > first),
          10_000,
        );
        await must(s, admin, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'fresh' }, spec: {} });
        const now = (await must(s, admin, 'GET', '/api/v1/audit?limit=1000')) as Entry[];
        expect(now.map((e) => e.name)).to.include('fresh');
      } finally {
        await s.stop();
      }
    });
  });

  describe('on two PostgreSQL replicas', () => {
    needsPrograms('postgresql');
    let pg: TestPostgres;
    let db: { url: string; drop(): Promise<void> };
    let a: TestServer;
    let b: TestServer;
    before(async () => {
      pg = await sharedPostgres();
      db = await pg.createDatabase();
      const env = {
        ...AUTH_ENV,
        DASHPLANE_DATABASE_POSTGRES_URL: db.url,
        DASHPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        DASHPLANE_WATCH_BOOKMARK_INTERVAL: '1s',
      };
      a = await startTestServer({ env });
      b = await startTestServer({ env });
    });
    after(async () => {
      await a?.stop();
      await b?.stop();
      await db?.drop();
      await pg?.stop();
    });

    it('the same scripted session across both replicas produces exactly the expected entries', async () => {
      await story(a, b, 'pg');
    });

    it('a watch on B sees the entries of writes made on A', async () => {
      const admin = bearer(await loginAdmin(a));
      const w = await WatchStream.must(`${b.url}/api/v1/audit?watch=true&kind=GlobalVariable`, admin);
      try {
        await must(a, admin, 'POST', '/api/v1/globalvariables', {
          kind: 'GlobalVariable',
          metadata: { name: 'pv' },
          spec: { kind: 'TextVariable', spec: { name: 'pv', value: 'x' } },
        });
        const [e] = (await waitFor('an entry', () => (w.changes().length ? w.changes() : undefined)))!;
        expect((e.object as Entry).name).to.equal('pv');
      } finally {
        await w.close();
      }
    });
  });
});
