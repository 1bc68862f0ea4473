/**
 * Provisioning with Perses' keys (provisioning.folders, interval, enable_watch): folders of
 * resource files written at start and again every interval through the write pipeline, as field
 * manager provisioning, projects first; resources in unknown projects skipped with a log line;
 * an edit made elsewhere is a conflict as with dashctl; a re-read of unchanged files writes
 * nothing. Real dashplane processes (their logs read), real files.
 */
import { expect } from 'chai';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { objectPath } from '../cli/kinds.js';
import { buildKindRegistry } from '../src/kinds/index.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { AUTH_ENV, bearer, login, signUp } from './helpers/auth.js';
import { skipWithoutCorpus } from './helpers/corpus.js';
import {
  dashboard,
  firstPass,
  passes,
  project,
  role,
  startProvisioningServer,
  writeResources,
  type ProvisioningServer,
} from './helpers/provisioning.js';
import { tempDir } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { WatchStream } from './helpers/watch.js';

const KINDS = buildKindRegistry();
const pathOf = (o: { kind: string; metadata: { name: string; project?: string } }) =>
  objectPath(KINDS.byName(o.kind)!, o.metadata.name, o.metadata.project);
const PROVISIONED = [{ version: 0, updatedBy: 'dashplane', manager: 'provisioning' }];
const managers = async (s: ProvisioningServer, path: string, headers: Record<string, string> = {}) =>
  ((await s.api('GET', `${path}/managers`, undefined, headers)).body as { version: number; updatedBy: string; manager: string }[]).map(
    ({ version, updatedBy, manager }) => ({
      version,
      updatedBy,
      manager,
    }),
  );

describe('provisioning from folders (Perses keys: provisioning.folders, interval, enable_watch)', function () {
  this.timeout(90_000);
  const dirs: { remove(): void }[] = [];
  let s: ProvisioningServer | undefined;
  const folder = () => {
    const d = tempDir('dashplane-provisioned-');
    dirs.push(d);
    return d.path;
  };
  afterEach(async () => {
    await s?.stop();
    s = undefined;
    for (const d of dirs.splice(0)) d.remove();
  });

  it('a folder of YAML and JSON files (examples/manifests, lists, several documents, subfolders) is written at start, projects before the resources read first; hidden entries and other files are not read', async () => {
    const dir = folder();
    cpSync(join(PACKAGE_ROOT, 'examples', 'manifests'), join(dir, 'examples'), { recursive: true });
    // read first, in name order, yet written after their project, which is in a later file
    writeResources(dir, '00-team.json', [dashboard('team', 'overview', 'Overview'), role('team', 'reader')]);
    writeResources(dir, 'multi.yaml', [dashboard('team', 'second', 'Second'), dashboard('team', 'third', 'Third')]);
    writeResources(dir, 'zz/project.yml', [project('team')]);
    writeResources(dir, '.hidden/project.yaml', [project('hidden')]);
    writeFileSync(join(dir, 'notes.txt'), 'kind: Project\nmetadata: {name: text}\n');
    s = await startProvisioningServer({ provisioning: { folders: [dir] } }, { DASHPLANE_SECURITY_AUTHENTICATION_PASSWORD_HASH_COST: '10' });
    const status = await firstPass(s);

    const examples = readdirSync(join(dir, 'examples')).flatMap((f) =>
      parseAllDocuments(readFileSync(join(dir, 'examples', f), 'utf8')).map((d) => d.toJS()),
    );
    const written = examples.filter((o) => !KINDS.byName(o.kind)!.ttlPath);
    expect(written.length, 'every kind but EphemeralDashboard').to.equal(examples.length - 1);
    for (const o of [
      ...written,
      project('team'),
      dashboard('team', 'overview', ''),
      role('team', 'reader'),
      dashboard('team', 'second', ''),
      dashboard('team', 'third', ''),
    ]) {
      const r = await s.api('GET', pathOf(o));
      expect(r.status, `${o.kind} ${o.metadata.name}: ${r.text}`).to.equal(200);
      expect(await managers(s, pathOf(o)), `${o.kind} ${o.metadata.name}`).to.deep.equal(PROVISIONED);
    }
    expect((await s.api('GET', '/api/v1/projects/team/dashboards/second')).body.spec.display.name).to.equal('Second');
    for (const skipped of ['/api/v1/projects/hidden', '/api/v1/projects/text'])
      expect((await s.api('GET', skipped)).status, skipped).to.equal(404);

    expect(status).to.include({ source: dir, type: 'folder', interval: '1h', files: examples.length + 3, objects: examples.length + 5 });
    expect(status.writes).to.deep.equal({ created: written.length + 5, updated: 0, takenBack: 0 });
    const unsupported = 'EphemeralDashboard is not provisioned: it expires after its ttl (Perses does not provision it either); skipped';
    expect(status.problems.map(({ since: _, ...p }) => p)).to.deep.equal([
      { type: 'unsupported', file: 'examples/ephemeral-dashboard.yaml', message: unsupported },
    ]);
    const warnings = s.logLines().filter((l) => l.level === 40 && l.msg.startsWith('provisioning:'));
    expect(warnings.map((l) => l.msg)).to.deep.equal([
      `provisioning: ${dir} examples/ephemeral-dashboard.yaml: unsupported: ${unsupported}`,
    ]);
  });

  it("Perses' own dev data (its provisioning folder: JSON lists, projects in a file read after their resources) is written whole", async function () {
    const corpus = skipWithoutCorpus(this, 'corpus');
    const dev = join(corpus, 'perses', 'dev', 'data');
    s = await startProvisioningServer({ provisioning: { folders: [dev] } }, { DASHPLANE_SECURITY_AUTHENTICATION_PASSWORD_HASH_COST: '10' });
    const status = await firstPass(s);
    const index = JSON.parse(readFileSync(join(corpus, 'INDEX.json'), 'utf8')) as {
      resources: { file: string; kind: string; name: string; project?: string }[];
    };
    const resources = index.resources.filter((r) => r.file.startsWith('perses/dev/data/') && r.kind !== 'EphemeralDashboard');
    expect(resources.length).to.be.greaterThan(30);
    for (const r of resources) {
      const path = pathOf({ kind: r.kind, metadata: { name: r.name, ...(r.project ? { project: r.project } : {}) } });
      expect((await s.api('GET', path)).status, path).to.equal(200);
    }
    expect(status.writes.created).to.equal(resources.length);
    expect(status.problems.map((p) => `${p.type} ${p.file}`)).to.deep.equal(['unsupported ephemeraldashboard.json']);
  });

  it("Perses' e2e scenarios: a resource in an unknown project is skipped with a log line (written once its project exists); a project read after its resources is still written first", async () => {
    const dir = folder();
    // TestProvisioningCreatesProjectBeforeItsResources: the role's file is read first
    writeFileSync(join(dir, 'a_role.json'), JSON.stringify(role('batchproject', 'batchrole')));
    writeFileSync(join(dir, 'z_project.json'), JSON.stringify(project('batchproject')));
    s = await startProvisioningServer({ provisioning: { folders: [dir], interval: '300ms' } });
    await firstPass(s);
    expect((await s.api('GET', '/api/v1/projects/batchproject')).status).to.equal(200);
    expect((await s.api('GET', '/api/v1/projects/batchproject/roles/batchrole')).status).to.equal(200);

    // TestProvisioningSkipsResourcesInUnknownProject: only "existingproject" exists
    expect((await s.api('POST', '/api/v1/projects', project('existingproject'))).status).to.equal(200);
    writeFileSync(join(dir, 'valid.json'), JSON.stringify(role('existingproject', 'valid')));
    writeFileSync(join(dir, 'orphan.json'), JSON.stringify(role('unknownproject', 'orphan')));
    const status = await passes(s);
    expect((await s.api('GET', '/api/v1/projects/existingproject/roles/valid')).status).to.equal(200);
    const orphan = await s.api('GET', '/api/v1/projects/unknownproject/roles/orphan');
    expect(orphan.status, 'not silently stored').to.equal(404);
    const message =
      'skipped: project "unknownproject" does not exist; add the Project to a provisioning file (projects are written first) or create it';
    expect(status.problems.map(({ since: _, ...p }) => p)).to.deep.equal([
      { file: 'orphan.json', object: 'Role unknownproject/orphan', type: 'unknown-project', message },
    ]);
    await passes(s);
    const lines = s.logLines().filter((l) => l.msg.includes('unknownproject'));
    expect(
      lines.map((l) => [l.level, l.msg]),
      'one warning, not one per pass',
    ).to.deep.equal([[40, `provisioning: ${dir} orphan.json (Role unknownproject/orphan): unknown-project: ${message}`]]);

    // once the project exists, the next pass writes the role
    expect((await s.api('POST', '/api/v1/projects', project('unknownproject'))).status).to.equal(200);
    expect((await passes(s)).problems).to.deep.equal([]);
    expect((await s.api('GET', '/api/v1/projects/unknownproject/roles/orphan')).status).to.equal(200);
  });

  it('a changed file is written at the next interval; unchanged files read again write nothing (no version, no history entry, no watch event, secrets included); a removed file leaves its objects as they are (as Perses)', async () => {
    const dir = folder();
    const secret = {
      kind: 'Secret',
      metadata: { name: 's', project: 'p' },
      spec: { basicAuth: { username: 'u', password: 'plain-in-the-file' } },
    };
    writeResources(dir, 'p.yaml', [project('p'), secret]);
    writeResources(dir, 'd.yaml', [dashboard('p', 'd', 'One')]);
    s = await startProvisioningServer({ provisioning: { folders: [dir], interval: '300ms' } });
    await waitFor('the dashboard', async () => (await s!.api('GET', '/api/v1/projects/p/dashboards/d')).status === 200);
    const watch = await WatchStream.must(`${s.url}/api/v1/dashboards?watch=true`);
    try {
      await watch.waitForEvent('the initial ADDED', (e) => e.type === 'ADDED');
      const quiet = await passes(s, 3);
      expect(quiet.writes).to.deep.equal({ created: 3, updated: 0, takenBack: 0 });
      for (const path of ['/api/v1/projects/p/dashboards/d', '/api/v1/projects/p/secrets/s', '/api/v1/projects/p']) {
        const r = await s.api('GET', path);
        expect(r.body.metadata.version, path).to.equal(0);
      }
      expect((await s.api('GET', '/api/v1/projects/p/dashboards/d/versions')).body).to.deep.equal([]);
      expect(watch.summary(), 'no event after the first').to.deep.equal(['ADDED p/d']);

      writeResources(dir, 'd.yaml', [dashboard('p', 'd', 'Two')]);
      const changed = await watch.waitForEvent('the MODIFIED event', (e) => e.type === 'MODIFIED');
      expect(changed.object!.spec.display.name).to.equal('Two');
      expect(changed.object!.metadata.version).to.equal(1);
      const after = await passes(s, 3);
      expect(after.writes).to.deep.equal({ created: 3, updated: 1, takenBack: 0 });
      expect(watch.summary(), 'one write for one change').to.deep.equal(['ADDED p/d', 'MODIFIED p/d']);
      const history = (await s.api('GET', '/api/v1/projects/p/dashboards/d/versions')).body as {
        version: number;
        updatedBy: string;
        manager: string;
      }[];
      expect(history.map(({ version, updatedBy, manager }) => ({ version, updatedBy, manager }))).to.deep.equal([
        { version: 0, updatedBy: 'dashplane', manager: 'provisioning' },
      ]);

      // a removed file: nothing is deleted, nothing written
      rmSync(join(dir, 'd.yaml'));
      const removed = await passes(s, 3);
      expect(removed).to.include({ files: 1, objects: 2 });
      expect(removed.writes).to.deep.equal({ created: 3, updated: 1, takenBack: 0 });
      const kept = await s.api('GET', '/api/v1/projects/p/dashboards/d');
      expect(kept.status).to.equal(200);
      expect(kept.body.metadata.version).to.equal(1);
      expect(watch.summary()).to.deep.equal(['ADDED p/d', 'MODIFIED p/d']);
    } finally {
      await watch.close();
    }
  });

  it('an API edit of a provisioned object is a conflict as with dashctl: the edit is kept, provisioning reports it (status route, metric, one log line) until the file holds the change or the object is deleted', async () => {
    const dir = folder();
    writeResources(dir, 'p.yaml', [project('p')]);
    writeResources(dir, 'd.yaml', [dashboard('p', 'd', 'From the file')]);
    s = await startProvisioningServer({ provisioning: { folders: [dir], interval: '300ms' } }, AUTH_ENV);
    const admin = bearer(await login(s, 'admin', 'admin-password'));
    const path = '/api/v1/projects/p/dashboards/d';
    await waitFor('the dashboard', async () => (await s!.api('GET', path, undefined, admin)).status === 200);
    expect(await managers(s, path, admin), 'what the UI reads: the managed banner').to.deep.equal(PROVISIONED);

    // no client may write as provisioning
    const claimed = await s.api('PUT', path, dashboard('p', 'd', 'Claimed'), { ...admin, 'x-dashplane-manager': 'provisioning' });
    expect(claimed.status).to.equal(400);
    expect(claimed.body.message).to.include('"provisioning", a field manager only dashplane itself writes as');

    // the edit itself is accepted, as a dashctl-managed object's is (the UI asked first)
    const edit = await s.api('PUT', path, dashboard('p', 'd', 'Edited in the UI'), { ...admin, 'x-dashplane-manager': 'web-ui' });
    expect(edit.status, edit.text).to.equal(200);
    expect(edit.body.metadata.version).to.equal(1);
    const record = (await s.api('GET', `${path}/managers`, undefined, admin)).body as {
      version: number;
      updatedAt: string;
      updatedBy: string;
      manager: string;
    }[];
    expect(record.map((m) => [m.manager, m.updatedBy, m.version])).to.deep.equal([
      ['web-ui', 'admin', 1],
      ['provisioning', 'dashplane', 0],
    ]);

    const conflicted = await passes(s, 3, 0, admin);
    const stored = (await s.api('GET', path, undefined, admin)).body;
    expect([stored.spec.display.name, stored.metadata.version], 'not overwritten').to.deep.equal(['Edited in the UI', 1]);
    const message =
      `changed by admin through web-ui at ${record[0].updatedAt} (version 1) since provisioning wrote version 0 at ${record[1].updatedAt}; ` +
      'not overwritten: put that change into the file (provisioning then manages the object again), or delete the object (the next pass creates it again from the file)';
    expect(conflicted.problems.map(({ since: _, ...p }) => p)).to.deep.equal([
      { file: 'd.yaml', object: 'Dashboard p/d', type: 'conflict', message },
    ]);
    expect(
      s
        .logLines()
        .filter((l) => l.msg.includes('conflict'))
        .map((l) => l.msg),
    ).to.deep.equal([`provisioning: ${dir} d.yaml (Dashboard p/d): conflict: ${message}`]);
    const metrics = (await s.api('GET', '/metrics')).text;
    expect(metrics).to.include(`dashplane_provisioning_problems{source="${dir}",type="conflict"} 1`);
    expect(metrics).to.include(`dashplane_provisioning_problems{source="${dir}",type="invalid"} 0`);

    // the status names files and objects of every project: administrators only
    await signUp(s, 'rita');
    expect((await s.api('GET', '/api/v1/admin/provisioning', undefined, bearer(await login(s, 'rita')))).status).to.equal(403);
    expect((await s.api('GET', '/api/v1/admin/provisioning')).status).to.equal(401);

    // the change put into the file: provisioning takes the object back (one version, same content)
    writeResources(dir, 'd.yaml', [dashboard('p', 'd', 'Edited in the UI')]);
    const back = await passes(s, 2, 0, admin);
    expect(back.problems).to.deep.equal([]);
    expect(back.writes.takenBack).to.equal(1);
    expect((await managers(s, path, admin))[0]).to.deep.equal({ version: 2, updatedBy: 'dashplane', manager: 'provisioning' });
    expect((await s.api('GET', '/metrics')).text).to.include(`dashplane_provisioning_problems{source="${dir}",type="conflict"} 0`);
    writeResources(dir, 'd.yaml', [dashboard('p', 'd', 'Third')]);
    await passes(s, 2, 0, admin);
    expect((await s.api('GET', path, undefined, admin)).body.spec.display.name, 'managed again').to.equal('Third');

    // or: edited again, then deleted; the next pass creates it from the file
    await s.api('PUT', path, dashboard('p', 'd', 'Edited again'), { ...admin, 'x-dashplane-manager': 'web-ui' });
    expect((await passes(s, 2, 0, admin)).problems.map((p) => p.type)).to.deep.equal(['conflict']);
    expect((await s.api('DELETE', path, undefined, admin)).status).to.equal(204);
    const recreated = await passes(s, 2, 0, admin);
    expect(recreated.problems).to.deep.equal([]);
    expect((await s.api('GET', path, undefined, admin)).body.spec.display.name).to.equal('Third');
    expect((await managers(s, path, admin))[0].manager).to.equal('provisioning');
  });

  it('a bad file or resource is reported with its file, place and reason (status route, one log line each); everything else is written and the server serves on', async () => {
    const dir = folder();
    writeResources(dir, 'good.yaml', [project('p'), dashboard('p', 'good', 'Good')]);
    writeFileSync(join(dir, 'broken.yaml'), 'kind: Dashboard\nmetadata: [unclosed\n');
    writeFileSync(join(dir, 'broken.json'), '{"kind": "Project",');
    writeFileSync(join(dir, 'deep.json'), `${'['.repeat(200)}${']'.repeat(200)}`);
    writeFileSync(join(dir, 'big.yaml'), `# ${'x'.repeat(70_000)}\n`);
    const bad = dashboard('p', 'bad', 'Bad');
    writeResources(dir, 'invalid.yaml', [
      {
        ...bad,
        spec: {
          ...bad.spec,
          duration: 'soon',
          layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 1, height: 1, content: { $ref: '#/spec/panels/nope' } }] } }],
        },
      },
    ]);
    writeFileSync(
      join(dir, 'list.yaml'),
      '- kind: Project\n  metadata: {name: listed}\n  spec: {}\n- just a string\n- metadata: {name: nokind}\n',
    );
    writeFileSync(join(dir, 'k8s.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
    writeResources(dir, 'dup-a.yaml', [dashboard('p', 'twice', 'A')]);
    writeResources(dir, 'dup-b.yaml', [dashboard('p', 'twice', 'B')]);
    s = await startProvisioningServer({ provisioning: { folders: [dir] }, http: { body_limit: 65536 } });
    const status = await firstPass(s);
    const problems = status.problems.map(
      (p) => `${p.type} ${p.file}${p.index !== undefined ? `#${p.index}` : ''}${p.object ? ` (${p.object})` : ''}: ${p.message}`,
    );
    expect(problems).to.have.length(9);
    const has = (prefix: string, ...parts: string[]) => {
      const found = problems.find((p) => p.startsWith(prefix));
      expect(found, `${prefix} in ${JSON.stringify(problems, null, 1)}`).to.be.a('string');
      for (const part of parts) expect(found).to.include(part);
    };
    has('read big.yaml:', 'is 70003 bytes, more than http.body_limit (65536); split it into smaller files');
    has('read broken.json:', 'the file is not valid JSON');
    has('read broken.yaml:', 'the file is not valid YAML');
    has('read deep.json:', 'nested more than 100 levels deep');
    has('duplicate dup-b.yaml (Dashboard p/twice):', `also in ${dir} dup-a.yaml, which is written; this copy is skipped`);
    has('invalid invalid.yaml (Dashboard p/bad):', 'spec.duration', 'spec.layouts[0].spec.items[0].content.$ref');
    has('unsupported k8s.yaml:', 'v1 ConfigMap is not a Perses resource (it has apiVersion); skipped');
    has('invalid list.yaml#1:', 'holds a string, not a resource');
    has('invalid list.yaml#2:', 'kind is missing');
    expect(s.logLines().filter((l) => l.level === 40 && l.msg.startsWith('provisioning:'))).to.have.length(9);
    for (const path of ['/api/v1/projects/p/dashboards/good', '/api/v1/projects/listed', '/api/v1/projects/p/dashboards/twice'])
      expect((await s.api('GET', path)).status, path).to.equal(200);
    expect((await s.api('GET', '/api/v1/projects/p/dashboards/twice')).body.spec.display.name, 'the first file wins').to.equal('A');
    expect((await s.api('GET', '/api/v1/health')).status).to.equal(200);
  });

  it('security.readonly: clients may not write, provisioning still does (a server changed only through its files)', async () => {
    const dir = folder();
    writeResources(dir, 'p.yaml', [project('ro'), dashboard('ro', 'd', 'One')]);
    s = await startProvisioningServer({ security: { readonly: true }, provisioning: { folders: [dir], interval: '300ms' } });
    expect((await firstPass(s)).problems).to.deep.equal([]);
    expect((await s.api('PUT', '/api/v1/projects/ro/dashboards/d', dashboard('ro', 'd', 'Client'))).status).to.equal(403);
    writeResources(dir, 'p.yaml', [project('ro'), dashboard('ro', 'd', 'Two')]);
    await waitFor('the change', async () => (await s!.api('GET', '/api/v1/projects/ro/dashboards/d')).body.spec.display.name === 'Two');
  });

  it('enable_watch: a change is read within moments, without waiting for the interval (1h)', async () => {
    const dir = folder();
    s = await startProvisioningServer({ provisioning: { folders: [dir], enable_watch: true } });
    await firstPass(s);
    writeResources(dir, 'sub/p.yaml', [project('watched')]);
    await waitFor('the project', async () => (await s!.api('GET', '/api/v1/projects/watched')).status === 200, 10_000);
  });
});
