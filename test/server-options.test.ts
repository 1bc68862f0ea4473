import { expect } from 'chai';
import net from 'node:net';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/main.js';
import { startTestServer, tempDir } from './helpers/server.js';

describe('server options', () => {
  it('security.readonly: reads work, every write is a 403 and nothing changes', async () => {
    const dir = tempDir();
    const writable = await startTestServer({ dataDir: dir.path });
    await writable.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'p' }, spec: {} });
    await writable.server.close();
    const s = await startTestServer({ dataDir: dir.path, env: { DASHPLANE_SECURITY_READONLY: 'true' } });
    try {
      expect((await s.api('GET', '/api/v1/projects/p')).status).to.equal(200);
      const r = await s.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'q' }, spec: {} });
      expect(r.status).to.equal(403);
      expect(r.body.message).to.match(/read-only/);
      expect((await s.api('PUT', '/api/v1/projects/p', { kind: 'Project', metadata: { name: 'p' }, spec: {} })).status).to.equal(403);
      expect((await s.api('DELETE', '/api/v1/projects/p')).status).to.equal(403);
      expect((await s.api('GET', '/api/v1/projects')).body).to.have.length(1);
    } finally {
      await s.stop();
      dir.remove();
    }
  });

  it("close() ends at once connections on which nothing was sent (a client's spare ones), rather than after the 10 s shutdown grace", async () => {
    const s = await startTestServer();
    const { port } = new URL(s.url);
    const spare = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const c = net.connect(Number(port), '127.0.0.1', () => resolve(c));
            c.once('error', reject);
          }),
      ),
    );
    const ended = spare.map((c) => new Promise<void>((resolve) => c.once('close', () => resolve())));
    try {
      // a keep-alive connection that has answered a request is closed too (closeIdleConnections)
      expect((await s.api('GET', '/api/v1/projects')).status).to.equal(200);
      const t0 = Date.now();
      await s.stop();
      expect(Date.now() - t0, 'ms for close() (shutdown grace 10 s)').to.be.below(3_000);
      await Promise.all(ended);
    } finally {
      for (const c of spare) c.destroy();
    }
  });

  it('ephemeral_dashboard.enable: false removes the ephemeraldashboards routes', async () => {
    const s = await startTestServer({ env: { DASHPLANE_EPHEMERAL_DASHBOARD_ENABLE: 'false' } });
    try {
      expect((await s.api('GET', '/api/v1/ephemeraldashboards')).status).to.equal(404);
      expect((await s.api('GET', '/api/v1/dashboards')).status).to.equal(200);
    } finally {
      await s.stop();
    }
  });

  it('PostgreSQL without a shared encryption key stops the start with a clear message', async () => {
    const dir = tempDir();
    try {
      for (const env of [{ DASHPLANE_DATABASE_POSTGRES_URL: 'postgres://x@127.0.0.1/db' }]) {
        const { config } = loadConfig({ listen: '127.0.0.1:0', env: { DASHPLANE_DATABASE_LEVEL_PATH: dir.path, ...env } });
        let message = '';
        await startServer(config, { logger: false }).then(
          (srv) => srv.close(),
          (e: Error) => (message = e.message),
        );
        expect(message).to.match(/every replica needs the same key/);
      }
    } finally {
      dir.remove();
    }
  });
});
