import { writeSync } from 'node:fs';
import { pino, type Logger } from 'pino';

/** Longest wait for a full pipe (EAGAIN) before a batch of lines is dropped. */
const MAX_BUSY_MS = 100;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Log lines gathered during one turn of the event loop and written to a file descriptor in one
 * system call at the end of it (setImmediate): under load, the lines of many requests share one
 * write, and an idle server still writes each line at once. At `exit` whatever is pending is
 * written synchronously. A write that fails (a full disk, a closed pipe) drops its lines: logging
 * never stops the server. (pino's own asynchronous destination, sonic-boom 4, spins forever in
 * its synchronous flush when the disk is full, so it cannot be flushed safely at exit.)
 */
class BatchedLines {
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly fd: number) {}

  /** pino's destination interface. */
  write(line: string): boolean {
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  /** Writes every pending line now. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const data = Buffer.from(this.pending.join(''));
    this.pending = [];
    let offset = 0;
    let waited = 0;
    while (offset < data.length) {
      try {
        offset += writeSync(this.fd, data, offset);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN' || waited++ >= MAX_BUSY_MS) return; // dropped
        Atomics.wait(pause, 0, 0, 1);
      }
    }
  }
}

const open = new Set<BatchedLines>();

/**
 * The server's logger: pino writing JSON lines to stdout in batches (above). One synchronous
 * write per request cost P1 most of its throughput. Nothing is lost on the ways a process ends
 * by itself: `process.exit`, a fatal error (an uncaught exception or rejection) and the end of a
 * SIGTERM shutdown all pass through the `exit` event, which writes what is pending.
 */
export function serverLogger(level: string, fd = 1): Logger {
  const lines = new BatchedLines(fd);
  if (open.size === 0) process.on('exit', () => open.forEach((l) => l.flush()));
  open.add(lines);
  return pino({ level }, lines);
}
