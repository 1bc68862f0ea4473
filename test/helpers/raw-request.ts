import http from 'node:http';
import type { TestServer } from './server.js';

/**
 * A request whose path is sent byte for byte (fetch and URL would resolve "..", "%2e%2e"), as
 * Perses' tests send theirs: status and parsed JSON body.
 */
export function rawRequest(
  s: TestServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  json?: unknown,
): Promise<{ status: number; body: any }> {
  const url = new URL(s.url);
  const payload = json === undefined ? undefined : typeof json === 'string' ? json : JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: {
          ...headers,
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = text;
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
