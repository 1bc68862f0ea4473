import { MANAGER_HEADER, SKIP_UNCHANGED_HEADER, VERSION_HEADER } from '../src/api/headers.js';
import { CliError, HttpError, type Detail } from './errors.js';

/** The field manager dashctl's writes record (the server keeps it with each version; apply checks it). */
export const FIELD_MANAGER = 'dashctl';

/** The token pair a login or refresh answers (Perses body). */
export interface TokenPair {
  access_token: string;
  refresh_token?: string;
  expiry?: string;
}

export interface ApiClientOptions {
  /** Server base URL without a trailing slash. */
  url: string;
  accessToken?: string | undefined;
  refreshToken?: string | undefined;
  /** Called after an automatic refresh, to save the new pair. */
  onTokens?(tokens: TokenPair): void;
  /** Give up on a request after this long (shell completion must not hang); no limit when unset. */
  timeoutMs?: number | undefined;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body and its content type (e.g. a form), instead of JSON. */
  raw?: { text: string; contentType: string } | undefined;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  headers?: Record<string, string> | undefined;
  /** Send the access token (default true). */
  auth?: boolean;
}

/** A decoded answer: status, headers and JSON body (undefined when empty or not JSON). */
// biome-ignore lint/suspicious/noExplicitAny: an answer is whatever JSON the server sent; each command reads what its route answers
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers | { get(name: string): string | null };
  body: T;
  text: string;
}

/**
 * The one HTTP client of dashctl: keep-alive connections, JSON in and out, the access token and
 * the field manager (X-Dashplane-Manager: dashctl) on every call, X-Dashplane-Skip-Unchanged: true
 * on every PUT (a PUT of the stored content writes nothing and answers X-Dashplane-Unchanged), and
 * one automatic refresh (POST /api/auth/refresh) on a 401, shared by every request in flight so a
 * rotated refresh token is never presented twice. A request with `dryRun` in its query is sent only
 * to a server known to honour it (`honoursDryRun`): anywhere else it would be a real write.
 */
export class ApiClient {
  readonly url: string;
  private accessToken?: string | undefined;
  private refreshToken?: string | undefined;
  private refreshing?: Promise<void> | undefined;
  private dryRunSupport?: Promise<boolean>;

  constructor(private readonly opts: ApiClientOptions) {
    this.url = opts.url;
    this.accessToken = opts.accessToken;
    this.refreshToken = opts.refreshToken;
  }

  /**
   * Any status; throws only when the server cannot be reached, or when `o.query` asks for a dry run
   * of a server that does not honour one (then nothing is sent).
   */
  // biome-ignore lint/suspicious/noExplicitAny: see ApiResponse
  async request<T = any>(method: string, path: string, o: RequestOptions = {}): Promise<ApiResponse<T>> {
    if (asksDryRun(o.query)) await this.requireDryRun(`a dry run (${method} ${path})`);
    const used = this.accessToken;
    let res = await this.send(method, path, o, used);
    if (res.status === 401 && o.auth !== false && this.refreshToken) {
      await res.text();
      await this.refresh(used);
      res = await this.send(method, path, o, this.accessToken);
    }
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: parseJson(text) as T, text };
  }

  /**
   * Whether the server honours `?dryRun=true`. dashplane does, and says it is dashplane with the
   * X-Dashplane-Version header on every answer; a Perses server ignores the parameter and carries
   * the write out. Asked once per client (one run) with an anonymous GET /api/v1/health; throws
   * only when the server cannot be reached.
   */
  honoursDryRun(): Promise<boolean> {
    this.dryRunSupport ??= this.request('GET', '/api/v1/health', { auth: false }).then((res) => res.headers.get(VERSION_HEADER) !== null);
    return this.dryRunSupport;
  }

  /** Refuses `what` (e.g. `apply --dry-run`) unless the server honours dry runs, before anything is sent for it; `instead` ends the message. */
  async requireDryRun(what: string, instead = ''): Promise<void> {
    if (await this.honoursDryRun()) return;
    throw new CliError(
      `${what} needs a server that honours dryRun=true (dashplane); ${this.url} does not say it is dashplane (no ${VERSION_HEADER} header), ` +
        `and a server that ignores dryRun (Perses) would carry the write out: nothing was sent${instead ? `; ${instead}` : ''}`,
    );
  }

  /** Like `request`, but a non-2xx answer throws an `HttpError` carrying the server's message and details. */
  // biome-ignore lint/suspicious/noExplicitAny: see ApiResponse
  async call<T = any>(method: string, path: string, o: RequestOptions = {}): Promise<ApiResponse<T>> {
    const res = await this.request<T>(method, path, o);
    if (res.status >= 200 && res.status < 300) return res;
    throw toHttpError(method, path, res);
  }

  /** Newline-delimited JSON stream (watch); `onItem` for each line until the server closes it. */
  // biome-ignore lint/suspicious/noExplicitAny: each streamed line is whatever JSON the server sent
  async stream(path: string, query: RequestOptions['query'], onItem: (item: any) => void): Promise<void> {
    const used = this.accessToken;
    let res = await this.send('GET', path, { query }, used);
    if (res.status === 401 && this.refreshToken) {
      await res.text();
      await this.refresh(used);
      res = await this.send('GET', path, { query }, this.accessToken);
    }
    if (res.status !== 200 || !res.body) {
      const text = await res.text();
      throw toHttpError('GET', path, { status: res.status, headers: res.headers, body: parseJson(text), text });
    }
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of res.body) {
      buffered += decoder.decode(chunk as Uint8Array, { stream: true });
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line) onItem(JSON.parse(line));
      }
    }
  }

  /**
   * Nothing to release: requests go through Node's own fetch and its shared keep-alive pool, whose
   * idle connections never hold the process open. (undici's package cost every dashctl run a
   * seventh of a second of start-up; the server's proxy still uses it.)
   */
  async close(): Promise<void> {}

  private async send(method: string, path: string, o: RequestOptions, token: string | undefined): Promise<Response> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'dashctl',
      [MANAGER_HEADER]: FIELD_MANAGER,
      ...(o.headers ?? {}),
    };
    // dashctl never wants a write of unchanged content to make a new version (apply, its dry-run checks, edit, history --restore)
    if (method === 'PUT' || (method === 'POST' && /\/versions\/\d+\/restore(?:\?|$)/.test(path))) headers[SKIP_UNCHANGED_HEADER] = 'true';
    let body: string | undefined;
    if (o.raw) {
      body = o.raw.text;
      headers['content-type'] = o.raw.contentType;
    } else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    if (token && o.auth !== false) headers.authorization = `Bearer ${token}`;
    const target = this.url + path + queryString(o.query);
    try {
      return await fetch(target, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(this.opts.timeoutMs ? { signal: AbortSignal.timeout(this.opts.timeoutMs) } : {}),
      });
    } catch (e) {
      if ((e as Error).name === 'TimeoutError')
        throw new CliError(`${this.url} did not answer ${method} ${path} within ${this.opts.timeoutMs} ms`);
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `cannot reach ${this.url} (${cause?.code ?? cause?.message ?? (e as Error).message}); is the server running? (dashctl login URL to change it)`,
      );
    }
  }

  /** One refresh for every request that failed with the same token; later ones just retry. */
  private async refresh(used: string | undefined): Promise<void> {
    if (this.accessToken !== used && !this.refreshing) return;
    this.refreshing ??= (async () => {
      const res = await this.send('POST', '/api/auth/refresh', { body: { refresh_token: this.refreshToken }, auth: false }, undefined);
      const text = await res.text();
      if (res.status !== 200) throw new CliError(`your session has ended (${describeBody(text) || res.status}); run dashctl login again`);
      const pair = parseJson(text) as TokenPair;
      this.accessToken = pair.access_token;
      this.refreshToken = pair.refresh_token ?? this.refreshToken;
      this.opts.onTokens?.(pair);
    })().finally(() => {
      this.refreshing = undefined;
    });
    await this.refreshing;
  }
}

/** Whether a query asks for a dry run (`dryRun` present and not false). */
function asksDryRun(q: RequestOptions['query']): boolean {
  const v = q?.dryRun;
  return v !== undefined && v !== false && v !== 'false';
}

function queryString(q: RequestOptions['query']): string {
  if (!q) return '';
  const entries = Object.entries(q).filter(([, v]) => v !== undefined && v !== '') as [string, string | number | boolean][];
  if (!entries.length) return '';
  return `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeBody(text: string): string {
  const b = parseJson(text) as { message?: string; error_description?: string; error?: string } | undefined;
  return b?.message ?? b?.error_description ?? b?.error ?? text.slice(0, 200);
}

/** The server's `{message, reason, details}` (or an OAuth `{error, error_description}`) as an HttpError. */
export function toHttpError(method: string, path: string, res: ApiResponse): HttpError {
  const b = (res.body ?? {}) as { message?: unknown; reason?: unknown; details?: unknown; error?: unknown; error_description?: unknown };
  const message =
    typeof b.message === 'string'
      ? b.message
      : typeof b.error_description === 'string'
        ? b.error_description
        : typeof b.error === 'string'
          ? b.error
          : res.text.slice(0, 300) || `HTTP ${res.status}`;
  const details = Array.isArray(b.details) ? (b.details as Detail[]).filter((d) => d && typeof d.path === 'string') : [];
  return new HttpError(res.status, message, method, path, typeof b.reason === 'string' ? b.reason : undefined, details, res.body);
}
