import type { AuditAction, AuditDraft } from '../storage/audit-types.js';

/** What a caller can repeat at will, changing nothing: counted rather than written one by one. */
const REPEATABLE: ReadonlySet<AuditAction> = new Set(['denied', 'login-failed']);

/** Kinds of refusal (action, kind, project, reason...) counted apart for one caller at a time; more are counted together. */
const PER_CALLER = 16;
/** Kinds of refusal counted at a time in all; more are counted together, under user `*`. */
const IN_ALL = 10_000;

/** The repetitions of one kind of refusal within a window. */
interface Tally {
  /** Whose share of PER_CALLER it takes: the user of a denial, the address of a failed login. */
  caller: string;
  /** When the window ends (performance.now()). */
  due: number;
  count: number;
  /** The fields every counted entry had alike (a field that differed is left out). */
  alike?: AuditDraft;
  firstTime?: string;
  lastTime?: string;
}

/**
 * Bounds the audit entries a caller can cause by repeating a refused request (issue 33, VOLUME-01):
 * permission denials of one user, failed logins from one address. The first refusal of a kind is
 * written at once, as any entry; the same refusals that follow within `windowMs` are counted, and
 * written as one entry when the window ends: the fields they all had alike, `count` (how many it
 * stands for), `firstTime` and `lastTime`. While they go on, one entry per window; a window without
 * any ends the burst. A caller has at most PER_CALLER kinds counted apart (cycling through names
 * or projects lands in one tally for the caller), and all callers at most IN_ALL, so memory and
 * the entries per window are bounded too. Other actions are written at once, as they come.
 */
export class AuditCoalescer {
  private readonly tallies = new Map<string, Tally>();
  private readonly perCaller = new Map<string, number>();
  private timer?: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly o: {
      append: (entries: AuditDraft[]) => Promise<void>;
      windowMs: number;
      /** Told when the entries of a window cannot be written. */
      warn: (e: unknown) => void;
      limits?: { perCaller: number; inAll: number };
    },
  ) {}

  /** Kinds of refusal being counted now (a burst ends with a window without any). */
  get counting(): number {
    return this.tallies.size;
  }

  /** Writes what must be written now (resolving once it is), and counts the rest. */
  async record(drafts: readonly AuditDraft[]): Promise<void> {
    const now = drafts.filter((d) => !this.counted(d));
    if (now.length) await this.o.append(now);
  }

  /** Writes what is counted, and counts no more (the server is stopping). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.flush(true);
  }

  /** Whether `d` is counted in a tally (else it is to be written now, and may open one). */
  private counted(d: AuditDraft): boolean {
    if (this.stopped || this.o.windowMs <= 0 || !REPEATABLE.has(d.action)) return false;
    const { perCaller, inAll } = this.o.limits ?? { perCaller: PER_CALLER, inAll: IN_ALL };
    let caller = d.action === 'denied' ? `user ${d.user}` : `address ${d.source ?? ''}`;
    let key = JSON.stringify([d.action, caller, d.user, d.provider, d.deniedAction, d.kind, d.project, d.reason]);
    if (!this.tallies.has(key) && (this.perCaller.get(caller) ?? 0) >= perCaller) key = JSON.stringify([d.action, caller]);
    if (!this.tallies.has(key) && this.tallies.size >= inAll) [key, caller] = [JSON.stringify([d.action]), '*'];
    const t = this.tallies.get(key);
    if (!t) {
      this.tallies.set(key, { caller, due: performance.now() + this.o.windowMs, count: 0 });
      this.perCaller.set(caller, (this.perCaller.get(caller) ?? 0) + 1);
      if (!this.timer) this.schedule();
      return false;
    }
    t.alike = t.alike ? alike(t.alike, d) : d;
    t.count++;
    t.firstTime ??= d.time;
    t.lastTime = d.time;
    return true;
  }

  private schedule(): void {
    const first = this.tallies.values().next().value as Tally | undefined;
    this.timer = first ? setTimeout(() => void this.flush(false), Math.max(0, first.due - performance.now())).unref() : undefined;
  }

  /**
   * Writes the tallies whose window ended (`all`: every one) that counted something, in one
   * append; those keep counting for another window, the others are dropped. Tallies are kept in
   * the order their windows end, so this stops at the first still open.
   */
  private async flush(all: boolean): Promise<void> {
    const now = performance.now();
    const time = new Date().toISOString();
    const out: AuditDraft[] = [];
    for (const [key, t] of this.tallies) {
      if (!all && t.due > now) break;
      this.tallies.delete(key);
      if (t.count > 0) out.push({ ...t.alike!, time, count: t.count, firstTime: t.firstTime!, lastTime: t.lastTime! });
      if (t.count > 0 && !all) this.tallies.set(key, { caller: t.caller, due: now + this.o.windowMs, count: 0 });
      else this.release(t.caller);
    }
    if (!all) this.schedule();
    if (out.length) await this.o.append(out).catch(this.o.warn);
  }

  private release(caller: string): void {
    const n = (this.perCaller.get(caller) ?? 1) - 1;
    if (n > 0) this.perCaller.set(caller, n);
    else this.perCaller.delete(caller);
  }
}

/** The fields `a` and `b` have alike; `user` is `*` when they differ (it is always there). */
function alike(a: AuditDraft, b: AuditDraft): AuditDraft {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) if ((b as unknown as Record<string, unknown>)[k] === v) out[k] = v;
  return { ...(out as unknown as AuditDraft), action: a.action, user: a.user === b.user ? a.user : '*' };
}
