import { writeSync } from 'node:fs';
import { pino, type Bindings, type ChildLoggerOptions, type Logger } from 'pino';

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

/** A request's log line: who asked, what (the route template), the status and how long it took. */
export interface RequestLine {
  reqId: string;
  user: string | undefined;
  method: string;
  route: string;
  status: number;
  ms: number;
  /** The client left before the answer ended. */
  abandoned?: true;
}

/**
 * The one line every request writes, made as text in the shape pino gives it (level, time, pid,
 * hostname, reqId, the fields, msg) and handed to the batched writer directly: no per-request
 * child logger, no generic serialiser. A request's line and the server's other lines go through
 * the same writer, in order. Written only while the logger's level lets `info` lines through.
 */
export class RequestLines {
  private readonly bindings: string;

  constructor(
    private readonly logger: Logger,
    private readonly lines: BatchedLines,
  ) {
    // what pino writes after the time: its bindings (`,"pid":1,"hostname":"h"`), made once
    this.bindings = (logger as unknown as Record<symbol, string>)[pino.symbols.chindingsSym];
  }

  write(l: RequestLine): void {
    if (this.logger.levelVal > INFO) return;
    const user = l.user === undefined ? '' : `,"user":${JSON.stringify(l.user)}`;
    const abandoned = l.abandoned ? ',"abandoned":true' : '';
    this.lines.write(
      `{"level":30,"time":${Date.now()}${this.bindings},"reqId":${JSON.stringify(l.reqId)}${user},"method":${JSON.stringify(l.method)},"route":${JSON.stringify(l.route)},"status":${l.status},"ms":${l.ms}${abandoned},"msg":"request"}\n`,
    );
  }
}

/** pino's level number of `info`. */
const INFO = 30;

const open = new Set<BatchedLines>();
/** The request lines of each logger serverLogger made. */
const requestLines = new WeakMap<Logger, RequestLines>();

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
  const logger = pino({ level }, lines);
  requestLines.set(logger, new RequestLines(logger, lines));
  return logger;
}

/** The request lines of a logger serverLogger made (undefined for any other: its request lines go through the logger). */
export function requestLinesOf(logger: unknown): RequestLines | undefined {
  return typeof logger === 'object' && logger !== null ? requestLines.get(logger as Logger) : undefined;
}

type LogArgs = [obj: unknown, msg?: string, ...args: unknown[]];

/**
 * Fastify's logger of one request (`request.log`), made when first used: Fastify makes a child
 * logger for every request (pino writes its bindings out at once), and most requests log nothing
 * but their line (RequestLines). A request that does log gets the child pino would have made.
 */
export class LazyChildLogger {
  private made?: Logger;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get log(): Logger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.log.level = level;
  }

  fatal(...a: LogArgs): void {
    (this.log.fatal as (...x: LogArgs) => void)(...a);
  }
  error(...a: LogArgs): void {
    (this.log.error as (...x: LogArgs) => void)(...a);
  }
  warn(...a: LogArgs): void {
    (this.log.warn as (...x: LogArgs) => void)(...a);
  }
  info(...a: LogArgs): void {
    (this.log.info as (...x: LogArgs) => void)(...a);
  }
  debug(...a: LogArgs): void {
    (this.log.debug as (...x: LogArgs) => void)(...a);
  }
  trace(...a: LogArgs): void {
    (this.log.trace as (...x: LogArgs) => void)(...a);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.log.child(bindings, options);
  }
}
