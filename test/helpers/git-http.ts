import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Git server over smart HTTP on 127.0.0.1: the real `git http-backend` (CGI) behind Basic authentication. */
export interface GitHttpServer {
  url: string;
  /** The Authorization header of every request, in order (undefined when none was sent). */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/** Serves the bare repositories in `root` to a client that authenticates as `user` with `password`. */
export async function startGitHttp(root: string, user: string, password: string): Promise<GitHttpServer> {
  const authorizations: (string | undefined)[] = [];
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const server = http.createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://git');
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        REMOTE_USER: user,
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(child.stdin);
    // CGI: headers (Status first when not 200), a blank line, the body
    let head = Buffer.alloc(0);
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (sent) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const crlf = head.indexOf('\r\n\r\n');
      const end = crlf >= 0 ? crlf : head.indexOf('\n\n');
      if (end < 0) return;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString().split(/\r?\n/)) {
        const at = line.indexOf(':');
        const [name, value] = [line.slice(0, at).trim(), line.slice(at + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + (crlf >= 0 ? 4 : 2)));
      sent = true;
    });
    child.stdout.on('end', () => res.end());
    child.on('error', () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
