import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';
import { ApiError } from '../errors.js';
import type { DeniedNetworks, DenyReason } from './denied-networks.js';

/**
 * undici, loaded with the first request upstream: a server whose datasources are never proxied
 * does not load it (240 ms of start-up, measured alone). It is CommonJS, so it loads synchronously.
 */
let lib: typeof import('undici') | undefined;
const undici = (): typeof import('undici') => (lib ??= createRequire(import.meta.url)('undici') as typeof import('undici'));

/** TLS settings for the upstream connection (from the datasource's Secret). */
export interface UpstreamTls {
  ca?: string | undefined;
  cert?: string | undefined;
  key?: string | undefined;
  serverName?: string | undefined;
  insecureSkipVerify?: boolean | undefined;
}

export interface UpstreamOptions {
  /** No response headers within this time: 504. */
  timeoutMs: number;
  /** The whole exchange, body included, is cut after this. */
  maxDurationMs: number;
  maxConcurrent: number;
  /** Addresses never connected to, whatever form they are written or resolved in. */
  denied: DeniedNetworks;
}

/** Whom an exchange is with, as error messages name it. */
export interface UpstreamTarget {
  /** The setting holding the URL, e.g. "the datasource URL". */
  url: string;
  /** The server, e.g. "the datasource". */
  peer: string;
}

/** The default target: a datasource's URL. */
const DATASOURCE: UpstreamTarget = { url: 'the datasource URL', peer: 'the datasource' };

export interface UpstreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

/**
 * Ends an exchange early: the caller went away, or proxy.max_duration passed. An EventEmitter
 * with `aborted` and `reason`, which undici takes as a request's signal just like an AbortSignal:
 * an AbortController and the EventTarget listeners undici adds and removes on it cost about 45 us
 * of CPU per request here (client-only runs), a quarter of what a minimal proxy spends in all.
 */
export class Cut extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** The reason of a cut by the caller (the client closed its connection). */
export const callerGone = () => new DOMException('the client closed the connection', 'AbortError');

/** Whether `cut` ended the exchange because the caller went away (not a timeout). */
export const cancelledByCaller = (cut: Cut): boolean => cut.aborted && (cut.reason as Error).name === 'AbortError';

/**
 * Sends one request upstream with undici: streaming both ways, redirects never followed, the
 * resolved address checked against the denylist (so every spelling of an address is caught and
 * the connection goes to the address that was checked), at most `maxConcurrent` in flight.
 */
export class Upstream {
  private readonly agents = new Map<string, Agent>();
  private inFlight = 0;

  constructor(private readonly o: UpstreamOptions) {}

  async send(
    url: URL,
    init: { method: string; headers: Record<string, string>; body?: Readable; tls?: UpstreamTls; cut: Cut; target?: UpstreamTarget },
  ): Promise<UpstreamResponse> {
    const target = init.target ?? DATASOURCE;
    // The DNS hook below never runs for an address literal: check those here, with the same
    // normalisation (the URL parser wrote IPv4 as a dotted quad; IPv6 may embed an IPv4).
    const reason = this.o.denied.hostReason(url.hostname);
    if (reason) throw deniedError(reason, target);
    if (this.inFlight >= this.o.maxConcurrent)
      throw new ApiError('Unavailable', 'the proxy is busy (proxy.max_concurrent requests in flight); retry shortly', undefined, {
        'Retry-After': '1',
      });
    this.inFlight++;
    // The exchange ends at the caller's cut or after maxDurationMs, whichever comes first. One
    // timer per exchange, cleared when it ends: AbortSignal.timeout's timer would live for the
    // whole max_duration (5 minutes by default) after each request: hundreds of thousands of
    // live timers under a steady load of a few thousand requests/s.
    const { cut } = init;
    const timer = setTimeout(
      () => cut.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      this.o.maxDurationMs,
    );
    timer.unref();
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        this.inFlight--;
        clearTimeout(timer);
      }
    };
    try {
      // The agent's own request API: undici's top-level request(url) parses the URL again (about 35 us).
      const res = await this.agent(init.tls).request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: init.method as Dispatcher.HttpMethod,
        headers: init.headers,
        body: init.body ?? null,
        signal: cut,
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs,
      });
      res.body.once('close', release);
      res.body.once('error', release);
      return { statusCode: res.statusCode, headers: res.headers, body: res.body };
    } catch (e) {
      release();
      throw translate(e, cut, url.protocol === 'https:', target);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close()));
  }

  /** One keep-alive agent per TLS setting, with the denylist in its DNS lookup. */
  private agent(tls: UpstreamTls = {}): Agent {
    const id = JSON.stringify(tls);
    let agent = this.agents.get(id);
    if (!agent) {
      agent = new (undici().Agent)({
        connect: {
          ...(tls.ca ? { ca: tls.ca } : {}),
          ...(tls.cert ? { cert: tls.cert } : {}),
          ...(tls.key ? { key: tls.key } : {}),
          ...(tls.serverName ? { servername: tls.serverName } : {}),
          rejectUnauthorized: !tls.insecureSkipVerify,
          lookup: this.o.denied.lookup,
        },
        keepAliveTimeout: 30_000,
      });
      this.agents.set(id, agent);
    }
    return agent;
  }
}

/** The 403 of a denied address, saying which rule refused it and how an administrator changes it. */
export function deniedError(reason: DenyReason, target: UpstreamTarget): ApiError {
  return new ApiError(
    'Forbidden',
    reason === 'loopback'
      ? `${target.url} points to this host (a loopback address), which the proxy does not reach while authentication is on; an administrator can allow it with proxy.allow_loopback: true`
      : `${target.url} points to an address the proxy may not reach (proxy.denied_networks)`,
  );
}

/** A failure while reading an answer's body (the query cache reads shared answers whole), as an API error. */
export function answerBodyError(e: unknown, cut: Cut, target: UpstreamTarget = DATASOURCE): ApiError {
  const translated = translate(e, cut, false, target);
  return translated.reason === 'BadGateway' ? new ApiError('BadGateway', `${target.peer} broke off its answer before the end`) : translated;
}

/** Upstream failures as API errors, never echoing the upstream URL (it may hold secrets). */
function translate(e: unknown, cut: Cut, https: boolean, target: UpstreamTarget): ApiError {
  const err = e as { code?: string; name?: string; denied?: DenyReason; cause?: { code?: string; denied?: DenyReason } };
  const code = err.code ?? err.cause?.code;
  if (code === 'EDENIED') return deniedError(err.denied ?? err.cause?.denied ?? 'listed', target);
  const errors = lib?.errors;
  if (
    (errors && (e instanceof errors.HeadersTimeoutError || e instanceof errors.BodyTimeoutError)) ||
    err.name === 'TimeoutError' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return new ApiError('GatewayTimeout', `${target.peer} did not answer in time (proxy.timeout)`);
  }
  if (cancelledByCaller(cut)) return new ApiError('BadRequest', 'the request was cancelled by the client');
  if (err.name === 'AbortError')
    return new ApiError('GatewayTimeout', `the exchange with ${target.peer} took longer than proxy.max_duration`);
  if (code && /CERT|SELF_SIGNED|VERIFY|ALTNAME|TLS|SSL/i.test(code)) {
    return new ApiError(
      'BadGateway',
      `the TLS certificate of ${target.peer} was not accepted (${code}); check the Secret's tlsConfig (ca, serverName)`,
    );
  }
  if (https && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET')) {
    return new ApiError(
      'BadGateway',
      `${target.peer} closed the TLS connection (${code}); if it requires a client certificate, give the Secret tlsConfig.cert and key`,
    );
  }
  return new ApiError('BadGateway', `${target.peer} could not be reached (${code ?? 'connection failed'})`);
}
