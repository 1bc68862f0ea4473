import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/main.js';

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix = 'dashplane-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A real dashplane server on 127.0.0.1 (random port) over a fresh LevelDB directory. */
export interface TestServer {
  url: string;
  server: RunningServer;
  dataDir: string;
  /** fetch relative to the server, JSON by default; returns status, headers and parsed body. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  /** Raw request with a string/Buffer body. */
  raw(method: string, path: string, body?: string | Buffer, headers?: Record<string, string>): Promise<ApiResponse>;
  stop(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when empty or not JSON. */
  body: any;
}

/** Status, headers, text and parsed JSON (undefined when empty or not JSON) of a response. */
export async function readResponse(res: Response): Promise<ApiResponse> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** A request to `base + path`, with `body` sent as JSON when given. */
export async function callJson(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return readResponse(
    await fetch(base + path, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );
}

/** Starts a server; `env` entries become configuration (DASHPLANE_*), `configFile` is a YAML file. */
export async function startTestServer(
  opts: { env?: Record<string, string>; configFile?: string; dataDir?: string } = {},
): Promise<TestServer> {
  const dir = opts.dataDir ? undefined : tempDir();
  const dataDir = opts.dataDir ?? dir!.path;
  const { config } = loadConfig({
    ...(opts.configFile ? { file: opts.configFile } : {}),
    listen: '127.0.0.1:0',
    env: { DASHPLANE_DATABASE_LEVEL_PATH: dataDir, ...(opts.env ?? {}) },
  });
  const server = await startServer(config, { logger: false });
  const raw = async (method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<ApiResponse> =>
    readResponse(await fetch(server.url + path, { method, headers, ...(body !== undefined ? { body: body as unknown as BodyInit } : {}) }));
  return {
    url: server.url,
    server,
    dataDir,
    raw,
    api: (method, path, body, headers = {}) =>
      raw(
        method,
        path,
        body === undefined ? undefined : JSON.stringify(body),
        body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ),
    stop: async () => {
      await server.close();
      dir?.remove();
    },
  };
}
