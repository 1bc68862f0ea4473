import http from 'node:http';

/** A response from `request`: status, headers as node gives them (set-cookie is an array), text, parsed JSON. */
export interface ClientResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
  /** Wall-clock time from sending to the last byte, in ms. */
  ms: number;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json unless a content-type is given) or a raw string. */
  json?: unknown;
  body?: string;
  /**
   * Source address of the connection: the whole 127.0.0.0/8 range is loopback, so
   * `127.0.0.2` is "another client" to a server on 127.0.0.1.
   */
  localAddress?: string;
  agent?: http.Agent;
}

/** One HTTP request with node's http module (which, unlike fetch, can pick the source address). */
export function request(baseUrl: string, path: string, o: RequestOptions = {}): Promise<ClientResponse> {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  let payload: string | undefined = o.body;
  if (o.json !== undefined) {
    payload = JSON.stringify(o.json);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: o.method ?? 'GET',
        headers,
        ...(o.localAddress ? { localAddress: o.localAddress } : {}),
        ...(o.agent ? { agent: o.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body, ms: performance.now() - started });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The Set-Cookie lines of a response, by cookie name. */
export function setCookies(headers: http.IncomingHttpHeaders | Headers): Map<string, string> {
  const lines = headers instanceof Headers ? headers.getSetCookie() : (headers['set-cookie'] ?? []);
  const out = new Map<string, string>();
  for (const line of lines) out.set(line.slice(0, line.indexOf('=')), line);
  return out;
}

/** A Cookie header carrying the given Set-Cookie lines' name=value pairs (as a browser would send them). */
export function cookieHeader(lines: Iterable<string>): string {
  return [...lines].map((l) => l.split(';')[0]).join('; ');
}

/** The value at quantile q (0..1) of the numbers, nearest-rank. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
