/**
 * Replay of Perses' API end-to-end tests (perses/perses internal/api/e2e at v0.54, ported in our
 * own code; suites and tests keep Perses' names): the resource scenarios of api/*_test.go for
 * every kind and the kind-specific tests beside them. Where dashplane deliberately differs, the
 * test asserts dashplane's answer, its title says "[differs: ...]" and docs/api.md lists it.
 */
import { expect } from 'chai';
import {
  createEntity,
  newDashboard,
  newDatasource,
  newEphemeralDashboard,
  newGlobalDatasource,
  newGlobalRole,
  newGlobalRoleBinding,
  newGlobalSecret,
  newGlobalVariable,
  newProject,
  newRole,
  newRoleBinding,
  newSecret,
  newUser,
  newVariable,
  publicSecretSpec,
  signIn,
  startPersesAuthServer,
  startPersesServer,
  type Obj,
} from './helpers/perses-e2e.js';
import { globalScenario, projectScenario } from './helpers/perses-scenarios.js';
import type { TestServer } from './helpers/server.js';

/** Perses' bindings name the user alice, who must exist here ([differs]: a grant names someone who exists). */
const alice = async (s: TestServer) => {
  const missing = await s.api('POST', '/api/v1/globalrolebindings', newGlobalRoleBinding('before-alice'));
  expect(missing.status, 'a binding naming a user who does not exist').to.equal(400);
  expect(missing.body.message).to.include('User "alice" does not exist');
  await createEntity(s, newUser('alice'));
};

describe('Perses e2e replay: resource scenarios (api/*_test.go)', function () {
  this.timeout(60_000);

  describe('TestMainScenarioProject', () => globalScenario('projects', newProject));
  describe('TestMainScenarioGlobalDatasource', () => globalScenario('globaldatasources', (n) => newGlobalDatasource(n)));
  describe('TestMainScenarioGlobalRole', () => globalScenario('globalroles', (n) => newGlobalRole(n)));
  describe('TestMainScenarioGlobalRoleBinding [differs: its user must exist]', () =>
    globalScenario('globalrolebindings', newGlobalRoleBinding, { prerequisites: alice }));
  describe('TestMainScenarioGlobalSecret', () =>
    globalScenario('globalsecrets', newGlobalSecret, { writeOnly: true, answeredSpec: publicSecretSpec }));
  describe('TestMainScenarioGlobalVariable', () => globalScenario('globalvariables', newGlobalVariable));
  describe('TestMainScenarioUser', () =>
    globalScenario('users', (n) => newUser(n), { answeredSpec: { nativeProvider: { password: '<secret>' } } }));
  describe('TestMainScenarioDashboard', () => projectScenario('dashboards', newDashboard));
  describe('TestMainScenarioDatasource', () => projectScenario('datasources', (p, n) => newDatasource(p, n)));
  describe('TestMainScenarioEphemeralDashboard', () => projectScenario('ephemeraldashboards', newEphemeralDashboard));
  describe('TestMainScenarioRole', () => projectScenario('roles', newRole));
  describe('TestMainScenarioRoleBinding [differs: its user must exist]', () =>
    projectScenario('rolebindings', newRoleBinding, { prerequisites: alice }));
  describe('TestMainScenarioSecret', () => projectScenario('secrets', newSecret, { writeOnly: true, answeredSpec: publicSecretSpec }));
  describe('TestMainScenarioVariable', () => projectScenario('variables', newVariable));
});

describe('Perses e2e replay: kind-specific tests (api/project_test.go, dashboard_test.go, datasource_test.go, ephemeraldashboard_test.go)', function () {
  this.timeout(60_000);
  let s: TestServer;
  beforeEach(async () => {
    s = await startPersesServer();
  });
  afterEach(() => s?.stop());

  it('TestDeleteProjectWithSubResources', async () => {
    for (const e of [newProject('perses'), newDashboard('perses', 'Demo'), newDatasource('perses', 'Demo')]) await createEntity(s, e);
    expect((await s.api('DELETE', '/api/v1/projects/perses')).status).to.equal(204);
    expect((await s.api('GET', '/api/v1/dashboards?project=perses')).body).to.deep.equal([]);
    expect((await s.api('GET', '/api/v1/datasources?project=perses')).body).to.deep.equal([]);
  });

  for (const [test, creator, plural] of [
    ['Dashboard', newDashboard, 'dashboards'],
    ['EphemeralDashboard', newEphemeralDashboard, 'ephemeraldashboards'],
  ] as const) {
    it(`TestCreate${test}WithWrongName`, async () => {
      await createEntity(s, newProject('perses'));
      const r = await s.api('POST', `/api/v1/projects/perses/${plural}`, creator('perses', 'Incorrect Name With Space'));
      expect(r.status).to.equal(400);
    });

    it(`TestUpdate${test}IncreaseVersion`, async () => {
      await createEntity(s, newProject('perses'));
      const entity = creator('perses', 'test');
      const created = await createEntity(s, entity);
      for (const step of [1, 2]) {
        const r = await s.api('PUT', `/api/v1/projects/perses/${plural}/test`, entity);
        expect(r.status, r.text).to.equal(200);
        expect(r.body.metadata.version).to.equal(created.metadata.version + step);
      }
    });

    it(`TestList${test}InEmptyProject`, async () => {
      for (const e of [newProject('perses'), newProject('Demo'), creator('perses', 'Demo')]) await createEntity(s, e);
      expect((await s.api('GET', `/api/v1/projects/Demo/${plural}`)).body).to.deep.equal([]);
    });
  }

  it('TestListDashboardWithOnlyMetadata', async () => {
    await createEntity(s, newProject('perses'));
    const stored = await createEntity(s, newDashboard('perses', 'Demo'));
    const r = await s.api('GET', '/api/v1/projects/perses/dashboards?metadata_only=true');
    expect(r.body).to.deep.equal([{ kind: 'Dashboard', metadata: stored.metadata, spec: {} }]);
  });

  it('TestCreateDatasourceWithEmptyProjectName', async () => {
    expect((await s.api('POST', '/api/v1/datasources', newDatasource('', 'myDTS'))).status).to.equal(400);
  });

  it('TestCreateDatasourceWithNonExistingProject', async () => {
    const r = await s.api('POST', '/api/v1/datasources', newDatasource('awesomeProjectThatDoesntExist', 'myDTS'));
    expect(r.status).to.equal(400);
    expect(r.body.message).to.equal('metadata.project "awesomeProjectThatDoesntExist" doesn\'t exist');
  });

  it('TestAuthListDashboardInProject', async () => {
    await s.stop();
    s = await startPersesAuthServer();
    expect((await s.api('POST', '/api/v1/users', newUser('creator'))).status).to.equal(200);
    const auth = { authorization: `Bearer ${await signIn(s, 'creator', 'password')}` };
    const admin = { authorization: `Bearer ${await signIn(s, 'alice', 'alice-password')}` };
    for (const p of ['first', 'second', 'third']) await createEntity(s, newProject(p), admin);
    const count = async (path: string) => (await s.api('GET', path, undefined, auth)).body.length as number;
    expect([await count('/api/v1/dashboards'), await count('/api/v1/projects/first/dashboards')]).to.deep.equal([0, 0]);
    for (const [p, n] of [
      ['first', 'Demo-1'],
      ['second', 'Demo-2'],
      ['third', 'Demo-3'],
    ]) {
      await createEntity(s, newDashboard(p, n), admin);
    }
    expect([await count('/api/v1/dashboards'), await count('/api/v1/projects/first/dashboards')]).to.deep.equal([3, 1]);
  });
});

describe('Perses e2e replay: the Go client (client/datasource_test.go, client/project_test.go)', function () {
  this.timeout(60_000);
  let s: TestServer;
  beforeEach(async () => {
    s = await startPersesServer();
  });
  afterEach(() => s?.stop());

  /** What Perses' Go client does for a resource: the same routes, JSON bodies, the object answered back. */
  const client = (method: string, path: string, body?: Obj) => s.api(method, path, body, { accept: 'application/json' });

  it('TestCreateDatasource', async () => {
    await createEntity(s, newProject('perses'));
    const entity = newDatasource('perses', 'myDTS');
    const r = await client('POST', '/api/v1/projects/perses/datasources', entity);
    expect(r.status).to.equal(200);
    expect([r.body.metadata.name, r.body.spec]).to.deep.equal(['myDTS', entity.spec]);
  });

  it('TestUpdateDatasource', async () => {
    await createEntity(s, newProject('perses'));
    const entity = newDatasource('perses', 'myDTS');
    await createEntity(s, entity);
    const r = await client('PUT', '/api/v1/projects/perses/datasources/myDTS', entity);
    expect(r.status).to.equal(200);
    expect(Date.parse(r.body.metadata.createdAt)).to.be.below(Date.parse(r.body.metadata.updatedAt));
    expect(r.body.spec).to.deep.equal(entity.spec);
  });

  it('TestGetDatasource', async () => {
    await createEntity(s, newProject('perses'));
    const entity = newDatasource('perses', 'myDTS');
    await createEntity(s, entity);
    const r = await client('GET', '/api/v1/projects/perses/datasources/myDTS');
    expect([r.body.metadata.name, r.body.spec]).to.deep.equal(['myDTS', entity.spec]);
  });

  it('TestDeleteDatasource', async () => {
    await createEntity(s, newProject('perses'));
    await createEntity(s, newDatasource('perses', 'myDTS'));
    expect((await client('DELETE', '/api/v1/projects/perses/datasources/myDTS')).status).to.equal(204);
  });

  it('TestListDatasource', async () => {
    await createEntity(s, newProject('perses'));
    await createEntity(s, newDatasource('perses', 'myDTS'));
    const r = await client('GET', '/api/v1/projects/perses/datasources');
    expect(r.body.map((d: Obj) => d.metadata.name)).to.deep.equal(['myDTS']);
  });

  it('TestCreateProject', async () => {
    const r = await client('POST', '/api/v1/projects', newProject('perses'));
    expect([r.status, r.body.metadata.name]).to.deep.equal([200, 'perses']);
  });

  it('TestUpdateProject', async () => {
    await createEntity(s, newProject('perses'));
    const r = await client('PUT', '/api/v1/projects/perses', newProject('perses'));
    expect(r.status).to.equal(200);
    expect(Date.parse(r.body.metadata.createdAt)).to.be.below(Date.parse(r.body.metadata.updatedAt));
  });

  it('TestGetProject', async () => {
    await createEntity(s, newProject('perses'));
    expect((await client('GET', '/api/v1/projects/perses')).body.metadata.name).to.equal('perses');
  });

  it('TestDeleteProject', async () => {
    await createEntity(s, newProject('perses'));
    expect((await client('DELETE', '/api/v1/projects/perses')).status).to.equal(204);
  });
});
