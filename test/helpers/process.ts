import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';

/** A TCP port on 127.0.0.1 that was free a moment ago (asked from the kernel). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the child has exited. */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await done;
  clearTimeout(timer);
}

/** A dashplane server in its own process (for crash and lifecycle tests). */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
}

/** Starts `node dist/src/bin/dashplane.js` (or `command`) and waits for its "listening on" line. */
export async function spawnServer(opts: {
  dataDir: string;
  env?: Record<string, string>;
  args?: string[];
  command?: [string, string[]];
  timeoutMs?: number;
}): Promise<ServerProcess> {
  const [cmd, baseArgs] = opts.command ?? [process.execPath, [join(PACKAGE_ROOT, 'dist', 'src', 'bin', 'dashplane.js')]];
  const child = spawn(cmd, [...baseArgs, ...(opts.args ?? ['--listen', '127.0.0.1:0'])], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, DASHPLANE_DATABASE_LEVEL_PATH: opts.dataDir, DASHPLANE_LOG_LEVEL: 'info', ...(opts.env ?? {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  // 'close', not 'exit': at 'exit' the last lines of output may still be in the pipes
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start within ${opts.timeoutMs ?? 20_000} ms:\n${out}`)),
      opts.timeoutMs ?? 20_000,
    );
    const check = () => {
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        // no more scans of the whole output at every line a long-running server prints
        child.stdout!.off('data', check);
        child.stderr!.off('data', check);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });
  return { child, url, output: () => out, exited };
}

/**
 * Runs the server binary expecting it to exit; returns code and output. It runs in an empty
 * directory of its own, removed afterwards: a run that names no data directory gets `./data`
 * there, never the checkout's (which `npm start` may be using).
 */
export function runToExit(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<{ code: number | string; output: string }> {
  return new Promise((resolve, reject) => {
    const cwd = mkdtempSync(join(tmpdir(), 'dashplane-run-'));
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'dist', 'src', 'bin', 'dashplane.js'), ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.on('close', () => rmSync(cwd, { recursive: true, force: true }));
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`did not exit within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? -1, output });
    });
  });
}
