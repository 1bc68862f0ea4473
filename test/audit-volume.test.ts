/**
 * VOLUME-01 (issue 33): one caller flooding refused requests (denials of every shape, failed and
 * rate-limited logins) does not flood the audit log: the first refusal of each kind is recorded at
 * once, its repeats as one entry per window with a count; every refusal is accounted for, in the
 * API, the watch and the shipped file; real writes meanwhile stay quick. On LevelDB and PostgreSQL.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_ENV, bearer, login, loginAdmin, signUp } from './helpers/auth.js';
import { dashctl, show } from './helpers/dashctl.js';
import { sharedPostgres, type TestPostgres } from './helpers/postgres.js';
import { spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { callJson, tempDir, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { WatchStream } from './helpers/watch.js';
import { needsPrograms } from './helpers/programs.js';

type Auth = Record<string, string>;
type Entry = Record<string, any>;
/** A server in its own process (the flood's clients must not share its event loop), reached over HTTP. */
type Server = Pick<TestServer, 'url' | 'api'> & { process: ServerProcess };

const WINDOW_S = 1;
const dashboard = (name: string) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: { display: { name }, duration: '1h', panels: {}, layouts: [] },
});

/** Every entry after id `after`, oldest first. */
async function entriesAfter(s: Server, auth: Auth, after: number): Promise<Entry[]> {
  const out: Entry[] = [];
  let path: string | undefined = `/api/v1/audit?limit=1000`;
  while (path) {
    const r = await s.api('GET', path, undefined, auth);
    expect(r.status, r.text).to.equal(200);
    const page = r.body as Entry[];
    out.push(...page.filter((e) => e.id > after));
    if (page.some((e) => e.id <= after)) break;
    path = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
  }
  return out.reverse();
}

/** How many refusals entries stand for. */
const total = (entries: readonly Entry[]) => entries.reduce((n, e) => n + (e.count ?? 1), 0);

async function start(dataDir: string, env: Record<string, string>): Promise<Server> {
  const p = await spawnServer({ dataDir, env: { ...AUTH_ENV, DASHPLANE_AUDIT_COALESCE_WINDOW: `${WINDOW_S}s`, ...env } });
  return { url: p.url, api: (method, path, body, headers) => callJson(p.url, method, path, body, headers), process: p };
}

/**
 * `workers` clients of `who` send refused requests for `ms`: the same one again and again, new
 * names, new projects, other kinds and verbs, wrong passwords (rate-limited to 429 soon) and
 * unknown users; meanwhile the admin creates dashboards one after the other, timed.
 */
async function flood(
  s: Server,
  who: Auth,
  admin: Auth,
  ms: number,
  enough: (refusals: number, elapsedMs: number) => boolean,
  workers = 12,
): Promise<{ denied: number; loginsFailed: number; other: string[]; writeMs: number[]; elapsedMs: number }> {
  const shapes: ((i: number) => [string, string, unknown?])[] = [
    () => ['GET', '/api/v1/projects/p/dashboards/d'],
    (i) => ['GET', `/api/v1/projects/p/dashboards/n${i}`],
    (i) => ['GET', `/api/v1/projects/q${i}/dashboards`],
    (i) => ['DELETE', `/api/v1/projects/p/dashboards/n${i % 7}`],
    (i) => ['POST', '/api/v1/projects/p/dashboards', dashboard(`c${i}`)],
    () => ['GET', '/api/v1/globalroles'],
    (i) => [
      'PUT',
      `/api/v1/projects/q${i % 50}/variables/v`,
      { kind: 'Variable', metadata: { name: 'v', project: `q${i % 50}` }, spec: { kind: 'TextVariable', spec: { name: 'v', value: 'x' } } },
    ],
    () => ['POST', '/api/auth/providers/native/login', { login: 'mallory', password: 'wrong' }],
    (i) => ['POST', '/api/auth/providers/native/login', { login: `ghost${i}`, password: 'wrong' }],
  ];
  // at least `ms`, and on until the flood is big enough to tell counting from recording (a busy
  // machine answers fewer requests in the same time), for at most a minute
  const start = Date.now();
  const going = () => {
    const elapsed = Date.now() - start;
    return elapsed < 60_000 && (elapsed < ms || !enough(result.denied + result.loginsFailed + 1, elapsed));
  };
  const result = { denied: 0, loginsFailed: 0, other: [] as string[], writeMs: [] as number[], elapsedMs: 0 };
  let n = 0;
  const worker = async () => {
    while (going()) {
      const i = n++;
      const [method, path, body] = shapes[i % shapes.length](i);
      const r = await s.api(method, path, body, path.startsWith('/api/auth') ? {} : who);
      if (r.status === 403) result.denied++;
      else if (path.startsWith('/api/auth') && (r.status === 400 || r.status === 429)) result.loginsFailed++;
      else result.other.push(`${method} ${path}: ${r.status} ${r.text}`);
    }
  };
  const writer = async () => {
    for (let i = 0; going(); i++) {
      const t = performance.now();
      const r = await s.api('POST', '/api/v1/projects/p/dashboards', dashboard(`w${i}-${randomBytes(3).toString('hex')}`), admin);
      expect(r.status, r.text).to.equal(200);
      result.writeMs.push(performance.now() - t);
    }
  };
  await Promise.all([...Array.from({ length: workers }, worker), writer()]);
  result.elapsedMs = Date.now() - start;
  return result;
}

/** Runs the flood on `s` and checks what the audit log holds afterwards; returns the entries it caused. */
async function floodAndCheck(s: Server, ms: number): Promise<Entry[]> {
  const admin = bearer(await loginAdmin(s));
  expect((await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} }, admin)).status).to.equal(200);
  await signUp(s, 'mallory');
  const mallory = bearer(await login(s, 'mallory'));
  const before = (await entriesAfter(s, admin, 0)).at(-1)!.id as number;
  // the first refusal is in the log when its 403 arrives
  expect((await s.api('GET', '/api/v1/projects/p/dashboards/first', undefined, mallory)).status).to.equal(403);
  const [first] = await entriesAfter(s, admin, before);
  expect(first).to.include({ action: 'denied', user: 'mallory', deniedAction: 'read', kind: 'Dashboard', project: 'p', name: 'first' });
  expect(first).to.not.have.property('count');

  // a user has at most 16 kinds of denial counted apart plus one for the rest; an address three
  // kinds of failed login here: each written once at first, then once per window
  const boundFor = (elapsedMs: number) => (17 + 3) * (1 + Math.ceil(elapsedMs / 1000 / WINDOW_S) + 1);
  const f = await flood(s, mallory, admin, ms, (refusals, elapsed) => refusals > 4 * boundFor(elapsed + 1000));
  expect(f.other, 'every flood request is refused').to.deep.equal([]);
  const refusals = f.denied + f.loginsFailed + 1;
  // every refusal is accounted for once the last window has ended
  const caused = (await waitFor(
    'the counted refusals to be written',
    async () => {
      const es = (await entriesAfter(s, admin, before)).filter((e) => e.action === 'denied' || e.action === 'login-failed');
      return total(es) === refusals ? es : undefined;
    },
    10_000,
    100,
  ))!;
  const bound = boundFor(f.elapsedMs);
  expect(caused.length, `${caused.length} entries for ${refusals} refusals`).to.be.at.most(bound);
  expect(refusals, 'a flood: recording each refusal would far exceed the bound').to.be.above(4 * bound);
  const counted = caused.filter((e) => e.count !== undefined);
  expect(counted.length).to.be.above(0);
  for (const e of counted) {
    expect(e.count).to.be.a('number').above(0);
    expect(Date.parse(e.firstTime)).to.be.at.most(Date.parse(e.lastTime));
    expect(Date.parse(e.lastTime)).to.be.at.most(Date.parse(e.time));
  }
  // reading any dashboard of p: one kind of denial, the names (which differed) left out
  const reads = counted.filter((e) => e.action === 'denied' && e.deniedAction === 'read' && e.kind === 'Dashboard' && e.project === 'p');
  expect(
    reads.length,
    JSON.stringify(caused.map((e) => [e.action, e.deniedAction, e.kind, e.project, e.name, e.user, e.count])),
  ).to.be.above(0);
  expect(
    reads.some((e) => e.name === undefined && e.count > 1),
    'a window of reads of several names',
  ).to.equal(true);
  expect(
    counted.find((e) => e.action === 'login-failed' && e.reason === 'too many failed logins (429)'),
    'the rate-limited logins',
  ).to.include({ source: '127.0.0.1' });
  // the admin's writes went on at their pace
  const sorted = [...f.writeMs].sort((a, b) => a - b);
  expect(sorted.length, 'writes during the flood').to.be.above(10);
  expect(sorted[sorted.length >> 1], 'median write (ms)').to.be.below(250);
  expect(sorted.at(-1), 'slowest write (ms)').to.be.below(3000);
  return caused;
}

describe('audit volume: one caller flooding refused requests (VOLUME-01)', function () {
  this.timeout(90_000);

  it('VOLUME-01: on LevelDB, a flood of denials and failed logins adds a bounded number of entries, counts in them add up to every refusal; the watch, dashctl and the audit file show the same', async () => {
    const dir = tempDir('dashplane-volume-');
    const file = join(dir.path, 'audit.jsonl');
    const s = await start(join(dir.path, 'data'), { DASHPLANE_AUDIT_FILE: file });
    const admin = bearer(await loginAdmin(s));
    const w = await WatchStream.must(`${s.url}/api/v1/audit?watch=true&user=mallory`, admin);
    try {
      const caused = await floodAndCheck(s, 3000);
      const mine = caused.filter((e) => e.user === 'mallory');
      await waitFor('the watch to show them', () => w.changes().some((e) => (e.object as Entry).id === mine.at(-1)!.id));
      expect(
        w
          .changes()
          .map((e) => e.object as Entry)
          .filter((e) => e.id >= mine[0].id),
      ).to.deep.equal(mine);
      const shipped = await waitFor('the file to hold them', () => {
        const lines = existsSync(file)
          ? readFileSync(file, 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as Entry)
          : [];
        return lines.some((l) => l.id === caused.at(-1)!.id) ? new Map(lines.map((l) => [l.id, l])) : undefined;
      });
      for (const e of caused) expect(shipped!.get(e.id), `entry ${e.id} shipped`).to.deep.equal({ kind: e.kind ?? 'AuditEvent', ...e });
      // dashctl's table says how many an entry stands for
      const cfg = join(dir.path, 'dashctl.json');
      // with the admin's token: the flood's failed logins have this address rate-limited
      const signedIn = await dashctl(cfg, ['login', s.url, '--token-stdin'], { input: admin.authorization.slice('Bearer '.length) });
      expect(signedIn.code, show(signedIn)).to.equal(0);
      const table = await dashctl(cfg, ['audit', '--user', 'mallory', '--action', 'denied', '--limit', '1000']);
      expect(table.code, show(table)).to.equal(0);
      const counts = [...table.stdout.matchAll(/denied \w+ ×(\d+)/g)].map((m) => Number(m[1]));
      expect(counts.reduce((a, b) => a + b, 0)).to.equal(total(mine.filter((e) => e.action === 'denied' && e.count !== undefined)));
    } finally {
      await w.close();
      await stopChild(s.process.child);
      dir.remove();
    }
  });

  describe('on PostgreSQL', () => {
    needsPrograms('postgresql');
    let pg: TestPostgres;
    let db: { url: string; drop(): Promise<void> };
    before(async () => {
      pg = await sharedPostgres();
      db = await pg.createDatabase();
    });
    after(async () => {
      await db?.drop();
      await pg?.stop();
    });

    it('VOLUME-01: on PostgreSQL the same flood adds a bounded number of entries; counts add up to every refusal', async () => {
      const dir = tempDir('dashplane-volume-');
      const s = await start(join(dir.path, 'data'), {
        DASHPLANE_DATABASE_POSTGRES_URL: db.url,
        DASHPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      });
      try {
        await floodAndCheck(s, 2000);
      } finally {
        await stopChild(s.process.child);
        dir.remove();
      }
    });
  });
});
