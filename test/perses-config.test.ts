/**
 * A Perses configuration file as Perses' users write it (test/data/perses/config.yaml: Perses'
 * dev settings and documented keys) starts the real server, which names every key it ignores,
 * serves everything under api_prefix and applies Perses' datasource switches. Refused storages
 * stop it with what to use instead.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { runToExit, spawnServer, stopChild, type ServerProcess } from './helpers/process.js';
import { callJson, tempDir } from './helpers/server.js';

const CONFIG = join(PACKAGE_ROOT, 'test', 'data', 'perses', 'config.yaml');

describe('a Perses configuration file (test/data/perses/config.yaml)', function () {
  this.timeout(30_000);
  const dir = tempDir();
  let p: ServerProcess;
  let base: string;
  before(async () => {
    p = await spawnServer({ dataDir: join(dir.path, 'data'), args: ['--config', CONFIG, '--listen', '127.0.0.1:0'] });
    base = `${p.url}/perses`;
  });
  after(async () => {
    if (p) await stopChild(p.child);
    dir.remove();
  });

  it('starts, with one warning per key that has no effect here, naming it and why; implemented keys and a disabled lint rule are not warned about', () => {
    const warnings = p
      .output()
      .split('\n')
      .filter((l) => l.includes('warning:'));
    for (const key of [
      'frontend.explorer',
      'frontend.information',
      'frontend.important_dashboards',
      'frontend.time_range',
      'plugin.path',
      'plugin.archive_path',
      'plugin.enable_dev',
      'schemas',
      'search',
      'security.authorization.check_latest_update_interval',
    ]) {
      expect(
        warnings.filter((w) => w.includes(`warning: ${key} is ignored: `)),
        key,
      ).to.have.length(1);
    }
    expect(warnings.some((w) => w.includes('api_prefix is "/perses"'))).to.equal(true);
    expect(warnings.join('\n')).to.not.match(/datasource|variable|dashboard\.|ephemeral|provisioning|cors|cookie/);
  });

  it('api_prefix: the API is served under it, any other path is a 404 naming the prefix, /metrics stays at the root, lists link under the prefix', async () => {
    expect((await callJson(base, 'GET', '/api/v1/health')).status).to.equal(200);
    const outside = await callJson(p.url, 'GET', '/api/v1/projects');
    expect(outside.status).to.equal(404);
    expect(outside.body.message).to.include('this server answers under /perses/ (api_prefix)');
    expect((await fetch(`${p.url}/metrics`)).status).to.equal(200);
    for (const name of ['a', 'b'])
      expect((await callJson(base, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name } })).status).to.equal(200);
    const page = await fetch(`${base}/api/v1/projects?limit=1`);
    expect(page.headers.get('link')).to.match(/^<\/perses\/api\/v1\/projects\?limit=1&continue=[^>]+>; rel="next"$/);
  });

  it('api_prefix: the UI page is served under it, its links to its files point there, and its files are served there', async () => {
    const html = await (await fetch(`${base}/projects/a`)).text();
    expect(html).to.include('<meta name="dashplane-prefix" content="/perses" />');
    const script = /src="(\/perses\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).to.be.a('string');
    expect(html).to.not.match(/(?:src|href)="\/(?!perses\/)/);
    const js = await fetch(p.url + script!);
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-type')).to.match(/javascript/);
  });

  it('api_prefix: the datasource proxy is under it; datasource.global.disable takes GlobalDatasources and their proxy away; disable_local refuses dashboard datasources', async () => {
    const ds = {
      kind: 'Datasource',
      metadata: { name: 'self', project: 'a' },
      spec: {
        default: true,
        plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: `${base}/api` } } } },
      },
    };
    expect((await callJson(base, 'POST', '/api/v1/projects/a/datasources', ds)).status).to.equal(200);
    const proxied = await callJson(base, 'GET', '/proxy/projects/a/datasources/self/v1/health');
    expect(proxied.status, proxied.text).to.equal(200);
    expect(proxied.body.database).to.equal(true);
    expect((await callJson(base, 'GET', '/api/v1/globaldatasources')).status).to.equal(404);
    expect((await callJson(base, 'GET', '/proxy/globaldatasources/any/api/v1/query')).status).to.equal(404);
    const dashboard = {
      kind: 'Dashboard',
      metadata: { name: 'd', project: 'a' },
      spec: { display: { name: 'd' }, duration: '1h', panels: {}, layouts: [], datasources: { local: ds.spec } },
    };
    const refused = await callJson(base, 'POST', '/api/v1/projects/a/dashboards', dashboard);
    expect(refused.status).to.equal(400);
    expect(refused.body.details).to.deep.include({
      path: 'spec.datasources',
      message:
        'this server does not allow datasources defined in a dashboard (datasource.disable_local): use a project Datasource or a GlobalDatasource',
    });
    expect(
      (await callJson(base, 'POST', '/api/v1/projects/a/dashboards', { ...dashboard, spec: { ...dashboard.spec, datasources: {} } }))
        .status,
    ).to.equal(200);
    expect((await callJson(base, 'GET', '/proxy/projects/a/dashboards/d/datasources/local/v1/health')).status).to.equal(404);
  });
});

describe('Perses configuration keys dashplane refuses', function () {
  this.timeout(30_000);
  it('database.file and database.sql stop the server, saying what to use instead', async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, 'perses.yaml');
      writeFileSync(
        file,
        'database:\n  file:\n    folder: "./local_db"\n    extension: "json"\n  sql:\n    db_name: perses\n    addr: "localhost:3306"\n',
      );
      const r = await runToExit(['--config', file, '--listen', '127.0.0.1:0'], { DASHPLANE_DATABASE_LEVEL_PATH: join(dir.path, 'data') });
      expect(r.code).to.not.equal(0);
      expect(r.output).to.include(
        'database.file: dashplane does not store resources in a folder of files; remove it and use database.level',
      );
      expect(r.output).to.include(
        'database.sql: dashplane does not store resources in MySQL or MariaDB; remove it and use database.postgres',
      );
    } finally {
      dir.remove();
    }
  });
});
