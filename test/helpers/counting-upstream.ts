import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request the upstream received: its method, path, parameters (query string and form body, sorted) and credentials. */
export interface Received {
  method: string;
  path: string;
  /** The query string and the form body's parameters, as `name=value` pairs in the order received. */
  params: [string, string][];
  authorization?: string;
  /** The client (the proxy) went away before the answer was sent. */
  cutEarly: boolean;
}

/** What the upstream answers: a Prometheus-like envelope naming the request it answers, so a caller can check it got its own. */
export interface Answered {
  status: 'success';
  data: { resultType: 'matrix'; result: [] };
  asked: { path: string; params: [string, string][]; authorization: string | null };
  pad?: string;
}

export interface CountingUpstream {
  url: string;
  received: Received[];
  /** Answers wait (their requests counted) until `release`. */
  hold(): void;
  release(): void;
  stop(): Promise<void>;
}

/**
 * A small HTTP server standing in for Prometheus that counts the requests it gets and answers each
 * with a JSON body identifying it (`Answered`): the path, the parameters and the Authorization it
 * received. `?pad=N` pads the answer with N bytes; `?chunked=1` leaves Content-Length out;
 * `/private` answers with Cache-Control: private, `/cookie` with a Set-Cookie, `/error` a 500.
 */
export async function startCountingUpstream(): Promise<CountingUpstream> {
  const received: Received[] = [];
  let held: (() => void)[] | undefined;
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://upstream');
      const params = [...u.searchParams, ...new URLSearchParams(Buffer.concat(chunks).toString('utf8'))];
      const r: Received = {
        method: req.method ?? 'GET',
        path: u.pathname,
        params,
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        cutEarly: false,
      };
      received.push(r);
      res.once('close', () => {
        if (!res.writableFinished) r.cutEarly = true;
      });
      const answer = () => {
        const pad = Number(u.searchParams.get('pad') ?? 0);
        const body: Answered = {
          status: 'success',
          data: { resultType: 'matrix', result: [] },
          asked: { path: u.pathname, params, authorization: req.headers.authorization ?? null },
          ...(pad ? { pad: 'x'.repeat(pad) } : {}),
        };
        const text = JSON.stringify(body);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (!u.searchParams.has('chunked')) headers['content-length'] = String(Buffer.byteLength(text));
        if (u.pathname === '/private') headers['cache-control'] = 'private';
        if (u.pathname === '/cookie') headers['set-cookie'] = 'session=upstream';
        res.writeHead(u.pathname === '/error' ? 500 : 200, headers);
        res.end(text);
      };
      if (held) held.push(answer);
      else answer();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    hold: () => {
      held ??= [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const answer of waiting) answer();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
