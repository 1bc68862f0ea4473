/**
 * Provisioning from Git repositories (dashplane's own, beyond Perses): the git program clones a
 * branch or a tag and fetches it again every interval; commits pushed during the test reach the
 * server. Local bare repositories (file://) and a smart-HTTP server (git http-backend) on
 * 127.0.0.1: no network.
 */
import { expect } from 'chai';
import { renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startGitHttp, type GitHttpServer } from './helpers/git-http.js';
import {
  dashboard,
  firstPass,
  passes,
  project,
  sources,
  sourceWhen,
  startProvisioningServer,
  TestRepo,
  writeResources,
  type ProvisioningServer,
} from './helpers/provisioning.js';
import { tempDir } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const title = async (s: ProvisioningServer, path: string) => {
  const r = await s.api('GET', path);
  return r.status === 200 ? (r.body.spec.display.name as string) : `HTTP ${r.status}`;
};

describe('provisioning from Git repositories (provisioning.git)', function () {
  this.timeout(120_000);
  let s: ProvisioningServer | undefined;
  let repo: TestRepo | undefined;
  let gitHttp: GitHttpServer | undefined;
  const dir = tempDir('dashplane-git-test-');
  afterEach(async () => {
    await s?.stop();
    await gitHttp?.close();
    repo?.remove();
    s = repo = gitHttp = undefined;
  });
  after(() => dir.remove());

  it('a branch and a tag, cloned at start; commits and a moved tag pushed during the test are read at the next interval; only the path named is read; PROV-02: no symbolic link out of the repository is followed', async () => {
    repo = await TestRepo.create();
    writeResources(dir.path, 'outside.yaml', [project('outside')]);
    const first = await repo.commit('first', {
      'dashboards/project.yaml': [project('git')],
      'dashboards/d.yaml': [dashboard('git', 'd', 'One')],
      'release/r.yaml': [dashboard('git', 'r', 'Release 1')],
      'other/ignored.yaml': [project('ignored')],
    });
    await repo.tag('v1');
    symlinkSync(join(dir.path, 'outside.yaml'), join(repo.work, 'dashboards', 'leak.yaml'));
    const second = await repo.commit('a link out of the repository', {});
    s = await startProvisioningServer({
      provisioning: {
        git: [
          { url: repo.url, ref: 'main', path: 'dashboards', interval: '300ms' },
          { url: repo.url, ref: 'v1', path: 'release', interval: '300ms' },
        ],
      },
    });
    const [branch, tag] = [await firstPass(s, 0), await firstPass(s, 1)];
    expect(branch).to.include({
      source: `git:${repo.url}#main:dashboards`,
      type: 'git',
      interval: '300ms',
      commit: second,
      files: 2,
      objects: 2,
    });
    expect(tag).to.include({ source: `git:${repo.url}#v1:release`, commit: first, objects: 1 });
    expect(branch.problems.map((p) => `${p.type} ${p.file}: ${p.message}`)).to.deep.equal([
      'read leak.yaml: a symbolic link out of the repository; not followed',
    ]);
    expect(await title(s, '/api/v1/projects/git/dashboards/d')).to.equal('One');
    expect(await title(s, '/api/v1/projects/git/dashboards/r')).to.equal('Release 1');
    for (const absent of ['/api/v1/projects/ignored', '/api/v1/projects/outside'])
      expect((await s.api('GET', absent)).status, absent).to.equal(404);
    const managers = (await s.api('GET', '/api/v1/projects/git/dashboards/d/managers')).body as { manager: string; updatedBy: string }[];
    expect(managers.map((m) => [m.manager, m.updatedBy])).to.deep.equal([['provisioning', 'dashplane']]);

    const third = await repo.commit('second', {
      'dashboards/d.yaml': [dashboard('git', 'd', 'Two')],
      'release/r.yaml': [dashboard('git', 'r', 'Release 2')],
    });
    await waitFor('the branch change', async () => (await title(s!, '/api/v1/projects/git/dashboards/d')) === 'Two');
    expect((await passes(s, 2, 1)).commit, 'the tag has not moved').to.equal(first);
    expect(await title(s, '/api/v1/projects/git/dashboards/r')).to.equal('Release 1');
    expect((await sources(s))[0].commit).to.equal(third);

    await repo.tag('v1');
    await waitFor('the moved tag', async () => (await title(s!, '/api/v1/projects/git/dashboards/r')) === 'Release 2');
    expect((await sources(s))[1].commit).to.equal(third);
    expect(
      s.logLines().some((l) => l.msg === `provisioning: git:${repo!.url}#main:dashboards (commit ${third.slice(0, 12)}): updated 1`),
    ).to.equal(true);
  });

  it('PROV-03: a fetch that fails keeps the objects as they are and is reported (status route, metric, one log line); the next good fetch clears it', async () => {
    repo = await TestRepo.create();
    await repo.commit('first', { 'p.yaml': [project('kept')], 'd.yaml': [dashboard('kept', 'd', 'Kept')] });
    s = await startProvisioningServer({ provisioning: { interval: '300ms', git: [{ url: repo.url }] } });
    expect((await firstPass(s)).problems).to.deep.equal([]);
    const source = `git:${repo.url}#HEAD`;
    renameSync(repo.bare, `${repo.bare}.gone`);
    const failing = await sourceWhen(s, 'the fetch problem', (st) => st.problems.length > 0);
    expect(failing.problems.map((p) => p.type)).to.deep.equal(['fetch']);
    expect(failing.problems[0].message).to.match(/^git fetch failed: .*; the objects it provisioned are kept as they are$/);
    expect(failing.problems[0].file).to.equal(undefined);
    const kept = await s.api('GET', '/api/v1/projects/kept/dashboards/d');
    expect([kept.status, kept.body.metadata.version]).to.deep.equal([200, 0]);
    expect((await s.api('GET', '/metrics')).text).to.include(`dashplane_provisioning_problems{source="${source}",type="fetch"} 1`);
    await passes(s, 2);
    expect(s.logLines().filter((l) => l.msg.includes('git fetch failed'))).to.have.length(1);
    expect((await s.api('GET', '/api/v1/health')).status).to.equal(200);

    renameSync(`${repo.bare}.gone`, repo.bare);
    await repo.commit('after the outage', { 'd.yaml': [dashboard('kept', 'd', 'After')] });
    await waitFor('the change after the outage', async () => (await title(s!, '/api/v1/projects/kept/dashboards/d')) === 'After');
    expect((await sources(s))[0].problems).to.deep.equal([]);
  });

  it('PROV-01: a private repository over HTTP: the password comes from password_file (given to git by its credential helper, re-read before each fetch), is never logged nor shown; a wrong one is a fetch failure naming the cause', async () => {
    repo = await TestRepo.create();
    await repo.commit('first', { 'p.yaml': [project('private')] });
    const token = 'tok-Sup3r-s3cret';
    gitHttp = await startGitHttp(dirname(repo.bare), 'reader', token);
    const passwordFile = join(dir.path, 'git-token');
    writeFileSync(passwordFile, 'wrong-t0ken\n', { mode: 0o600 });
    const url = `${gitHttp.url}/origin.git`;
    s = await startProvisioningServer({
      provisioning: { interval: '300ms', git: [{ url, ref: 'main', username: 'reader', password_file: passwordFile }] },
    });
    const refused = await firstPass(s);
    expect(refused.problems.map((p) => p.type)).to.deep.equal(['fetch']);
    expect(refused.problems[0].message).to.match(
      /^git clone failed: .*Authentication failed for .*; the objects it provisioned are kept as they are$/,
    );
    expect(gitHttp.authorizations.filter(Boolean), "git sent the file's password").to.include(
      `Basic ${Buffer.from('reader:wrong-t0ken').toString('base64')}`,
    );

    writeFileSync(passwordFile, `${token}\n`);
    await waitFor('the private project', async () => (await s!.api('GET', '/api/v1/projects/private')).status === 200);
    expect((await sources(s))[0].problems).to.deep.equal([]);
    const config = await s.api('GET', '/api/config');
    expect(config.body.provisioning.git[0]).to.deep.equal({ url, ref: 'main', username: 'reader', password_file: passwordFile });
    for (const secret of [token, 'wrong-t0ken']) {
      expect(s.process.output(), 'the log').not.to.include(secret);
      expect(JSON.stringify(await sources(s)), 'the status').not.to.include(secret);
    }
  });
});
