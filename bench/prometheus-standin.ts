/**
 * P10's stand-in for Prometheus: bare node:http answering range queries (`GET` or `POST` with a
 * form body, at `<prefix>/api/v1/query_range`) with a matrix of three series over the asked range
 * and step, computed per point as Prometheus would (about 18 KB for an hour in steps of 15 s), and
 * the asked parameters (`asked`), so a viewer can check it got the answer to its own query. It
 * counts the queries per first path segment (one per dashplane server under test):
 * `GET /-/counts` answers `{"<prefix>": n}`. Prints "port N" once listening on 127.0.0.1.
 */
import { createServer } from 'node:http';

const counts: Record<string, number> = {};
/** Most points a series may have (Prometheus refuses more than 11,000). */
const MAX_POINTS = 11_000;

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://standin');
    if (url.pathname === '/-/counts') return send(res, 200, counts);
    const prefix = url.pathname.split('/')[1] ?? '';
    if (!url.pathname.endsWith('/api/v1/query_range')) return send(res, 404, { status: 'error', error: `no such path ${url.pathname}` });
    counts[prefix] = (counts[prefix] ?? 0) + 1;
    const params = new URLSearchParams(url.search);
    for (const [k, v] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) params.append(k, v);
    const [query, start, end, step] = [
      params.get('query') ?? '',
      Number(params.get('start')),
      Number(params.get('end')),
      Number(params.get('step')),
    ];
    if (!(step > 0) || !(end >= start) || (end - start) / step > MAX_POINTS) return send(res, 400, { status: 'error', error: 'bad range' });
    const result = [0, 1, 2].map((series) => {
      const values: [number, string][] = [];
      for (let t = start; t <= end; t += step)
        values.push([t, String(Math.round(1000 * (1 + Math.sin(t / 600 + series + query.length))) / 1000)]);
      return { metric: { __name__: 'standin', series: String(series) }, values };
    });
    // `asked` first: a viewer checks it without parsing the whole answer
    send(res, 200, {
      asked: { query, start: params.get('start'), end: params.get('end'), step: params.get('step') },
      status: 'success',
      data: { resultType: 'matrix', result },
    });
  });
});

function send(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as { port: number }).port}`));
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
