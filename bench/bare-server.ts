/**
 * The reference servers of the benchmarks: bare `node:http`, one process, keep-alive on.
 *   static FILE CONTENT-TYPE   answers every request with the file's bytes
 *   echo-json                  reads the JSON body, parses it and answers it re-serialised
 * Prints "port N" once listening on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const [mode, file, type] = process.argv.slice(2);
let handler: (req: IncomingMessage, res: ServerResponse) => void;
if (mode === 'static') {
  const bytes = readFileSync(file);
  handler = (_req, res) => {
    res.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
    res.end(bytes);
  };
} else if (mode === 'echo-json') {
  handler = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  };
} else {
  console.error('usage: bare-server static FILE CONTENT-TYPE | echo-json');
  process.exit(2);
}
const server = createServer({ keepAliveTimeout: 60_000 }, handler);
server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as { port: number }).port}`));
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
