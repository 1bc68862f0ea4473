import type { FastifyReply, FastifyRequest } from 'fastify';
import { refuseExpired } from '../access/credential-end.js';
import { ApiError } from '../errors.js';
import { statusOf } from './error-handler.js';

/** A line of a long-lived response, or the error its final ERROR line carries (with where to resume). */
export type StreamLine = Buffer | string | { error: ApiError; revision?: number };

/**
 * Long-lived newline-delimited JSON responses (the watches and the audit watch, docs/api.md §6):
 * at most `maxPerUser` open at once per user, service account or (anonymous, with authentication
 * off) client address, else 429 with Retry-After; headers at once; lines written as the client
 * reads them (the socket holds at most one line beyond its buffer: what falls behind waits at the
 * source, which bounds it); a final ERROR line when the source ends the stream early; a client
 * that has not read its last lines `graceMs` after the end is disconnected.
 */
export class LongStreams {
  private readonly perCaller = new Map<string, number>();
  private readonly lives = new Set<AbortController>();

  constructor(private readonly o: { maxPerUser: number; graceMs: number; retryAfterS: number }) {}

  /**
   * Answers `req` with the lines of what `open` returns (`lineOf` each), once the caller has a free slot and if its credential
   * has not expired yet (401: refresh it first). `open` runs first and
   * may refuse (403, 410: answered as usual); the source ends when `life` aborts (the client left,
   * the server closes) or aborts it itself with a StreamEnd, and then ends its lines with an error.
   */
  async serve<T>(
    req: FastifyRequest,
    reply: FastifyReply,
    open: (life: AbortController) => Promise<AsyncIterable<T>>,
    lineOf: (item: T) => StreamLine,
  ): Promise<void> {
    refuseExpired(req.principal);
    const release = this.take(req);
    const life = new AbortController();
    let items: AsyncIterable<T>;
    try {
      items = await open(life);
    } catch (e) {
      release();
      life.abort();
      throw e;
    }
    this.lives.add(life);
    const leave = () => life.abort();
    req.raw.once('close', leave);
    reply.raw.once('close', leave);
    // Headers go out at once (a client waiting for them must not wait for the first line); the
    // connection closes with the stream, so shutdown does not wait for it.
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'application/x-ndjson; charset=utf-8',
      'x-accel-buffering': 'no',
      connection: 'close',
    });
    res.flushHeaders();
    try {
      for await (const item of items) {
        if (res.destroyed) break;
        const line = lineOf(item);
        if (!res.write(typeof line === 'string' || Buffer.isBuffer(line) ? line : errorLine(line.error, line.revision)))
          await drained(res, life.signal);
      }
    } catch (e) {
      // a source that fails with an error a client can act on (the event log trimmed under a replay) says so
      if (e instanceof ApiError && !res.destroyed) res.write(errorLine(e));
      else res.destroy();
    } finally {
      life.abort();
      this.lives.delete(life);
      release();
      this.finish(res);
    }
  }

  /** Ends every open stream (server shutdown). */
  closeAll(): void {
    for (const life of this.lives) life.abort();
  }

  /**
   * Ends the response. A client still taking its last lines goes on; one that takes nothing for
   * the grace period (a client that never reads) is disconnected, and what waited for it goes.
   */
  private finish(res: FastifyReply['raw']): void {
    if (res.destroyed) return;
    res.end();
    if (res.writableFinished) return;
    const waiting = () => res.writableLength + (res.socket?.writableLength ?? 0);
    let left = waiting();
    let timer: NodeJS.Timeout;
    const check = () => {
      const now = waiting();
      if (now >= left) return void res.destroy();
      left = now;
      timer = setTimeout(check, this.o.graceMs).unref();
    };
    timer = setTimeout(check, this.o.graceMs).unref();
    res.once('close', () => clearTimeout(timer));
  }

  /** A stream slot of the caller (429 when it holds them all); returns what gives it back, once. */
  private take(req: FastifyRequest): () => void {
    const p = req.principal;
    const key = p.anonymous ? `address ${req.ip}` : `principal ${p.name}`;
    const held = this.perCaller.get(key) ?? 0;
    if (held >= this.o.maxPerUser) {
      const who = p.anonymous ? `the client address ${req.ip}` : `"${p.name}"`;
      throw new ApiError(
        'TooManyRequests',
        `${who} already holds ${held} open watch streams on this server, the most allowed (watch.max_streams_per_user); close one, then try again`,
        undefined,
        {
          'Retry-After': String(this.o.retryAfterS),
        },
      );
    }
    this.perCaller.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.perCaller.get(key) ?? 1) - 1;
      if (left > 0) this.perCaller.set(key, left);
      else this.perCaller.delete(key);
    };
  }
}

/**
 * The final line of a stream that ends before its client leaves:
 * `{"type":"ERROR","revision"?:R,"object":{"kind":"Status","code","reason","message"}}`, with the
 * revision to resume from with since (absent: the client lists again).
 */
function errorLine(error: ApiError, revision?: number): string {
  const status = { kind: 'Status', code: statusOf(error.reason), reason: error.reason, message: error.message };
  return `${JSON.stringify({ type: 'ERROR', ...(revision !== undefined ? { revision } : {}), object: status })}\n`;
}

/** Resolves when a full response can take more, when it closes, or when the stream ends. */
function drained(res: FastifyReply['raw'], ended: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      ended.removeEventListener('abort', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
    if (ended.aborted) done();
    else ended.addEventListener('abort', done);
  });
}
