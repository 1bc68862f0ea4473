import { expect } from 'chai';
import { tempDir } from '../../test/helpers/server.js';
import { waitFor } from '../../test/helpers/wait.js';
import type { AuditDraft, AuditEntry } from '../storage/audit-types.js';
import { LevelStore } from '../storage/level-store.js';
import { AuditCoalescer } from './coalescer.js';

const WINDOW_MS = 300;

let seq = 0;
const denial = (user: string, project: string, name = 'd', kind = 'Dashboard'): AuditDraft => ({
  time: new Date().toISOString(),
  action: 'denied',
  user,
  deniedAction: 'read',
  kind,
  project,
  name,
  reason: `user "${user}" may not read ${kind} in project "${project}"; ask an owner or administrator for a role that grants it`,
  requestId: `r${++seq}`,
  source: '127.0.0.1',
});
const failedLogin = (source: string, user = '-', reason = 'no such user'): AuditDraft => ({
  time: new Date().toISOString(),
  action: 'login-failed',
  user,
  provider: 'native',
  reason,
  requestId: `r${++seq}`,
  source,
});

/** How many refusals the entries stand for. */
const total = (entries: readonly AuditEntry[]) => entries.reduce((n, e) => n + (e.count ?? 1), 0);

describe('AuditCoalescer: repeated refusals become one entry with a count per window (VOLUME-01, real LevelStore)', function () {
  this.timeout(20_000);
  const dir = tempDir();
  let store: LevelStore;
  let warnings: unknown[];
  const coalescer = (limits?: { perCaller: number; inAll: number }, windowMs = WINDOW_MS) =>
    new AuditCoalescer({ append: (e) => store.appendAudit(e), windowMs, warn: (e) => warnings.push(e), ...(limits ? { limits } : {}) });
  /** The entries written while `fn` ran, and by stopping `c` after it (which writes what it still counts). */
  async function writtenBy(fn: () => Promise<void>, c?: AuditCoalescer): Promise<AuditEntry[]> {
    const from = await store.lastAuditId();
    await fn();
    if (c) await c.stop();
    return (await store.listAudit({ afterId: from, limit: 100_000 })).entries;
  }

  before(async () => {
    store = new LevelStore(dir.path);
    await store.open();
  });
  beforeEach(() => (warnings = []));
  after(async () => {
    await store.close();
    dir.remove();
  });

  it('the first refusal is written at once; its repeats in the window become one entry with count, first and last time, and the fields they had alike', async () => {
    const c = coalescer();
    const from = await store.lastAuditId();
    const first = denial('mallory', 'p');
    await c.record([first]);
    const now = (await store.listAudit({ afterId: from, limit: 10 })).entries;
    expect(
      now.map(({ id: _, ...e }) => e),
      'the first is written before record resolves',
    ).to.deep.equal([first]);
    const repeats = Array.from({ length: 50 }, (_, i) => denial('mallory', 'p', i % 2 ? 'd' : 'e'));
    for (const d of repeats) await c.record([d]);
    expect(await store.lastAuditId(), 'nothing more until the window ends').to.equal(now[0].id);
    const counted = (await waitFor(
      'the window to end',
      async () => (await store.listAudit({ afterId: now[0].id, limit: 10 })).entries[0],
    ))!;
    expect(counted).to.include({
      action: 'denied',
      user: 'mallory',
      deniedAction: 'read',
      kind: 'Dashboard',
      project: 'p',
      count: 50,
      firstTime: repeats[0].time,
      lastTime: repeats[49].time,
      source: '127.0.0.1',
      reason: first.reason,
    });
    expect(counted, 'names and request ids differed').to.not.have.any.keys('name', 'requestId');
    expect(Date.parse(counted.time)).to.be.at.least(Date.parse(repeats[49].time));
    await c.stop();
  });

  it('a flood that goes on: one entry per window; after a window without any, the next refusal is written at once again', async () => {
    const c = coalescer();
    const entries = await writtenBy(async () => {
      const end = Date.now() + 4 * WINDOW_MS;
      let n = 0;
      while (Date.now() < end) {
        await c.record([denial('flood', 'p')]);
        n++;
        await new Promise((r) => setImmediate(r));
      }
      await waitFor(
        'the last window to be written',
        async () => total((await store.listAudit({ user: 'flood', limit: 1000 })).entries) === n,
      );
      await waitFor('a window without refusals to end the burst', () => c.counting === 0);
      const before = await store.lastAuditId();
      await c.record([denial('flood', 'p')]);
      expect(await store.lastAuditId(), 'written at once after a quiet window').to.equal(before + 1);
    }, c);
    const mine = entries.filter((e) => e.user === 'flood');
    expect(mine.length, mine.map((e) => e.count ?? 1).join(' ')).to.be.within(3, 8);
    expect(mine[0].count, 'the first alone').to.equal(undefined);
    expect(mine[mine.length - 1].count, 'the one after the quiet window alone').to.equal(undefined);
  });

  it('one user cycling through projects, kinds and names: at most perCaller kinds counted apart, the rest together; every refusal counted', async () => {
    const c = coalescer({ perCaller: 4, inAll: 1000 });
    let n = 0;
    const entries = await writtenBy(async () => {
      for (let i = 0; i < 500; i++, n++) await c.record([denial('cycler', `p${i}`, `n${i}`, i % 3 ? 'Dashboard' : 'Datasource')]);
    }, c);
    expect(total(entries)).to.equal(n);
    // 4 kinds apart, each written at once then counted; one tally for the rest, also written first, then counted
    expect(entries.length, JSON.stringify(entries.map((e) => [e.project, e.count]))).to.be.at.most(4 * 2 + 2);
    const together = entries.find((e) => e.count !== undefined && e.project === undefined)!;
    expect(together, 'the rest in one entry').to.include({ user: 'cycler', action: 'denied', deniedAction: 'read' });
    expect(together).to.not.have.any.keys('kind', 'project', 'name', 'reason');
  });

  it('many callers at once: at most inAll tallies; the others counted together under user "*"', async () => {
    const c = coalescer({ perCaller: 4, inAll: 10 });
    let n = 0;
    const entries = await writtenBy(async () => {
      for (let round = 0; round < 5; round++) for (let u = 0; u < 40; u++, n++) await c.record([denial(`u${u}`, 'p')]);
    }, c);
    expect(total(entries)).to.equal(n);
    expect(entries.length).to.be.at.most(2 * 11);
    expect(entries.some((e) => e.user === '*' && (e.count ?? 0) > 1)).to.equal(true);
  });

  it('failed logins are counted per address (and login name and reason); other actions are written at once', async () => {
    const c = coalescer();
    const entries = await writtenBy(async () => {
      for (let i = 0; i < 30; i++) await c.record([failedLogin('10.0.0.1'), failedLogin('10.0.0.2', 'admin', 'wrong password')]);
      await c.record([{ time: new Date().toISOString(), action: 'login', user: 'admin', provider: 'native', source: '10.0.0.2' }]);
      await c.record([{ time: new Date().toISOString(), action: 'login', user: 'admin', provider: 'native', source: '10.0.0.2' }]);
    }, c);
    const line = (e: AuditEntry) => `${e.action} ${e.user} ${e.source} ${e.reason ?? ''} ${e.count ?? 1}`;
    expect(entries.map(line).sort()).to.deep.equal(
      [
        'login-failed - 10.0.0.1 no such user 1',
        'login-failed admin 10.0.0.2 wrong password 1',
        'login admin 10.0.0.2  1',
        'login admin 10.0.0.2  1',
        'login-failed - 10.0.0.1 no such user 29',
        'login-failed admin 10.0.0.2 wrong password 29',
      ].sort(),
    );
  });

  it('stop writes what is still counted; a window of 0 writes every refusal', async () => {
    const c = coalescer(undefined, 60_000);
    const counted = await writtenBy(async () => {
      for (let i = 0; i < 10; i++) await c.record([denial('stopper', 'p')]);
    }, c);
    expect(counted.map((e) => e.count ?? 1)).to.deep.equal([1, 9]);
    const every = coalescer(undefined, 0);
    const all = await writtenBy(async () => {
      for (let i = 0; i < 10; i++) await every.record([denial('each', 'p')]);
    }, every);
    expect(all.map((e) => e.count ?? 1)).to.deep.equal(Array(10).fill(1));
    expect(warnings).to.deep.equal([]);
  });
});
