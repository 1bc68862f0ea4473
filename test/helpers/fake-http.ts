import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a fake answered: method, path, decoded query and the body as text. */
export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  headers: IncomingMessage['headers'];
}

/** What a route handler returns: a status, a JSON value or a text body, and the content type. */
export interface FakeAnswer {
  status?: number;
  json?: unknown;
  text?: string;
  type?: string;
}

/** A route of a fake: the method(s), a pattern matched against the whole path, and its handler (given the pattern's groups). */
export interface FakeRoute {
  methods: readonly string[];
  path: RegExp;
  handle(req: FakeRequest, groups: string[]): FakeAnswer;
}

/** A fake upstream listening on 127.0.0.1, with the requests it saw (newest last). */
export interface RunningFake {
  url: string;
  requests: FakeRequest[];
  stop(): Promise<void>;
}

/**
 * Starts a small HTTP server on 127.0.0.1 that answers `routes` (the first whose method and whole
 * path match), 404 with a text body for any other path and 405 for another method on a known
 * path, as the real services do. Used by the fakes of services that Debian does not package
 * (fake-loki.ts, fake-tempo.ts, fake-pyroscope.ts).
 */
export async function startFake(name: string, routes: readonly FakeRoute[]): Promise<RunningFake> {
  const requests: FakeRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://fake');
      const r: FakeRequest = {
        method: req.method ?? 'GET',
        path: u.pathname,
        query: u.searchParams,
        body: Buffer.concat(chunks).toString('utf8'),
        headers: req.headers,
      };
      requests.push(r);
      let answer: FakeAnswer = { status: 404, text: `404 page not found (${name})\n` };
      for (const route of routes) {
        const m = route.path.exec(r.path);
        if (!m || m[0] !== r.path) continue;
        answer = route.methods.includes(r.method)
          ? safely(() => route.handle(r, m.slice(1).map(decodeURIComponent)))
          : { status: 405, text: 'method not allowed\n' };
        break;
      }
      const body = answer.json !== undefined ? JSON.stringify(answer.json) : (answer.text ?? '');
      const type = answer.type ?? (answer.json !== undefined ? 'application/json' : 'text/plain; charset=utf-8');
      res.writeHead(answer.status ?? 200, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A handler's own error (a bad parameter it did not expect) as a 500 naming it, never a dropped connection. */
function safely(fn: () => FakeAnswer): FakeAnswer {
  try {
    return fn();
  } catch (e) {
    return { status: 500, text: `${(e as Error).message}\n` };
  }
}

/** A time as the Grafana services take it (start, end, time, from, until): Unix seconds (with a fraction), nanoseconds (19 digits or more), or RFC 3339. */
export function parseTime(v: string | null, fallbackMs: number): number {
  if (v === null || v === '') return fallbackMs;
  if (/^\d{16,}$/.test(v)) return Number(BigInt(v) / 1_000_000n);
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new BadRequest(`invalid time "${v}": give Unix seconds, nanoseconds or RFC 3339`);
  return t;
}

/** A duration such as "15s", "1m30s", "2h" or a number of seconds, in milliseconds. */
export function parseStep(v: string): number {
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
  let total = 0;
  const rest = v.replace(/(\d+)(ms|s|m|h|d|w)/g, (_all, n: string, u: string) => {
    total += Number(n) * units[u];
    return '';
  });
  if (rest !== '' || total === 0) throw new BadRequest(`invalid duration "${v}"`);
  return total;
}

/** A client error a handler throws; its route answers 400 with the message (the fakes' routes catch it). */
export class BadRequest extends Error {}

/** Runs a handler, answering a `BadRequest` it throws with 400 and `format(message)`. */
export function orBadRequest(fn: () => FakeAnswer, format: (message: string) => FakeAnswer): FakeAnswer {
  try {
    return fn();
  } catch (e) {
    if (e instanceof BadRequest) return { status: 400, ...format(e.message) };
    throw e;
  }
}
