import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { dashctl } from './helpers/dashctl.js';
import { tempDir } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * The README's install from a packed tarball: `npm pack`, then `npm install -g` of the tarball
 * (here into a temporary prefix), then the installed `dashplane` serves and the installed
 * `dashctl` talks to it. The dependencies come from npm's cache or the registry.
 */
describe('npm pack + npm install -g of the tarball puts dashctl and dashplane on PATH', function () {
  this.timeout(300_000);
  let tmp: ReturnType<typeof tempDir>;
  let tarball: string;
  const VERSION = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version as string;
  const npm = (args: string[], cwd = PACKAGE_ROOT) => {
    // the build already ran (npm test builds first); --ignore-scripts skips prepare's second build
    const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
    expect(r.status, `npm ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).to.equal(0);
    return r.stdout;
  };

  before(() => {
    tmp = tempDir('dashctl-install-');
    const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', tmp.path]));
    tarball = join(tmp.path, packed[0].filename);
  });
  after(() => tmp?.remove());

  it('the tarball holds the built server, CLI, schemas, UI and examples, and no tests or sources', () => {
    const files = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    for (const f of [
      'package/dist/cli/bin/dashctl.js',
      'package/dist/src/bin/dashplane.js',
      'package/dist/src/kinds/index.js',
      'package/schemas/config.json',
      'package/ui/dist/index.html',
      'package/examples/config.yaml',
      'package/README.md',
    ]) {
      expect(files, f).to.include(f);
    }
    expect(
      files.filter((f) => /\/test\/|\.test\.js$|(?<!\.d)\.ts$|^package\/(src|cli|bench|scripts)\//.test(f)),
      'tests and sources',
    ).to.deep.equal([]);
  });

  it('installed with npm install -g --prefix: both bins run, and the installed dashctl talks to the installed dashplane', async () => {
    const prefix = join(tmp.path, 'prefix');
    npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], tmp.path);
    const bin = (name: string) => join(prefix, 'bin', name);
    expect(spawnSync(bin('dashctl'), ['--version'], { encoding: 'utf8' }).stdout.trim()).to.equal(VERSION);
    expect(spawnSync(bin('dashplane'), ['--version'], { encoding: 'utf8' }).stdout.trim()).to.equal(VERSION);
    const server = spawn(bin('dashplane'), ['--listen', '127.0.0.1:0'], { env: { ...process.env, DASHPLANE_DATABASE_LEVEL_PATH: join(tmp.path, 'data') }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    server.stdout.on('data', (b: Buffer) => (log += b.toString()));
    server.stderr.on('data', (b: Buffer) => (log += b.toString()));
    try {
      await waitFor('the installed server to listen', () => /dashplane listening on (http:\/\/\S+?)"/.test(log), 30_000);
      const url = /dashplane listening on (http:\/\/\S+?)"/.exec(log)![1];
      const r = await dashctl(join(tmp.path, 'config.json'), ['version'], { bin: bin('dashctl'), env: { DASHCTL_URL: url } });
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.include(`Client Version: ${VERSION}`).and.include(`Server Version: ${VERSION} at ${url}`);
      const page = await (await fetch(`${url}/`)).text();
      expect(page, 'the packed UI is served').to.include('<div id="root">').and.not.include('not built');
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(page)![1];
      expect((await fetch(url + script)).status).to.equal(200);
    } finally {
      server.kill();
    }
  });
});
