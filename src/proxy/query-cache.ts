import { Readable } from 'node:stream';
import { ApiError } from '../errors.js';
import { AnswerCache, type StoredAnswer } from './answer-cache.js';
import { answerSharing, callerResponseHeaders } from './headers.js';
import { answerBodyError, callerGone, Cut, type UpstreamResponse } from './upstream.js';

export type { StoredAnswer };

export interface QueryCacheOptions {
  /** Bytes the kept answers may take, and the answers being read whole at any one time too. */
  maxBytes: number;
  maxEntries: number;
  /** The largest answer read whole, shared and kept; a larger one streams to its caller alone. */
  maxAnswerBytes: number;
  now?: () => number;
}

/** What the query cache holds now (its gauges in /metrics). */
export interface QueryCacheStats {
  entries: number;
  bytes: number;
  /** Shared requests in flight upstream. */
  inFlight: number;
  /** Callers waiting on them (their senders included). */
  waiting: number;
}

/** One shared request: what a caller asks for, how long its answer may be kept, and how to send it upstream. */
export interface SharedAsk {
  /** Everything the answer depends on (datasource, credentials, method, path, parameters, keyed headers). */
  key: string;
  ttlMs: number;
  /** Aborted when this caller goes away. */
  caller: Cut;
  /** Sends the request upstream, ended early by `cut`. */
  send(cut: Cut): Promise<UpstreamResponse>;
}

/**
 * What a caller gets: an answer held whole (`hit`: kept, `ageMs` ago; `coalesced`: another caller's
 * request in flight; `miss`: its own request, shared with whoever joined it), or its own upstream
 * answer to stream (`miss`, not shareable: not a 200, too large, private).
 */
export type Served =
  | { cache: 'hit' | 'coalesced' | 'miss'; answer: StoredAnswer; ageMs?: number }
  | { cache: 'miss'; alone: UpstreamResponse };

/**
 * The query cache of HTTP datasources: identical requests in flight go upstream once and their
 * callers share the answer, and 200 answers are kept for their time to live. The upstream request
 * belongs to every caller waiting on it: it is cut only when all of them have gone (or at
 * proxy.max_duration). Answers are read whole to be shared, up to `maxAnswerBytes`: past that,
 * the caller whose request it was streams the rest and the others send their own.
 */
export class QueryCache {
  private readonly answers: AnswerCache;
  private readonly pending = new Map<string, Pending>();
  /** Bytes of answers being read whole right now. */
  private reading = 0;

  constructor(private readonly o: QueryCacheOptions) {
    this.answers = new AnswerCache(o);
  }

  async serve(ask: SharedAsk): Promise<Served> {
    const kept = this.answers.get(ask.key);
    if (kept) return { cache: 'hit', ...kept };
    const pending = this.pending.get(ask.key);
    if (!pending) return this.lead(ask);
    const shared = await pending.join(ask.caller);
    if (shared) return { cache: 'coalesced', answer: shared };
    return { cache: 'miss', alone: await ask.send(ask.caller) };
  }

  /** Answers kept and the bytes they are counted as; requests in flight and the callers waiting on them. */
  stats(): QueryCacheStats {
    let waiting = 0;
    for (const p of this.pending.values()) waiting += p.callers;
    return { entries: this.answers.size, bytes: this.answers.bytes, inFlight: this.pending.size, waiting };
  }

  /** Sends the request for everyone who joins it before its answer is read. */
  private async lead(ask: SharedAsk): Promise<Served> {
    const p = new Pending();
    this.pending.set(ask.key, p);
    ask.caller.once('abort', () => p.leave());
    const done = (answer: StoredAnswer | undefined, error?: ApiError) => {
      if (this.pending.get(ask.key) === p) this.pending.delete(ask.key);
      p.settle(answer, error);
    };
    let res: UpstreamResponse;
    try {
      res = await ask.send(p.cut);
    } catch (e) {
      done(undefined, e as ApiError);
      throw e;
    }
    const sharing = answerSharing(res.statusCode, res.headers, ask.ttlMs);
    if (!sharing.share || Number(res.headers['content-length'] ?? 0) > this.o.maxAnswerBytes) {
      done(undefined);
      return { cache: 'miss', alone: res };
    }
    let read: { chunks: Buffer[]; size: number; whole: boolean };
    try {
      read = await this.readWhole(res.body);
    } catch (e) {
      const error = answerBodyError(e, p.cut);
      done(undefined, error);
      throw error;
    }
    if (!read.whole) {
      done(undefined);
      return { cache: 'miss', alone: { ...res, body: Readable.from(rest(read.chunks, res.body)) } };
    }
    const body = Buffer.concat(read.chunks, read.size);
    const answer: StoredAnswer = {
      status: res.statusCode,
      headers: { ...callerResponseHeaders(res.statusCode, res.headers), 'content-length': String(body.length) },
      body,
    };
    this.answers.set(ask.key, answer, sharing.keepMs);
    done(answer);
    return { cache: 'miss', answer };
  }

  /**
   * The body's chunks until it ends (`whole`), or until it passes maxAnswerBytes or the bytes
   * being read by all requests pass maxBytes: then it is paused where it is, to be streamed.
   */
  private readWhole(body: Readable): Promise<{ chunks: Buffer[]; size: number; whole: boolean }> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (whole: boolean, error?: unknown) => {
        body.off('data', onData).off('end', onEnd).off('error', onError);
        this.reading -= size;
        if (error !== undefined) reject(error);
        else resolve({ chunks, size, whole });
      };
      const onData = (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        this.reading += chunk.length;
        if (size > this.o.maxAnswerBytes || this.reading > this.o.maxBytes) {
          body.pause();
          finish(false);
        }
      };
      const onEnd = () => finish(true);
      const onError = (e: unknown) => finish(false, e);
      body.on('data', onData).on('end', onEnd).on('error', onError);
    });
  }
}

/** The chunks read so far, then the rest of the body. */
async function* rest(chunks: Buffer[], body: Readable): AsyncGenerator<Buffer> {
  yield* chunks;
  yield* body;
}

/**
 * A request in flight and the callers waiting for it: the one who sent it and those who joined.
 * It is cut when the last of them goes away.
 */
class Pending {
  readonly cut = new Cut();
  private waiters = 1;
  private readonly result: Promise<StoredAnswer | undefined>;
  private resolve!: (answer: StoredAnswer | undefined) => void;
  private reject!: (error: unknown) => void;

  constructor() {
    this.result = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.result.catch(() => undefined); // a failure nobody joined is the sender's alone
  }

  /** The callers waiting on this request (its sender included, until its answer). */
  get callers(): number {
    return this.waiters;
  }

  /** Waits for the answer: the shared one, or undefined (not shareable: send your own). */
  join(caller: Cut): Promise<StoredAnswer | undefined> {
    if (caller.aborted) return Promise.reject(new ApiError('BadRequest', 'the request was cancelled by the client'));
    this.waiters++;
    return new Promise((resolve, reject) => {
      let waiting = true;
      const stop = () => {
        if (!waiting) return false;
        waiting = false;
        caller.off('abort', gone);
        return true;
      };
      const gone = () => {
        if (!stop()) return;
        this.leave();
        reject(new ApiError('BadRequest', 'the request was cancelled by the client'));
      };
      caller.once('abort', gone);
      this.result.then(
        (answer) => {
          if (!stop()) return;
          this.leave();
          resolve(answer);
        },
        (error) => {
          if (!stop()) return;
          this.leave();
          reject(error);
        },
      );
    });
  }

  /** A caller went away or got its answer; the last one takes the request with it (a finished one has nothing left to cut). */
  leave(): void {
    if (--this.waiters === 0) this.cut.abort(callerGone());
  }

  settle(answer: StoredAnswer | undefined, error?: unknown): void {
    if (error !== undefined) this.reject(error);
    else this.resolve(answer);
  }
}
