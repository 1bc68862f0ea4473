import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { dashctlProcess } from './helpers/dashctl.js';
import { tempDir } from './helpers/server.js';
import { sdkProject, typeErrors } from './helpers/typecheck.js';
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
      'package/dist/sdk/index.js',
      'package/dist/sdk/index.d.ts',
      'package/dist/sdk/generated/types.d.ts',
      'package/schemas/config.json',
      'package/ui/dist/index.html',
      'package/examples/config.yaml',
      'package/README.md',
    ]) {
      expect(files, f).to.include(f);
    }
    expect(
      files.filter((f) => /\/test\/|\.test\.js$|^package\/(?!examples\/).*(?<!\.d)\.ts$|^package\/(src|cli|bench|scripts)\//.test(f)),
      'tests and sources (the TypeScript of examples/dac aside)',
    ).to.deep.equal([]);
  });

  it('installed with npm install -g --prefix: both bins run, and the installed dashctl talks to the installed dashplane', async () => {
    const prefix = join(tmp.path, 'prefix');
    npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], tmp.path);
    const bin = (name: string) => join(prefix, 'bin', name);
    expect(spawnSync(bin('dashctl'), ['--version'], { encoding: 'utf8' }).stdout.trim()).to.equal(VERSION);
    expect(spawnSync(bin('dashplane'), ['--version'], { encoding: 'utf8' }).stdout.trim()).to.equal(VERSION);
    const server = spawn(bin('dashplane'), ['--listen', '127.0.0.1:0'], {
      env: { ...process.env, DASHPLANE_DATABASE_LEVEL_PATH: join(tmp.path, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    server.stdout.on('data', (b: Buffer) => (log += b.toString()));
    server.stderr.on('data', (b: Buffer) => (log += b.toString()));
    try {
      await waitFor('the installed server to listen', () => /dashplane listening on (http:\/\/\S+?)"/.test(log), 30_000);
      const url = /dashplane listening on (http:\/\/\S+?)"/.exec(log)![1];
      const r = await dashctlProcess(join(tmp.path, 'config.json'), ['version'], { bin: bin('dashctl'), env: { DASHCTL_URL: url } });
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

  it('the installed package serves dashplane/sdk: imported by Node and type-checked by tsc in a project, and dashctl build uses its own copy in an empty folder', () => {
    const installed = join(tmp.path, 'prefix', 'lib', 'node_modules', 'dashplane');
    const project = join(tmp.path, 'project');
    sdkProject(project, installed);
    writeFileSync(
      join(project, 'board.ts'),
      `import { dashboard, panelGroup, panel, markdown } from 'dashplane/sdk';\nexport default dashboard({ name: 'b', groups: [panelGroup({ panels: [panel({ title: 'Hi', plugin: markdown({ text: 'x' }) })] })] });\n`,
    );
    expect([...typeErrors(project).values()].flat()).to.deep.equal([]);
    const imported = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const s = await import('dashplane/sdk'); console.log(import.meta.resolve('dashplane/sdk'), typeof s.dashboard)",
      ],
      {
        cwd: project,
        encoding: 'utf8',
      },
    );
    expect(imported.stdout.trim(), imported.stderr).to.match(/\/node_modules\/dashplane\/dist\/sdk\/index\.js function$/);
    const empty = join(tmp.path, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'board.ts'), readFileSync(join(project, 'board.ts')));
    const built = spawnSync(join(tmp.path, 'prefix', 'bin', 'dashctl'), ['build', '-f', 'board.ts', '-o', 'json'], {
      cwd: empty,
      encoding: 'utf8',
    });
    expect(built.status, built.stderr).to.equal(0);
    expect(JSON.parse(built.stdout).spec.panels.hi.spec.plugin).to.deep.equal({ kind: 'Markdown', spec: { text: 'x' } });
  });
});
