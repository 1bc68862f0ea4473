/**
 * What bounds a watch stream (docs/api.md §6, docs/security.md COST-03, STREAM-01, STREAM-02,
 * VOLUME-02): a client that falls behind is cut off with a final ERROR and resumes with `since`
 * (a server with a 160 MB heap lives through a stream of large updates); a stream ends when the
 * credential that opened it expires; a resumed watch never skips a deletion silently; a user
 * holds a bounded number of streams.
 */
import { expect } from 'chai';
import http from 'node:http';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { bearer, login, loginAdmin, signUp, startAuthServer, type Tokens } from './helpers/auth.js';
import { spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { callJson, startTestServer, tempDir, type ApiResponse, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { WatchStream, type WatchEvent } from './helpers/watch.js';

const project = (name: string) => ({ kind: 'Project', metadata: { name }, spec: {} });
const folder = (name: string) => ({ kind: 'Folder', metadata: { name }, spec: { display: { name }, items: [] } });
const dash = (name: string, title = name) => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: { display: { name: title }, duration: '1h', panels: {}, layouts: [] },
});
const binding = (name: string, role: string, user: string) => ({
  kind: 'RoleBinding',
  metadata: { name },
  spec: { role, subjects: [{ kind: 'User', name: user }] },
});

async function ok(r: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const res = await r;
  expect(res.status, res.text).to.equal(status);
  return res;
}

/** A dashboard of about `kb` KB: many panels, as large real dashboards are. */
function bigDashboard(name: string, version: number, kb: number) {
  const panels: Record<string, unknown> = {};
  for (let i = 0; i * 0.82 < kb; i++) {
    panels[`p${i}`] = {
      kind: 'Panel',
      spec: {
        display: { name: `panel ${i} of version ${version}` },
        plugin: { kind: 'TimeSeriesChart', spec: { legend: { position: 'bottom', mode: 'table', values: ['mean', 'max'] } } },
        queries: [
          {
            kind: 'TimeSeriesQuery',
            spec: {
              plugin: {
                kind: 'PrometheusTimeSeriesQuery',
                spec: { query: `sum by (mode) (rate(node_cpu_seconds_total{instance="$instance",panel="${i}"}[5m]))`.repeat(6) },
              },
            },
          },
        ],
      },
    };
  }
  return { kind: 'Dashboard', metadata: { name }, spec: { display: { name: `${name} v${version}` }, duration: '1h', panels, layouts: [] } };
}

/**
 * A watch read with node:http, so a test decides how fast: `pauseMs` after each chunk (a slow
 * client), or `paused` (a client that never reads, until `resume`).
 */
class RawWatch {
  readonly events: WatchEvent[] = [];
  ended = false;
  private buf = '';
  private res?: http.IncomingMessage;

  private constructor(private readonly o: { pauseMs?: number; paused?: boolean }) {}

  static open(url: string, o: { pauseMs?: number; paused?: boolean }): Promise<RawWatch> {
    const w = new RawWatch(o);
    return new Promise((resolve, reject) => {
      const req = http.get(url, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch answered ${res.statusCode}`));
        w.res = res;
        if (o.paused) res.pause();
        res.on('data', (chunk: Buffer) => w.take(chunk));
        res.on('end', () => (w.ended = true));
        res.on('close', () => (w.ended = true));
        res.on('error', () => (w.ended = true));
        resolve(w);
      });
      req.on('error', reject);
    });
  }

  resume(): void {
    this.res!.resume();
  }

  error(): WatchEvent | undefined {
    return this.events.find((e) => e.type === 'ERROR');
  }

  close(): void {
    this.res?.destroy();
  }

  private take(chunk: Buffer): void {
    this.buf += chunk.toString();
    for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
      this.events.push(JSON.parse(this.buf.slice(0, nl)) as WatchEvent);
      this.buf = this.buf.slice(nl + 1);
    }
    // a slow client: takes a chunk, then waits before taking the next (this simulates its speed; nothing waits for a condition)
    if (this.o.pauseMs) {
      this.res!.pause();
      setTimeout(() => this.res!.resume(), this.o.pauseMs);
    }
  }
}

/** name -> version after applying a stream's ADDED/MODIFIED/DELETED events in order. */
function stateOf(events: readonly WatchEvent[], into = new Map<string, number>()): Map<string, number> {
  for (const e of events) {
    if (e.type === 'ADDED' || e.type === 'MODIFIED') into.set(e.object!.metadata.name, e.object!.metadata.version);
    else if (e.type === 'DELETED') into.delete(e.object!.metadata.name);
  }
  return into;
}

describe('watch limits (docs/api.md §6)', function () {
  this.timeout(60_000);

  describe('a server with a 160 MB heap (its own process)', () => {
    let srv: ServerProcess | undefined;
    const dir = tempDir();
    after(async () => {
      if (srv) await stopChild(srv.child);
      dir.remove();
    });

    it('COST-03: 400 updates of a 250 KB dashboard with a watcher reading as events come, a slow one and one that never reads: the server lives; the slow one is cut off with a final ERROR, resumes with since and ends with the list; the never-reading one is ended', async function () {
      this.timeout(180_000);
      srv = await spawnServer({
        dataDir: dir.path,
        command: [process.execPath, ['--max-old-space-size=160', join(PACKAGE_ROOT, 'dist', 'src', 'bin', 'dashplane.js')]],
      });
      const url = srv.url;
      const api = (method: string, path: string, body?: unknown) => callJson(url, method, path, body);
      await ok(api('POST', '/api/v1/projects', project('big')));
      const first = bigDashboard('huge', 0, 250);
      expect(JSON.stringify(first).length).to.be.within(240_000, 270_000);
      await ok(api('POST', '/api/v1/projects/big/dashboards', first));
      const path = '/api/v1/projects/big/dashboards?watch=true';
      const reader = await WatchStream.must(url + path);
      const slow = await RawWatch.open(url + path, { pauseMs: 40 });
      const never = await RawWatch.open(url + path, { paused: true });
      let peakHeap = 0;
      const heap = async () => {
        const m = /^dashplane_nodejs_heap_size_used_bytes (\d+)/m.exec((await api('GET', '/metrics')).text);
        peakHeap = Math.max(peakHeap, Number(m?.[1] ?? 0));
      };
      try {
        for (let v = 1; v <= 400; v++) {
          const r = await callJson(url, 'PUT', '/api/v1/projects/big/dashboards/huge', bigDashboard('huge', v, 250)).catch((e: Error) => ({
            status: 0,
            text: `${e.message}\n${srv!.output().slice(-2000)}`,
          }));
          expect(r.status, `update ${v}: ${r.text}`).to.equal(200);
          if (v % 50 === 0) await heap();
        }
        expect(srv.child.exitCode, srv.output().slice(-2000)).to.equal(null);
        await ok(api('GET', '/api/v1/health'));
        const last = (await ok(api('GET', '/api/v1/projects/big/dashboards?metadata_only=true'))).body as {
          metadata: { name: string; version: number };
        }[];
        const listed = new Map(last.map((o) => [o.metadata.name, o.metadata.version]));
        expect(listed.get('huge')).to.equal(400);

        /** A stream's state, resumed after its final ERROR (if any) until it holds the last version. */
        const converge = async (events: WatchEvent[], what: string) => {
          const state = stateOf(events.filter((e) => e.type !== 'ERROR'));
          const end = events.find((e) => e.type === 'ERROR');
          if (end) {
            expect(end.object, `${what}: ${JSON.stringify(end)}`).to.include({ kind: 'Status', code: 410, reason: 'Gone' });
            expect(end.object!.message).to.match(/fell behind.*watch again with since=\d+/);
            expect(end.revision, `${what}: the revision to resume from`).to.be.a('number');
            const resumed = await WatchStream.must(`${url}${path}&since=${end.revision}`);
            await resumed.waitForEvent(`${what}: the last version`, (e) => e.object?.metadata?.version === 400, 30_000);
            stateOf(resumed.events, state);
            await resumed.close();
          }
          expect([...state], what).to.deep.equal([...listed]);
          return end;
        };
        // the reader keeps up, or (on a busy machine) was cut off like the slow one and resumed
        await reader.waitForEvent(
          'the last version, or a final ERROR',
          (e) => e.type === 'ERROR' || e.object?.metadata?.version === 400,
          60_000,
        );
        await converge(reader.events, 'the reader');
        // the slow one took its lines at its own pace: its stream ended with the ERROR
        await waitFor('the slow watcher to reach its end', () => slow.ended, 120_000);
        expect(await converge(slow.events, 'the slow watcher'), 'the slow watcher was cut off').to.not.equal(undefined);
        // the one that never read was ended: reading now, it gets its end (or the connection was closed)
        never.resume();
        await waitFor('the never-reading watcher to end', () => never.ended, 60_000);
        const end = never.error();
        if (end) expect(end.object).to.include({ code: 410, reason: 'Gone' });
        expect(never.events.filter((e) => e.type !== 'ERROR').length, 'it never got every update').to.be.below(400);
        await heap();
        expect(srv.child.exitCode).to.equal(null);
        expect(peakHeap, 'heap used (bytes)').to.be.below(150 * 1024 * 1024);
        await ok(api('GET', '/api/v1/health'));
      } finally {
        await reader.close();
        slow.close();
        never.close();
      }
    });
  });

  describe('streams end with their credential', () => {
    let s: TestServer;
    const opened: WatchStream[] = [];
    const watch = async (path: string, headers: Record<string, string>) => {
      const w = await WatchStream.must(s.url + path, headers);
      opened.push(w);
      return w;
    };
    /** An administrator's fresh token (access tokens here live 2 s). */
    const asAdmin = async () => bearer(await loginAdmin(s));
    const expOf = (t: Tokens) => JSON.parse(Buffer.from(t.access_token.split('.')[1], 'base64url').toString()).exp * 1000;
    /** The stream ended at `expiresAt` (not before it; timers fire late, never early) with a final 401 ERROR to resume from. */
    const endedAtExpiry = async (w: WatchStream, expiresAt: number, what: string) => {
      await w.waitEnded(15_000);
      expect(w.endedAt!, `${what}: ended ${w.endedAt! - expiresAt} ms after the expiry`).to.be.at.least(expiresAt - 50);
      const end = w.error();
      expect(end?.object, `${what}: ${JSON.stringify(w.events.slice(-2))}`).to.include({
        kind: 'Status',
        code: 401,
        reason: 'Unauthorized',
      });
      expect(end!.object!.message).to.match(/expired at .*then watch again with since=\d+/);
      expect(end!.revision).to.be.a('number');
      return end!;
    };

    before(async () => {
      s = await startAuthServer({ DASHPLANE_SECURITY_AUTHENTICATION_ACCESS_TOKEN_TTL: '2s', DASHPLANE_WATCH_BOOKMARK_INTERVAL: '1s' });
      await ok(s.api('POST', '/api/v1/projects', project('sp'), await asAdmin()));
      await ok(s.api('POST', '/api/v1/projects/sp/folders', folder('f0'), await asAdmin()));
    });
    after(async () => {
      await Promise.all(opened.splice(0).map((w) => w.close()));
      await s?.stop();
    });

    it("STREAM-01: a watch (by Bearer token or by the session cookies) and an audit watch opened with a JWT access token end at the token's expiry with a final 401 ERROR; resumed with a fresh token, nothing is lost", async () => {
      const t = await loginAdmin(s);
      const [h, p, sig] = t.access_token.split('.');
      const streams = {
        bearer: await watch('/api/v1/projects/sp/folders?watch=true', bearer(t)),
        cookies: await watch('/api/v1/folders?watch=true', { cookie: `jwtPayload=${h}.${p}; jwtSignature=${sig}` }),
        audit: await watch('/api/v1/audit?watch=true', bearer(t)),
      };
      await streams.bearer.waitForEvent('the snapshot', (e) => e.type === 'ADDED');
      const ends = await Promise.all(Object.entries(streams).map(([what, w]) => endedAtExpiry(w, expOf(t), what)));
      expect(ends[2].object!.message, 'the audit watch').to.match(/access token/);
      // the expired token (still within the 30 s of clock skew other requests accept) opens no stream: 401, refresh first
      const stale = (await WatchStream.open(`${s.url}/api/v1/projects/sp/folders?watch=true`, bearer(t))) as {
        status: number;
        text: string;
      };
      expect(stale.status, stale.text).to.equal(401);
      expect(JSON.parse(stale.text).message).to.match(/expired at .*refresh it/);
      // written after the end: a watch resumed from the final event's revision has it
      await ok(
        s.api(
          'PUT',
          '/api/v1/projects/sp/folders/f0',
          { ...folder('f0'), spec: { display: { name: 'after-the-end' }, items: [] } },
          await asAdmin(),
        ),
      );
      const again = await watch(`/api/v1/projects/sp/folders?watch=true&since=${ends[0].revision}`, await asAdmin());
      await again.waitForEvent(
        'the change made after the end',
        (e) => e.type === 'MODIFIED' && e.object?.spec.display.name === 'after-the-end',
      );
    });

    it('STREAM-01: a watch and an audit watch opened with an API token end at its expiry with a final 401 ERROR', async () => {
      const created = await ok(s.api('POST', '/api/v1/user/tokens', { name: 'short-lived', ttl: '3s' }, await asAdmin()));
      const expiresAt = Date.parse(created.body.expiresAt);
      const w = await watch('/api/v1/projects/sp/folders?watch=true', bearer(created.body.token));
      const audit = await watch('/api/v1/audit?watch=true', bearer(created.body.token));
      for (const [what, stream] of [
        ['watch', w],
        ['audit watch', audit],
      ] as const) {
        const end = await endedAtExpiry(stream, expiresAt, what);
        expect(end.object!.message).to.match(/API token/);
      }
    });

    it('STREAM-01: a logout or a revoked API token ends an audit watch with a final 401 ERROR, before any later entry (a lost permission, with a 403)', async () => {
      // access tokens that outlive the test here: each stream ends for the reason under test
      const t = await startAuthServer({ DASHPLANE_WATCH_BOOKMARK_INTERVAL: '1s' });
      try {
        const admin = bearer(await loginAdmin(t));
        const audit = async (headers: Record<string, string>) => {
          const w = await WatchStream.must(`${t.url}/api/v1/audit?watch=true`, headers);
          opened.push(w);
          return w;
        };
        /** After `change`, a write by someone else; `w` ends with `code` before that write's entry. */
        const endsBefore = async (w: WatchStream, change: () => Promise<unknown>, code: number, message: RegExp, marker: string) => {
          await change();
          await ok(t.api('POST', '/api/v1/projects', project(marker), admin));
          await w.waitEnded(5_000);
          expect(w.error()?.object, marker).to.include({ code });
          expect(w.error()!.object!.message, marker).to.match(message);
          expect(JSON.stringify(w.events), marker).to.not.include(marker);
        };
        await signUp(t, 'ada');
        const grant = {
          kind: 'GlobalRoleBinding',
          metadata: { name: 'ada-admin' },
          spec: { role: 'admin', subjects: [{ kind: 'User', name: 'ada' }] },
        };
        await ok(t.api('POST', '/api/v1/globalrolebindings', grant, admin));
        const session = await login(t, 'ada');
        const token = await ok(t.api('POST', '/api/v1/user/tokens', { name: 'auditor', ttl: '1h' }, bearer(session)));
        const byToken = await audit(bearer(token.body.token));
        await endsBefore(
          byToken,
          () => ok(t.api('DELETE', `/api/v1/user/tokens/${token.body.id}`, undefined, bearer(session)), 204),
          401,
          /API token .*revoked/,
          'after-revoke',
        );
        const bySession = await audit(bearer(session));
        await endsBefore(
          bySession,
          () => ok(t.api('GET', '/api/auth/logout', undefined, bearer(session)), 204),
          401,
          /session ended/,
          'after-logout',
        );
        const lasting = await ok(t.api('POST', '/api/v1/user/tokens', { name: 'reader', ttl: '1h' }, bearer(await login(t, 'ada'))));
        const reader = await audit(bearer(lasting.body.token));
        await endsBefore(
          reader,
          () => ok(t.api('DELETE', '/api/v1/globalrolebindings/ada-admin', undefined, admin), 204),
          403,
          /may not read AuditEvent/,
          'after-unbind',
        );
      } finally {
        await t.stop();
      }
    });
  });

  describe('a resumed watch never skips a deletion silently', () => {
    let s: TestServer;
    let admin: Tokens;
    let vera: Tokens;
    const opened: WatchStream[] = [];
    const watch = async (path: string, t: Tokens) => {
      const w = await WatchStream.must(s.url + path, bearer(t));
      opened.push(w);
      return w;
    };
    const rev = () => s.server.store.revision();
    const asAdmin = () => bearer(admin);
    /** A project `name` with two dashboards and a folder, which vera may read. */
    const fill = async (name: string) => {
      await ok(s.api('POST', '/api/v1/projects', project(name), asAdmin()));
      for (const d of ['d1', 'd2']) await ok(s.api('POST', `/api/v1/projects/${name}/dashboards`, dash(d), asAdmin()));
      await ok(s.api('POST', `/api/v1/projects/${name}/folders`, folder('f1'), asAdmin()));
      await ok(s.api('POST', `/api/v1/projects/${name}/rolebindings`, binding('vera-viewer', 'viewer', 'vera'), asAdmin()));
    };
    /** Every deletion of `gone`'s objects of the watched kind arrived, or the stream ended with a 410 ERROR without a revision (list again). */
    const deletionsOrGone = async (w: WatchStream, gone: string, names: string[], what: string) => {
      await w.waitForEvent(
        `${what}: the deletions or a 410`,
        (e) => e.type === 'ERROR' || names.every((n) => w.summary().includes(`DELETED ${gone}/${n}`)),
        10_000,
      );
      const end = w.error();
      if (!end) return;
      expect(end.object, what).to.include({ code: 410, reason: 'Gone' });
      expect(end.revision, `${what}: no revision to resume from`).to.equal(undefined);
      expect(end.object!.message, what).to.match(/watch again without since/);
    };

    before(async () => {
      s = await startAuthServer({ DASHPLANE_WATCH_BOOKMARK_INTERVAL: '1s' });
      admin = await loginAdmin(s);
      await signUp(s, 'vera');
      vera = await login(s, 'vera');
      await fill('keep');
      await ok(s.api('POST', '/api/v1/projects', project('other'), asAdmin()));
      await ok(s.api('POST', '/api/v1/projects/other/dashboards', dash('o1'), asAdmin()));
    });
    after(async () => {
      await Promise.all(opened.splice(0).map((w) => w.close()));
      await s?.stop();
    });

    /** vera reads project `name`, which is deleted (and, if `recreated`, created again). */
    const deletedUnderHer = (name: string, recreated: boolean) => async () => {
      await fill(name);
      const live = {
        dashboards: await watch('/api/v1/dashboards?watch=true', vera),
        folders: await watch('/api/v1/folders?watch=true', vera),
        projects: await watch('/api/v1/projects?watch=true', vera),
      };
      await live.folders.waitForEvent('the snapshot', (e) => e.object?.metadata.project === name);
      const before = await rev();
      await ok(s.api('DELETE', `/api/v1/projects/${name}`, undefined, asAdmin()), 204);
      if (recreated) {
        await ok(s.api('POST', '/api/v1/projects', project(name), asAdmin()));
        await ok(s.api('POST', `/api/v1/projects/${name}/dashboards`, dash('new'), asAdmin()));
      }
      const resumed = {
        dashboards: await watch(`/api/v1/dashboards?watch=true&since=${before}`, vera),
        folders: await watch(`/api/v1/folders?watch=true&since=${before}`, vera),
        projects: await watch(`/api/v1/projects?watch=true&since=${before}`, vera),
      };
      for (const [kind, names] of [
        ['dashboards', ['d1', 'd2']],
        ['folders', ['f1']],
        ['projects', [name]],
      ] as const) {
        for (const [how, w] of [
          ['live', live[kind]],
          ['resumed', resumed[kind]],
        ] as const) {
          await deletionsOrGone(w, kind === 'projects' ? '' : name, [...names], `${how} ${kind}`);
        }
      }
      // the administrator reads every project: the resumed watch delivers the old project's deletions, then the new one
      const all = await watch(`/api/v1/dashboards?watch=true&since=${before}`, admin);
      await all.settle(await rev());
      expect(all.summary()).to.deep.equal([`DELETED ${name}/d1`, `DELETED ${name}/d2`, ...(recreated ? [`ADDED ${name}/new`] : [])]);
    };
    it(
      'STREAM-02: vera reads project "reborn"; it is deleted and created again: her live watches and her watches resumed from before get its deletions or a 410, across projects and in the project list',
      deletedUnderHer('reborn', true),
    );
    it(
      'STREAM-02: vera reads project "gone"; it is deleted: her live watches and her watches resumed from before get its deletions or a 410, across projects and in the project list',
      deletedUnderHer('gone', false),
    );

    it('STREAM-02: no 410 where nothing is skipped: a project created, and deletions in a project vera cannot read, since the revision resumed from', async () => {
      const from = await rev();
      await ok(s.api('POST', '/api/v1/projects', project('brand-new'), asAdmin()));
      await ok(s.api('POST', '/api/v1/projects/brand-new/dashboards', dash('n1'), asAdmin()));
      await ok(s.api('DELETE', '/api/v1/projects/other/dashboards/o1', undefined, asAdmin()), 204);
      await ok(s.api('DELETE', '/api/v1/projects/keep/dashboards/d2', undefined, asAdmin()), 204);
      const w = await watch(`/api/v1/dashboards?watch=true&since=${from}`, vera);
      await w.settle(await rev());
      expect(w.error()).to.equal(undefined);
      expect(w.summary()).to.deep.equal(['DELETED keep/d2']);
    });
  });

  describe('streams per user', () => {
    let s: TestServer;
    const opened: WatchStream[] = [];
    const open = async (path: string, headers: Record<string, string>) => {
      const w = await WatchStream.open(s.url + path, headers);
      if (w instanceof WatchStream) opened.push(w);
      return w;
    };
    after(async () => {
      await Promise.all(opened.splice(0).map((w) => w.close()));
      await s?.stop();
    });

    it('VOLUME-02: past watch.max_streams_per_user (watches and audit watches together, any credential of the user) a watch answers 429 with Retry-After; another user is unaffected; a closed stream frees its slot', async () => {
      s = await startAuthServer({ DASHPLANE_WATCH_MAX_STREAMS_PER_USER: '3', DASHPLANE_WATCH_BOOKMARK_INTERVAL: '2s' });
      const admin = bearer(await loginAdmin(s));
      await ok(s.api('POST', '/api/v1/projects', project('cap'), admin));
      await signUp(s, 'vera');
      await ok(s.api('POST', '/api/v1/projects/cap/rolebindings', binding('vera-viewer', 'viewer', 'vera'), admin));
      const mine = [
        await open('/api/v1/projects/cap/dashboards?watch=true', admin),
        await open('/api/v1/dashboards?watch=true', admin),
        await open('/api/v1/audit?watch=true', admin),
      ];
      for (const w of mine) expect(w).to.be.instanceOf(WatchStream);
      const token = await ok(s.api('POST', '/api/v1/user/tokens', { name: 'more', ttl: '1h' }, admin));
      for (const [path, headers] of [
        ['/api/v1/projects/cap/dashboards?watch=true', admin],
        ['/api/v1/audit?watch=true', admin],
        ['/api/v1/folders?watch=true', bearer(token.body.token)],
      ] as const) {
        const refused = (await open(path, headers)) as { status: number; text: string };
        expect(refused.status, `${path}: ${refused.text}`).to.equal(429);
        expect(JSON.parse(refused.text)).to.deep.include({ reason: 'TooManyRequests' });
        expect(JSON.parse(refused.text).message).to.match(/"admin" already holds 3 open watch streams.*watch\.max_streams_per_user/);
      }
      const raw = await fetch(`${s.url}/api/v1/dashboards?watch=true`, { headers: admin });
      expect(raw.status).to.equal(429);
      expect(raw.headers.get('retry-after')).to.equal('2');
      await raw.text();
      // vera has her own slots
      expect(await open('/api/v1/projects/cap/dashboards?watch=true', bearer(await login(s, 'vera')))).to.be.instanceOf(WatchStream);
      // one of admin's closes: the server frees its slot once it sees the close
      await (mine[0] as WatchStream).close();
      const again = await waitFor('a slot freed by the closed stream', async () => {
        const w = await open('/api/v1/projects/cap/dashboards?watch=true', admin);
        return w instanceof WatchStream ? w : undefined;
      });
      expect(again).to.be.instanceOf(WatchStream);
    });

    it('VOLUME-02: with authentication off the cap holds per client address', async () => {
      await Promise.all(opened.splice(0).map((w) => w.close()));
      await s.stop();
      s = await startTestServer({ env: { DASHPLANE_WATCH_MAX_STREAMS_PER_USER: '2' } });
      await ok(s.api('POST', '/api/v1/projects', project('anon')));
      for (let i = 0; i < 2; i++) expect(await open('/api/v1/projects/anon/dashboards?watch=true', {})).to.be.instanceOf(WatchStream);
      const refused = (await open('/api/v1/dashboards?watch=true', {})) as { status: number; text: string };
      expect(refused.status).to.equal(429);
      expect(JSON.parse(refused.text).message).to.match(/the client address 127\.0\.0\.1 already holds 2/);
    });
  });
});
