import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { freePort, runToExit, spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { tempDir } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const project = (name: string) => ({ kind: 'Project', metadata: { name }, spec: {} });
const folder = (name: string) => ({ kind: 'Folder', metadata: { name }, spec: { items: [] } });

describe('the server process', function () {
  this.timeout(120_000);

  it('REL-05: SIGKILL during a project cascade delete of 500 children leaves no orphans after restart', async () => {
    for (const seed of [0, 5, 15]) {
      const dir = tempDir();
      /** The server running, stopped if an assertion fails. */
      let running: ServerProcess | undefined;
      try {
        const first = await spawnServer({ dataDir: dir.path });
        running = first;
        for (const p of ['big', 'bigger']) expect((await fetch(`${first.url}/api/v1/projects`, json(project(p)))).status).to.equal(200);
        for (let i = 0; i < 500; i += 50) {
          await Promise.all(
            Array.from({ length: 50 }, (_, j) =>
              fetch(`${first.url}/api/v1/projects/big/folders`, json(folder(`f${i + j}`))).then((r) => expect(r.status).to.equal(200)),
            ),
          );
        }
        await fetch(`${first.url}/api/v1/projects/bigger/folders`, json(folder('keep')));
        const deletion = fetch(`${first.url}/api/v1/projects/big`, { method: 'DELETE' }).catch(() => undefined);
        await new Promise((r) => setTimeout(r, seed)); // kill at different points of the cascade
        first.child.kill('SIGKILL');
        await first.exited;
        await deletion;
        const srv = await spawnServer({ dataDir: dir.path });
        running = srv;
        const projectStatus = (await fetch(`${srv.url}/api/v1/projects/big`)).status;
        // every project's folders: a list under a project that no longer exists is 400, as in Perses
        const all = (await (await fetch(`${srv.url}/api/v1/folders`)).json()) as { metadata: { project: string } }[];
        const children = all.filter((f) => f.metadata.project === 'big');
        if (projectStatus === 404) expect(children, `seed ${seed}: orphans left`).to.have.length(0);
        else expect(children, `seed ${seed}: partial cascade`).to.have.length(500);
        expect(((await (await fetch(`${srv.url}/api/v1/projects/bigger/folders`)).json()) as unknown[]).length).to.equal(1);
        srv.child.kill('SIGTERM');
        expect(await srv.exited).to.equal(0);
      } finally {
        // a failed assertion must not leave the server running
        if (running) await stopChild(running.child);
        dir.remove();
      }
    }
  });

  it('SIGTERM exits 0 and releases the data directory; a second server on it fails clearly (REL-10)', async () => {
    const dir = tempDir();
    try {
      const first = await spawnServer({ dataDir: dir.path });
      const second = await runToExit(['--listen', '127.0.0.1:0'], { DASHPLANE_DATABASE_LEVEL_PATH: dir.path });
      expect(second.code).to.not.equal(0);
      expect(second.output).to.match(/in use by another dashplane process/);
      expect((await fetch(`${first.url}/api/v1/health`)).status).to.equal(200);
      first.child.kill('SIGTERM');
      expect(await first.exited).to.equal(0);
      const again = await spawnServer({ dataDir: dir.path });
      again.child.kill('SIGTERM');
      expect(await again.exited).to.equal(0);
    } finally {
      dir.remove();
    }
  });

  it('a bad configuration stops the server with a message naming the key', async () => {
    const dir = tempDir();
    try {
      const f = join(dir.path, 'bad.yaml');
      writeFileSync(f, 'histroy:\n  max_versions: 3\n');
      const r = await runToExit(['--config', f]);
      expect(r.code).to.equal(2);
      expect(r.output).to.match(/histroy/);
      const r2 = await runToExit(['--listen', 'nowhere'], { DASHPLANE_DATABASE_LEVEL_PATH: join(dir.path, 'data') });
      expect(r2.code).to.not.equal(0);
      expect(r2.output).to.match(/HOST:PORT/);
    } finally {
      dir.remove();
    }
  });

  it('a bad --listen is refused (exit 2, naming the form) before the data directory is taken: also while a server holds it', async () => {
    const dir = tempDir();
    try {
      const running = await spawnServer({ dataDir: dir.path });
      const r = await runToExit(['--listen', 'nowhere'], { DASHPLANE_DATABASE_LEVEL_PATH: dir.path });
      expect(r.code, r.output).to.equal(2);
      expect(r.output)
        .to.include('listen "nowhere" must look like HOST:PORT')
        .and.not.match(/in use by another/);
      const port = await runToExit(['--listen', '127.0.0.1:70000'], { DASHPLANE_DATABASE_LEVEL_PATH: dir.path });
      expect(port.code, port.output).to.equal(2);
      running.child.kill('SIGTERM');
      expect(await running.exited).to.equal(0);
    } finally {
      dir.remove();
    }
  });

  it("a Perses configuration's security section starts unchanged: encryption_key as a 32-byte string", async () => {
    const dir = tempDir();
    try {
      const f = join(dir.path, 'config.yaml');
      // the security section of Perses' own documented example
      writeFileSync(
        f,
        'security:\n  readonly: false\n  enable_auth: true\n  encryption_key: "=tW$56zytgB&3jN2E%7-+qrGZE?v6LCc"\n  cookie:\n    same_site: lax\n    secure: false\n  authorization:\n    guest_permissions:\n      - actions: [read]\n        scopes: ["*"]\n',
      );
      const srv = await spawnServer({ dataDir: dir.path, args: ['--config', f, '--listen', '127.0.0.1:0'] });
      try {
        expect(srv.output()).to.include('encryption key from security.encryption_key');
        expect((await fetch(`${srv.url}/api/v1/health`)).status).to.equal(200);
      } finally {
        srv.child.kill('SIGTERM');
        await srv.exited;
      }
    } finally {
      dir.remove();
    }
  });

  it('`npm start -- --config F --listen A` passes its arguments through to the server', async () => {
    // prestart builds the server and the UI first (checked below); npm test has just built both
    // (pretest), so the start runs without it (--ignore-scripts skips pre- and post-scripts, not the
    // script named): the build took 15-85 s of the run, and rewrote dist/ while other workers read it
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.prestart).to.equal('npm run build --silent');
    expect(pkg.scripts.build).to.match(/^tsc -p tsconfig\.build\.json && node dist\/scripts\/build-ui\.js$/);
    const dir = tempDir();
    const port = await freePort();
    const cfg = join(dir.path, 'c.yaml');
    writeFileSync(cfg, `database:\n  level:\n    path: ${join(dir.path, 'data')}\nhistory:\n  max_versions: 9\n`);
    const child = spawn('npm', ['start', '--silent', '--ignore-scripts', '--', '--config', cfg, '--listen', `127.0.0.1:${port}`], {
      cwd: PACKAGE_ROOT,
      stdio: 'ignore',
      detached: true,
    });
    try {
      const config = await waitFor(
        'npm start to answer',
        async () => {
          try {
            const r = await fetch(`http://127.0.0.1:${port}/api/config`);
            return r.status === 200
              ? ((await r.json()) as { history: { max_versions: number }; database: { level: { path: string } } })
              : undefined;
          } catch {
            return undefined;
          }
        },
        60_000,
        100,
      );
      if (!config) throw new Error('no config');
      expect(config.history.max_versions).to.equal(9);
      expect(config.database.level.path).to.equal(join(dir.path, 'data'));
    } finally {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // the group is already gone
      }
      if (child.exitCode === null) await new Promise((r) => child.on('exit', r));
      dir.remove();
    }
  });
});
