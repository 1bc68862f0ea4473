/**
 * dashctl against a server that does not honour `?dryRun=true`, as Perses does not (it ignores the
 * parameter and carries the write out): a real dashplane server behind a proxy that acts like
 * Perses. The proxy drops `dryRun` from every query, drops dashplane's own headers both ways
 * (X-Dashplane-*: the version header dashctl recognises dashplane by, the field manager, the
 * no-op PUT), and offers /api/validate only for the kinds Perses validates. diff and apply's
 * plan must write nothing through it, apply --dry-run and delete --dry-run must refuse before
 * sending anything, and apply must work.
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ApiClient } from '../cli/api-client.js';
import { readBuildInfo } from '../src/build-info.js';
import { dashctl, show, summary, type Run } from './helpers/dashctl.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';

/** The plurals Perses v0.54 serves POST /api/validate/{plural} for. */
const PERSES_VALIDATES = new Set(['dashboards', 'datasources', 'globaldatasources', 'variables', 'globalvariables']);

interface Seen {
  method: string;
  path: string;
  query: string;
}

/** A Perses-like front for `upstream`; every request it gets is recorded in `seen`. */
async function persesLikeProxy(upstream: string, seen: Seen[]): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://proxy');
    seen.push({ method: req.method!, path: url.pathname, query: url.search });
    const validate = /^\/api\/validate\/([^/]+)$/.exec(url.pathname);
    if (validate && !PERSES_VALIDATES.has(validate[1])) {
      req.resume();
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
    }
    url.searchParams.delete('dryRun');
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && !k.startsWith('x-dashplane-')));
    const forward = request(upstream + url.pathname + url.search, { method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode!, Object.fromEntries(Object.entries(up.headers).filter(([k]) => !k.startsWith('x-dashplane-'))));
      up.pipe(res);
    });
    forward.on('error', (e) => res.destroy(e));
    req.pipe(forward);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const FOLDER = '/api/v1/projects/demo/folders/fresh-folder';
const FRESH = '/api/v1/projects/demo/dashboards/fresh';
const EXISTING = '/api/v1/projects/demo/dashboards/existing';
const SECRET = '/api/v1/projects/demo/secrets/db';

const dashboard = (name: string, title: string, project = 'demo') =>
  `kind: Dashboard\nmetadata: {name: ${name}, project: ${project}}\nspec: {display: {name: ${title}}, duration: 1h, panels: {}, layouts: []}\n`;
const secret = (password: string) =>
  `kind: Secret\nmetadata: {name: db, project: demo}\nspec: {basicAuth: {username: reader, password: ${password}}}\n`;

describe('dashctl against a server without dry runs (a Perses-like proxy in front of dashplane)', function () {
  this.timeout(120_000);
  let srv: TestServer;
  let proxy: { url: string; server: Server };
  let tmp: ReturnType<typeof tempDir>;
  let dir: string;
  const seen: Seen[] = [];
  const run = (args: string[]): Promise<Run> => dashctl(join(tmp.path, 'config.json'), args);
  /** The requests a dashctl run sent through the proxy. */
  const during = async (args: string[]): Promise<{ r: Run; sent: Seen[] }> => {
    const from = seen.length;
    const r = await run(args);
    return { r, sent: seen.slice(from) };
  };
  /** Status and version of each object, read from dashplane directly. */
  const state = async () => {
    const out: Record<string, string> = {};
    for (const path of [FOLDER, FRESH, EXISTING, SECRET]) {
      const res = await srv.api('GET', path);
      out[path] = res.status === 200 ? `version ${res.body.metadata.version}` : String(res.status);
    }
    return out;
  };
  const writes = (sent: Seen[]) => sent.filter((s) => s.method !== 'GET' && !s.path.startsWith('/api/validate/'));

  before(async () => {
    srv = await startTestServer();
    proxy = await persesLikeProxy(srv.url, seen);
    tmp = tempDir('dashctl-perses-');
    dir = join(tmp.path, 'manifests');
    mkdirSync(dir);
    expect((await srv.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'demo' }, spec: {} })).status).to.equal(200);
    const existing = {
      kind: 'Dashboard',
      metadata: { name: 'existing', project: 'demo' },
      spec: { display: { name: 'Old title' }, duration: '1h', panels: {}, layouts: [] },
    };
    expect((await srv.api('POST', '/api/v1/projects/demo/dashboards', existing)).status).to.equal(200);
    const db = {
      kind: 'Secret',
      metadata: { name: 'db', project: 'demo' },
      spec: { basicAuth: { username: 'reader', password: 'Passw0rd-1' } },
    };
    expect((await srv.api('POST', '/api/v1/projects/demo/secrets', db)).status).to.equal(200);
    writeFileSync(join(dir, 'folder.yaml'), 'kind: Folder\nmetadata: {name: fresh-folder, project: demo}\nspec: {}\n');
    writeFileSync(join(dir, 'fresh.yaml'), dashboard('fresh', 'Fresh'));
    writeFileSync(join(dir, 'existing.yaml'), dashboard('existing', 'New title'));
    // the same secret value as stored: only a dry run could tell
    writeFileSync(join(dir, 'secret.yaml'), secret('Passw0rd-1'));
    const r = await run(['login', proxy.url]);
    expect(r.code, show(r)).to.equal(0);
  });
  after(async () => {
    await new Promise((r) => proxy?.server.close(r));
    await srv?.stop();
    tmp?.remove();
  });

  it('dashplane names itself on every answer (X-Dashplane-Version), which the proxy removes', async () => {
    const { version } = readBuildInfo();
    for (const path of ['/api/v1/health', '/api/v1/projects/demo', '/api/v1/nothing-here'])
      expect((await srv.api('GET', path)).headers.get('x-dashplane-version'), path).to.equal(version);
    expect((await fetch(`${proxy.url}/api/v1/health`)).headers.get('x-dashplane-version')).to.equal(null);
  });

  it('diff writes nothing: no dryRun sent, objects validated where the server can, one warning naming what is not checked', async () => {
    const before = await state();
    const { r, sent } = await during(['diff', '-f', dir]);
    expect(r.code, show(r)).to.equal(1);
    expect(writes(sent), show(r)).to.deep.equal([]);
    expect(sent.filter((s) => s.query.includes('dryRun'))).to.deep.equal([]);
    expect(await state(), 'nothing written').to.deep.equal(before);
    expect(before[FOLDER]).to.equal('404');
    // dashboards validated (Perses offers it), Folder not (it does not)
    expect(sent.filter((s) => s.path.startsWith('/api/validate/')).map((s) => s.path)).to.include.members([
      '/api/validate/dashboards',
      '/api/validate/folders',
    ]);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings, show(r)).to.have.length(1);
    expect(warnings[0])
      .to.include(`${proxy.url} does not honour dryRun`)
      .and.include('lacks for Folder, Secret: those were not validated')
      .and.include('not checked: permissions, references and the one default datasource per plugin kind')
      .and.include('and secret values');
    expect(r.stdout).to.include('+++ ').and.include('fresh-folder').and.include('name: New title');
    expect(r.stdout).to.include('# secret values not compared (the server does not honour dryRun').and.not.include('Passw0rd');
  });

  it('an invalid object or a missing project is still refused by diff and apply before anything is written', async () => {
    const bad = join(tmp.path, 'bad');
    mkdirSync(bad);
    writeFileSync(
      join(bad, 'bad.yaml'),
      `${dashboard('fresh', 'Fresh')}---\nkind: Dashboard\nmetadata: {name: broken, project: demo}\nspec: {duration: soon, panels: {}, layouts: []}\n---\n${dashboard('lost', 'Lost', 'nowhere')}`,
    );
    const before = await state();
    const d = await during(['diff', '-f', bad]);
    expect(d.r.code, show(d.r)).to.equal(2);
    expect(d.r.stderr).to.include('Dashboard demo/broken').and.include('spec.duration').and.include('project "nowhere" does not exist');
    expect(writes(d.sent)).to.deep.equal([]);
    const a = await during(['apply', '-f', bad]);
    expect(a.r.code, show(a.r)).to.equal(1);
    expect(summary(a.r), show(a.r)).to.deep.equal({ created: 0, configured: 0, unchanged: 0, pruned: 0, failed: 2 });
    expect(a.r.stdout).to.include('nothing applied');
    expect(writes(a.sent)).to.deep.equal([]);
    expect(await state()).to.deep.equal(before);
  });

  it('apply --dry-run and delete --dry-run refuse before sending anything', async () => {
    const before = await state();
    const a = await during(['apply', '--dry-run', '-f', dir]);
    expect(a.r.code, show(a.r)).to.equal(1);
    expect(a.r.stderr)
      .to.include('apply --dry-run needs a server that honours dryRun=true (dashplane)')
      .and.include('nothing was sent')
      .and.include('dashctl diff -f PATH');
    expect(a.sent.map((s) => `${s.method} ${s.path}`)).to.deep.equal(['GET /api/v1/health']);
    const d = await during(['delete', '--dry-run', 'dashboard', 'existing', '-p', 'demo']);
    expect(d.r.code, show(d.r)).to.equal(1);
    expect(d.r.stderr).to.include('delete --dry-run needs a server that honours dryRun=true');
    expect(d.sent.map((s) => `${s.method} ${s.path}`)).to.deep.equal(['GET /api/v1/health']);
    expect(await state()).to.deep.equal(before);
    // against dashplane itself, the same dry run is made
    const direct = await dashctl(join(tmp.path, 'config.json'), ['delete', '--dry-run', 'dashboard', 'existing', '-p', 'demo'], {
      env: { DASHCTL_URL: srv.url },
    });
    expect(direct.code, show(direct)).to.equal(0);
    expect(direct.stdout).to.include('Dashboard demo/existing deleted (dry run)');
    expect(await state()).to.deep.equal(before);
  });

  it("dashctl's API client refuses any request asking for a dry run of such a server, sending nothing but the one check", async () => {
    const from = seen.length;
    const api = new ApiClient({ url: proxy.url });
    const body = { kind: 'Folder', metadata: { name: 'by-client', project: 'demo' }, spec: {} };
    for (const [method, path] of [
      ['POST', '/api/v1/projects/demo/folders'],
      ['PUT', EXISTING],
      ['DELETE', EXISTING],
    ]) {
      let error: unknown;
      await api.request(method, path, { body, query: { dryRun: true } }).catch((e: unknown) => (error = e));
      expect(String(error), `${method} ${path}`).to.include('needs a server that honours dryRun=true').and.include('nothing was sent');
    }
    expect(seen.slice(from).map((s) => `${s.method} ${s.path}`)).to.deep.equal(['GET /api/v1/health']);
    expect((await srv.api('GET', '/api/v1/projects/demo/folders/by-client')).status).to.equal(404);
    // the same client against dashplane itself sends them
    const direct = new ApiClient({ url: srv.url });
    expect(await direct.honoursDryRun()).to.equal(true);
    expect((await direct.request('POST', '/api/v1/projects/demo/folders', { body, query: { dryRun: true } })).status).to.equal(200);
    expect((await srv.api('GET', '/api/v1/projects/demo/folders/by-client')).status).to.equal(404);
  });

  it('apply plans without dry runs and then writes everything (no "already exists", not partly applied)', async () => {
    const { r, sent } = await during(['apply', '-f', dir]);
    expect(r.code, show(r)).to.equal(0);
    expect(summary(r), show(r)).to.deep.equal({ created: 2, configured: 2, unchanged: 0, pruned: 0, failed: 0 });
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).to.have.length(1);
    expect(sent.filter((s) => s.query.includes('dryRun'))).to.deep.equal([]);
    expect(await state()).to.deep.equal({ [FOLDER]: 'version 0', [FRESH]: 'version 0', [EXISTING]: 'version 1', [SECRET]: 'version 1' });
    expect((await srv.api('GET', EXISTING)).body.spec.display.name).to.equal('New title');
    // what is left to diff: only the secret, which cannot be compared without a dry run
    const again = await run(['diff', '-f', dir]);
    expect(again.code, show(again)).to.equal(1);
    expect(again.stdout, show(again)).to.include('live/Secret/demo/db').and.not.include('Dashboard/').and.not.include('Folder/');
  });
});
