/**
 * The LevelDB data directory (issue 33): REL-16, a full disk (a small tmpfs) that is freed again:
 * the server answers 507 while full, keeps reading, logs LevelDB's own error once per episode, and
 * writes again without a restart, losing no acknowledged write and showing no refused one; REL-17,
 * the directory is 0700 and every file in it 0600, on a new directory and on one an older server
 * left readable. Both run the server as users do (the bin, in a child process).
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, readdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { callJson, tempDir, type ApiResponse } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const req = (base: string, method: string, path: string, body?: unknown): Promise<ApiResponse> => callJson(base, method, path, body);
const panel = (text: string) => ({ kind: 'Panel', spec: { display: { name: 'p' }, plugin: { kind: 'Markdown', spec: { text } } } });
const dash = (name: string, title: string, text = 'hi') => ({
  kind: 'Dashboard',
  metadata: { name },
  spec: {
    display: { name: title },
    duration: '1h',
    panels: { a: panel(text) },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }],
  },
});

async function ok(r: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const res = await r;
  expect(res.status, res.text).to.equal(status);
  return res;
}

/**
 * What was acknowledged and refused: each dashboard has one writer (this test, one request at a
 * time), so its stored state must be its last acknowledged write, and no refused write may show.
 */
class Ledger {
  /** name -> title of the last acknowledged create or update; null once a delete was acknowledged */
  readonly acked = new Map<string, string | null>();
  readonly refused: { name: string; title?: string; what: string; status: number }[] = [];

  /** Sends a write and books its answer: 200 acknowledged, 507 refused, anything else fails the test. */
  async write(base: string, what: 'create' | 'update' | 'delete', name: string, title?: string, text?: string): Promise<number> {
    const r =
      what === 'delete'
        ? await req(base, 'DELETE', `/api/v1/projects/disk/dashboards/${name}`)
        : await req(
            base,
            what === 'create' ? 'POST' : 'PUT',
            `/api/v1/projects/disk/dashboards${what === 'create' ? '' : `/${name}`}`,
            dash(name, title!, text),
          );
    if (r.status === (what === 'delete' ? 204 : 200)) this.acked.set(name, what === 'delete' ? null : title!);
    else {
      expect(r.status, `${what} ${name}: ${r.text}`).to.equal(507);
      expect(r.body.message, 'a clear message').to.match(/disk is full/);
      this.refused.push({ name, ...(title !== undefined ? { title } : {}), what, status: r.status });
    }
    return r.status === 204 ? 200 : r.status;
  }

  check(stored: Map<string, string>): void {
    for (const [name, title] of this.acked) {
      if (title === null) expect(stored.has(name), `${name} was deleted (acknowledged)`).to.equal(false);
      else expect(stored.get(name), `acknowledged ${name}`).to.equal(title);
    }
    for (const r of this.refused) {
      if (r.what === 'create' && !this.acked.has(r.name)) expect(stored.has(r.name), `refused create of ${r.name}`).to.equal(false);
      if (r.what === 'update') expect(stored.get(r.name), `refused update of ${r.name}`).to.not.equal(r.title);
      if (r.what === 'delete' && this.acked.get(r.name)) expect(stored.has(r.name), `refused delete of ${r.name}`).to.equal(true);
    }
  }
}

const stored = async (base: string) =>
  new Map(
    (
      (await ok(req(base, 'GET', '/api/v1/projects/disk/dashboards'))).body as {
        metadata: { name: string };
        spec: { display: { name: string } };
      }[]
    ).map((o) => [o.metadata.name, o.spec.display.name]),
  );

describe('the data directory: a full disk and its recovery, private modes', function () {
  this.timeout(120_000);

  it('REL-16: a full tmpfs answers 507 (creates, updates, deletes) while reads go on; once space is freed writes and health work again without a restart, LevelDB’s error is logged once per episode, and a restart finds every acknowledged write and no refused one', async function () {
    const mnt = tempDir('dashplane-tmpfs-');
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', mnt.path], { stdio: 'pipe' });
    } catch (e) {
      console.log(`    (skipped: cannot mount a tmpfs here, which needs root or CAP_SYS_ADMIN: ${(e as Error).message.split('\n')[0]})`);
      mnt.remove();
      this.skip();
    }
    const dataDir = join(mnt.path, 'data');
    const filler = join(mnt.path, 'filler');
    let srv: ServerProcess | undefined;
    try {
      srv = await spawnServer({ dataDir });
      await ok(req(srv.url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'disk' }, spec: {} }));
      const ledger = new Ledger();
      let n = 0;
      // random text: LevelDB cannot compress it, so the disk fills when the arithmetic says
      const big = () => randomBytes(24 * 1024).toString('base64');
      for (let i = 0; i < 3; i++) expect(await ledger.write(srv.url, 'create', `d${n++}`, `t${n}`, big())).to.equal(200);
      // Episodes leaving different room fail at the two places LevelDB writes: its log (the write
      // itself), then a table the full log becomes (a background error LevelDB keeps answering).
      for (const [episode, roomMiB, failedFile] of [
        [1, 2, 'log'],
        [2, 6, 'ldb'],
      ] as const) {
        const base = srv.url;
        const free = statfsSync(mnt.path);
        writeFileSync(filler, Buffer.alloc(Math.max(0, free.bavail * free.bsize - roomMiB * 2 ** 20)));
        let status = 200;
        for (let k = 0; status === 200 && k < 2000; k++) status = await ledger.write(base, 'create', `d${n++}`, `t${n}`, big());
        expect(status, `episode ${episode}: the disk never filled`).to.equal(507);
        // every kind of write is refused alike, also one that only deletes
        expect(await ledger.write(base, 'update', 'd0', `upd-${episode}`, big())).to.equal(507);
        expect(await ledger.write(base, 'delete', 'd1')).to.equal(507);
        expect(await ledger.write(base, 'create', `d${n++}`, 'small')).to.equal(507);
        const health = await req(base, 'GET', '/api/v1/health');
        expect([health.status, health.body.database], health.text).to.deep.equal([503, false]);
        // reads go on while full, and while the store re-opens
        const readFailures: string[] = [];
        let reading = true;
        const reader = (async () => {
          while (reading) {
            for (const path of ['/api/v1/projects/disk/dashboards/d0', '/api/v1/projects/disk/dashboards?metadata_only=true']) {
              const r = await req(base, 'GET', path);
              if (r.status !== 200) readFailures.push(`${path}: ${r.status} ${r.text}`);
            }
          }
        })();
        rmSync(filler);
        // no restart: the next writes succeed once the store has re-opened (within seconds)
        await waitFor(
          `episode ${episode}: a write to succeed after space was freed`,
          async () => (await ledger.write(base, 'create', `d${n++}`, `t${n}`)) === 200,
          15_000,
          100,
        );
        reading = false;
        await reader;
        expect(readFailures, 'reads while full and while re-opening').to.deep.equal([]);
        await ok(req(base, 'GET', '/api/v1/health'));
        expect(await ledger.write(base, 'update', 'd0', `after-${episode}`)).to.equal(200);
        ledger.check(await stored(base));
        // LevelDB's own message, once (not once per refused request), and the recovery
        const lines = srv.output().split('\n');
        const failures = lines.filter((l) => l.includes('LevelDB could not write')).map((l) => JSON.parse(l));
        expect(failures.length, srv.output()).to.equal(1);
        expect(failures[0].level).to.equal(50);
        expect(failures[0].err.message).to.match(new RegExp(`\\.${failedFile}: No space left on device`));
        expect(lines.filter((l) => l.includes('writes work again')).length).to.equal(1);
        await stopChild(srv.child);
        expect(await srv.exited).to.equal(0);
        // a restart finds exactly what was acknowledged
        srv = await spawnServer({ dataDir });
        ledger.check(await stored(srv.url));
      }
      expect(await ledger.write(srv.url, 'delete', 'd1')).to.equal(200);
      expect(ledger.refused.length).to.be.at.least(8);
    } finally {
      if (srv) await stopChild(srv.child);
      execFileSync('umount', [mnt.path]);
      mnt.remove();
    }
  });

  it('REL-17: the data directory is 0700 and every file in it 0600, on a new directory and on one an older server left readable (narrowed at start, with a log line)', async () => {
    const dir = tempDir();
    const dataDir = join(dir.path, 'new', 'data');
    const modes = () =>
      Object.fromEntries(
        [dataDir, ...readdirSync(dataDir).map((f) => join(dataDir, f))].map((p) => [
          p.slice(dataDir.length) || '/',
          (statSync(p).mode & 0o777).toString(8),
        ]),
      );
    const expected = () => Object.fromEntries(Object.keys(modes()).map((p) => [p, p === '/' ? '700' : '600']));
    let srv: ServerProcess | undefined;
    try {
      srv = await spawnServer({
        dataDir,
        env: {
          DASHPLANE_AUDIT_FILE: join(dataDir, 'audit.jsonl'),
          DASHPLANE_SECURITY_ENABLE_AUTH: 'true',
          DASHPLANE_ADMIN_USER: 'admin',
          DASHPLANE_ADMIN_PASSWORD: 'admin-password',
        },
      });
      const login = await ok(req(srv.url, 'POST', '/api/auth/providers/native/login', { login: 'admin', password: 'admin-password' }));
      const auth = { authorization: `Bearer ${login.body.access_token}` };
      await ok(callJson(srv.url, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'disk' }, spec: {} }, auth));
      for (let i = 0; i < 20; i++)
        await ok(
          callJson(srv.url, 'POST', '/api/v1/projects/disk/dashboards', dash(`d${i}`, 't', randomBytes(30_000).toString('base64')), auth),
        );
      await waitFor('the audit file', () => readdirSync(dataDir).includes('audit.jsonl'));
      expect(Object.keys(modes())).to.include.members(['/', '/CURRENT', '/LOCK', '/LOG', '/encryption.key', '/audit.jsonl']);
      expect(modes()).to.deep.equal(expected());
      await stopChild(srv.child);
      expect(modes(), 'after the server stopped').to.deep.equal(expected());
      // as an older dashplane (or a wide umask) left it
      chmodSync(dataDir, 0o755);
      for (const f of readdirSync(dataDir)) chmodSync(join(dataDir, f), 0o644);
      srv = await spawnServer({ dataDir });
      expect(modes()).to.deep.equal(expected());
      expect(srv.output()).to.match(/the data directory \S+ was open to other users \(mode 755\): it is now 0700 and its files 0600/);
      expect((await req(srv.url, 'GET', '/api/v1/health')).status).to.equal(200);
    } finally {
      if (srv) await stopChild(srv.child);
      dir.remove();
    }
  });
});
