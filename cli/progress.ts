import type { Io } from './io.js';

/**
 * A one-line "[n/total] verb..." status on a terminal's stderr, redrawn at most every 100 ms and
 * cleared before any other output; nothing at all when stderr is not a terminal.
 */
export class Progress {
  private done = 0;
  private last = 0;
  private shown = false;

  constructor(
    private readonly io: Io,
    private readonly total: number,
    private readonly verb: string,
  ) {}

  /** Prints a line above the progress line. */
  line(write: () => void): void {
    this.clear();
    write();
  }

  tick(): void {
    this.done++;
    if (!this.io.errTty || this.total < 20) return;
    const now = Date.now();
    if (now - this.last < 100 && this.done < this.total) return;
    this.last = now;
    this.io.err(`\r\x1b[K[${this.done}/${this.total}] ${this.verb}...`);
    this.shown = true;
  }

  clear(): void {
    if (!this.shown) return;
    this.io.err('\r\x1b[K');
    this.shown = false;
  }
}
