/**
 * The request log is written asynchronously in buffered blocks (one synchronous write per request
 * was most of the GET path's cost) and still loses nothing when the process ends: after a burst
 * of requests and SIGTERM, every request has its line. REL-08: with stdout on a full device the
 * server keeps serving and shuts down cleanly.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { exited, freePort, spawnServer, stopChild } from './helpers/process.js';
import { tempDir } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const BURST = 600;

async function burst(url: string, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, () =>
        fetch(`${url}/api/v1/projects`).then((r) => {
          void r.text();
          return r.status;
        }),
      ),
    );
    statuses.push(...batch);
  }
  return statuses;
}

describe('request log: buffered, complete at exit; REL-08 stdout on a full device', function () {
  this.timeout(60_000);

  it(`a burst of ${BURST} requests, then SIGTERM: ${BURST} request lines, then the shutdown line`, async () => {
    const dir = tempDir();
    try {
      const srv = await spawnServer({ dataDir: dir.path });
      const statuses = await burst(srv.url, BURST);
      expect(statuses.filter((s) => s === 200)).to.have.length(BURST);
      srv.child.kill('SIGTERM');
      expect(await srv.exited).to.equal(0);
      const lines = srv
        .output()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { msg: string; route?: string });
      expect(lines.filter((l) => l.msg === 'request' && l.route === '/api/v1/projects')).to.have.length(BURST);
      expect(lines.some((l) => /SIGTERM received/.test(l.msg))).to.equal(true);
    } finally {
      dir.remove();
    }
  });

  it('a request its client gave up on (a watch closed by the browser) has its line too, marked abandoned', async () => {
    const dir = tempDir();
    try {
      const srv = await spawnServer({ dataDir: dir.path });
      const ac = new AbortController();
      const res = await fetch(`${srv.url}/api/v1/projects?watch=true`, {
        headers: { 'x-request-id': 'watch-left-by-client' },
        signal: ac.signal,
      });
      expect(res.status).to.equal(200);
      ac.abort();
      const line = () =>
        srv
          .output()
          .split('\n')
          .filter((l) => l.includes('watch-left-by-client'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)[0];
      // the log is written in blocks at each turn of the server's event loop: a later request flushes it
      await waitFor(
        "the abandoned request's line",
        async () => {
          await fetch(`${srv.url}/api/v1/health`);
          return line() !== undefined;
        },
        10_000,
      );
      expect(line()).to.deep.include({ msg: 'request', method: 'GET', route: '/api/v1/projects', status: 200, abandoned: true });
      await stopChild(srv.child);
    } finally {
      dir.remove();
    }
  });

  it('REL-08: stdout on /dev/full: requests are answered, the process stays up and exits 0 on SIGTERM', async () => {
    const dir = tempDir();
    const full = openSync('/dev/full', 'w');
    const port = await freePort();
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'dist', 'src', 'bin', 'dashplane.js'), '--listen', `127.0.0.1:${port}`], {
      cwd: PACKAGE_ROOT,
      env: { ...process.env, DASHPLANE_DATABASE_LEVEL_PATH: dir.path, DASHPLANE_LOG_LEVEL: 'info' },
      stdio: ['ignore', full, 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitFor(
        'the server answers',
        () =>
          fetch(`${url}/api/v1/health`).then(
            (r) => r.ok,
            () => false,
          ),
        20_000,
      );
      const statuses = await burst(url, 300);
      expect(
        statuses.filter((s) => s === 200),
        stderr,
      ).to.have.length(300);
      expect(child.exitCode, stderr).to.equal(null);
      const done = exited(child);
      child.kill('SIGTERM');
      await done;
      expect(child.exitCode, stderr).to.equal(0);
    } finally {
      await stopChild(child);
      closeSync(full);
      dir.remove();
    }
  });
});
