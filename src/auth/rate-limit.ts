/**
 * Counts failures per key in a fixed window; a key with `max` failures in its window is blocked
 * until the window ends. In memory, per process.
 */
export class FailureLimiter {
  private readonly entries = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `key` may try again, or 0 when it may try now. */
  retryAfter(key: string): number {
    const e = this.entries.get(key);
    const t = this.now();
    if (!e || e.resetAt <= t) return 0;
    return e.count >= this.max ? Math.ceil((e.resetAt - t) / 1000) : 0;
  }

  fail(key: string): void {
    const t = this.now();
    const e = this.entries.get(key);
    if (!e || e.resetAt <= t) this.entries.set(key, { count: 1, resetAt: t + this.windowMs });
    else e.count++;
    if (this.entries.size > 100_000) this.sweep(t);
  }

  /** Takes back one counted failure (an attempt counted up front that succeeded). */
  undo(key: string): void {
    const e = this.entries.get(key);
    if (e && e.count > 0) e.count--;
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  private sweep(t: number): void {
    for (const [k, e] of this.entries) if (e.resetAt <= t) this.entries.delete(k);
  }
}
