/**
 * What apply's plan and diff check before anything is written, against a real server: the
 * one-default-datasource rule (against the server and within the input), the server's checks
 * in diff (exit 2), inputs holding no resource, and the positions and labels of the messages.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dashctl, show, summary, type Run } from './helpers/dashctl.js';
import { startTestServer, tempDir, type TestServer } from './helpers/server.js';

const prometheus = (kind: string, name: string, isDefault: boolean, project?: string) =>
  [
    `kind: ${kind}`,
    'metadata:',
    `  name: ${name}`,
    ...(project ? [`  project: ${project}`] : []),
    'spec:',
    `  default: ${isDefault}`,
    `  plugin: {kind: PrometheusDatasource, spec: {directUrl: "http://${name}:9090"}}`,
    '',
  ].join('\n');

const folder = (name: string, project: string) => `kind: Folder\nmetadata: {name: ${name}, project: ${project}}\nspec: {}\n`;

/** How many times `text` occurs in `s`. */
const occurrences = (s: string, text: string) => s.split(text).length - 1;

describe('dashctl plan checks: default datasources, diff refusals, empty inputs, message positions', function () {
  this.timeout(120_000);
  let srv: TestServer;
  let tmp: ReturnType<typeof tempDir>;
  const run = (args: string[], o?: { input?: string }): Promise<Run> => dashctl(join(tmp.path, 'config.json'), args, o);
  const file = (name: string, text: string) => {
    const path = join(tmp.path, name);
    writeFileSync(path, text);
    return path;
  };
  const status = async (path: string) => (await srv.api('GET', path)).status;

  before(async () => {
    srv = await startTestServer();
    tmp = tempDir('dashctl-plan-checks-');
    const r = await run(['login', srv.url]);
    expect(r.code, show(r)).to.equal(0);
    for (const p of ['demo', 'other'])
      expect((await srv.api('POST', '/api/v1/projects', { kind: 'Project', metadata: { name: p }, spec: {} })).status).to.equal(200);
    const gds = await srv.api('POST', '/api/v1/globaldatasources', {
      kind: 'GlobalDatasource',
      metadata: { name: 'prom-a' },
      spec: { default: true, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://prom-a:9090' } } },
    });
    expect(gds.status, gds.text).to.equal(200);
  });
  after(async () => {
    await srv?.stop();
    tmp?.remove();
  });

  describe('at most one default datasource per plugin kind in a scope', () => {
    it('a default GlobalDatasource while another is the default on the server: refused by the plan, nothing written (exit 1)', async () => {
      const f = file('gds-b.yaml', [folder('f-a', 'demo'), prometheus('GlobalDatasource', 'prom-b', true)].join('---\n'));
      const r = await run(['apply', '-f', f]);
      expect(r.code, show(r)).to.equal(1);
      expect(r.stdout, show(r)).to.include('refused 1').and.include('nothing applied');
      expect(summary(r), show(r)).to.deep.equal({ created: 0, configured: 0, unchanged: 0, pruned: 0, failed: 1 });
      expect(r.stderr, show(r))
        .to.include('GlobalDatasource prom-b')
        .and.include('spec.default: GlobalDatasource "prom-a" is already the default datasource for PrometheusDatasource')
        .and.include(`(${f}:9)`);
      expect(await status('/api/v1/projects/demo/folders/f-a'), 'nothing written').to.equal(404);
      expect(await status('/api/v1/globaldatasources/prom-b')).to.equal(404);
      const d = await run(['diff', '-f', f]);
      expect(d.code, show(d)).to.equal(2);
      expect(d.stderr).to.include('"prom-a" is already the default').and.include('apply would refuse 1 object(s)');
    });

    it('two default PrometheusDatasources of one project in the input: refused naming both files, nothing written (exit 1)', async () => {
      const one = file('ds-1.yaml', [folder('f-b', 'demo'), prometheus('Datasource', 'ds-1', true, 'demo')].join('---\n'));
      const two = file('ds-2.yaml', prometheus('Datasource', 'ds-2', true, 'demo'));
      // the same claim in another project is fine
      const elsewhere = file('ds-3.yaml', prometheus('Datasource', 'ds-3', true, 'other'));
      const r = await run(['apply', '-f', one, '-f', two, '-f', elsewhere]);
      expect(r.code, show(r)).to.equal(1);
      expect(summary(r), show(r)).to.deep.equal({ created: 0, configured: 0, unchanged: 0, pruned: 0, failed: 1 });
      expect(r.stderr, show(r)).to.include(
        `error: ${two} Datasource demo/ds-2: spec.default is true here (${two}:6) and in ${one}#1:10 (Datasource demo/ds-1): there can be only one default datasource for PrometheusDatasource in project "demo"`,
      );
      expect(r.stderr).not.to.include('ds-3');
      for (const path of [
        '/api/v1/projects/demo/folders/f-b',
        '/api/v1/projects/demo/datasources/ds-1',
        '/api/v1/projects/demo/datasources/ds-2',
        '/api/v1/projects/other/datasources/ds-3',
      ]) {
        expect(await status(path), path).to.equal(404);
      }
      const d = await run(['diff', '-f', one, '-f', two]);
      expect(d.code, show(d)).to.equal(2);
      expect(d.stderr).to.include('Datasource demo/ds-2: spec.default is true here');
    });

    it('moving the default from one datasource to another within the input is planned and applied', async () => {
      const f = file(
        'move.yaml',
        [prometheus('GlobalDatasource', 'prom-b', true), prometheus('GlobalDatasource', 'prom-a', false)].join('---\n'),
      );
      const dry = await run(['apply', '-f', f, '--dry-run']);
      expect(dry.code, show(dry)).to.equal(0);
      const r = await run(['apply', '-f', f]);
      expect(r.code, show(r)).to.equal(0);
      expect(summary(r), show(r)).to.deep.equal({ created: 1, configured: 1, unchanged: 0, pruned: 0, failed: 0 });
      expect((await srv.api('GET', '/api/v1/globaldatasources/prom-b')).body.spec.default).to.equal(true);
      expect((await srv.api('GET', '/api/v1/globaldatasources/prom-a')).body.spec.default).to.equal(false);
    });
  });

  describe('diff runs the checks of apply', () => {
    it('an object apply would refuse (bad duration, unknown panel plugin) is an error naming its paths and lines (exit 2); the rest is still diffed', async () => {
      const f = file(
        'bad-dash.yaml',
        [
          'kind: Dashboard',
          'metadata: {name: bad, project: demo}',
          'spec:',
          '  display: {name: bad}',
          '  duration: 1 hour',
          '  panels:',
          '    p:',
          '      kind: Panel',
          '      spec:',
          '        display: {name: p}',
          '        plugin: {kind: NoSuchChart, spec: {}}',
          '  layouts: []',
          '',
        ].join('\n'),
      );
      const ok = file('ok-folder.yaml', folder('fine', 'demo'));
      const d = await run(['diff', '-f', f, '-f', ok]);
      expect(d.code, show(d)).to.equal(2);
      expect(d.stderr, show(d))
        .to.include(`${f} Dashboard demo/bad: invalid Dashboard`)
        .and.include(`spec.duration: must be a duration such as "30s"`)
        .and.include(`(${f}:5)`)
        .and.include('unknown Panel plugin kind "NoSuchChart"')
        .and.include(`(${f}:11)`)
        .and.include('apply would refuse 1 object(s), reported above, and write nothing');
      expect(d.stdout).to.include(`+++ ${ok} Folder/demo/fine`).and.not.include('Dashboard/demo/bad');
      const a = await run(['apply', '-f', f, '-f', ok]);
      expect(a.code, show(a)).to.equal(1);
      expect(await status('/api/v1/projects/demo/folders/fine')).to.equal(404);
    });

    it('a name the URL cannot hold is reported as apply reports it: metadata.name with its line', async () => {
      const f = file('space.yaml', 'kind: Folder\nmetadata:\n  name: a b\n  project: demo\nspec: {}\n');
      for (const cmd of ['diff', 'apply']) {
        const r = await run([cmd, '-f', f]);
        expect(r.code, show(r)).to.equal(cmd === 'diff' ? 2 : 1);
        expect(r.stderr, show(r))
          .to.include(`metadata.name: the name is invalid: it may only contain`)
          .and.include(`(${f}:3)`)
          .and.not.include('URL path');
      }
    });

    it('an object in a missing project: the label is printed once, and --create-project shows the new project', async () => {
      const f = file('game.yaml', folder('aoe4', 'game'));
      for (const cmd of ['apply', 'diff']) {
        const r = await run([cmd, '-f', f]);
        expect(r.code, show(r)).to.equal(cmd === 'diff' ? 2 : 1);
        expect(r.stderr, show(r)).to.include(
          `${f} Folder game/aoe4: project "game" does not exist; create it first, or apply with --create-project`,
        );
        expect(occurrences(r.stderr, 'Folder game/aoe4'), show(r)).to.equal(1);
      }
      const d = await run(['diff', '-f', f, '--create-project']);
      expect(d.code, show(d)).to.equal(1);
      expect(d.stdout).to.include('+++ (--create-project) Project/game').and.include(`+++ ${f} Folder/game/aoe4`);
      expect(await status('/api/v1/projects/game')).to.equal(404);
    });
  });

  describe('an input holding no resource is an error', () => {
    it('an empty file, a file of comments, an empty JSON list: apply exit 1, diff exit 2, naming the file', async () => {
      for (const [name, text] of [
        ['empty.yaml', ''],
        ['comments.yaml', '# nothing yet\n---\n'],
        ['none.json', '[]\n'],
      ]) {
        const f = file(name, text);
        const a = await run(['apply', '-f', f]);
        expect(a.code, show(a)).to.equal(1);
        expect(a.stderr, show(a)).to.include(`no resources found in ${f}`);
        expect(a.stdout, show(a)).to.include('failed 1 (nothing applied: the input cannot be read)');
        const d = await run(['diff', '-f', f]);
        expect(d.code, show(d)).to.equal(2);
        expect(d.stderr, show(d)).to.include(`no resources found in ${f}`);
      }
    });

    it('empty standard input (-f -): apply exit 1, diff exit 2', async () => {
      const a = await run(['apply', '-f', '-'], { input: '' });
      expect(a.code, show(a)).to.equal(1);
      expect(a.stderr).to.include('no resources found in <stdin>');
      const d = await run(['diff', '-f', '-'], { input: '\n' });
      expect(d.code, show(d)).to.equal(2);
      expect(d.stderr).to.include('no resources found in <stdin>');
    });
  });

  it('broken JSON is reported with its line and column, not an offset', async () => {
    const f = file('broken.json', '{\n  "kind": "Folder",\n  "metadata": {"name": "x" "project": "demo"},\n  "spec": {}\n}\n');
    for (const args of [
      ['apply', '-f', f],
      ['lint', '-f', f],
    ]) {
      const r = await run(args);
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr, show(r)).to.include(`${f}:3:28: not valid JSON`).and.not.include('position');
    }
  });

  it('an input that cannot be read (broken, missing, empty) still ends with the summary line', async () => {
    const broken = file('broken-again.json', '{"kind": ');
    const empty = file('nothing-here.yaml', '# nothing here\n');
    for (const [path, why] of [
      [broken, 'not valid JSON'],
      [join(broken, '..', 'no-such-file.yaml'), 'no such file or directory'],
      [empty, 'no resources found'],
    ]) {
      const r = await run(['apply', '-f', path]);
      expect(r.code, show(r)).to.equal(1);
      expect(r.stderr, show(r)).to.include(why);
      expect(summary(r), show(r)).to.deep.equal({ created: 0, configured: 0, unchanged: 0, pruned: 0, failed: 1 });
      expect(r.stdout).to.include('(nothing applied: the input cannot be read)');
    }
  });
});
