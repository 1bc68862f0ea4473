/**
 * Replay of Perses' e2e tests of names, projects and lists (api/verification_test.go,
 * list_test.go at v0.54): every bad name or project, in the path, the query or the body, is a 400
 * in Perses' words, before anything is read or written; a project that does not exist is a 400 on
 * GET and POST, a 404 on PUT and DELETE. Deliberate differences are marked "[differs: ...]" and
 * listed in docs/api.md.
 */
import { expect } from 'chai';
import {
  createEntity,
  newDashboard,
  newGlobalVariable,
  newProject,
  newVariable,
  signIn,
  startPersesAuthServer,
  startPersesServer,
} from './helpers/perses-e2e.js';
import { rawRequest } from './helpers/raw-request.js';
import type { TestServer } from './helpers/server.js';

/** utils.ProjectResourcePathList: every resource path inside a project. */
const PROJECT_PATHS = ['dashboards', 'datasources', 'ephemeraldashboards', 'folders', 'roles', 'rolebindings', 'secrets', 'variables'];
/** globalResourcePathList. */
const GLOBAL_PATHS = ['projects', 'users', 'globaldatasources', 'globalroles', 'globalrolebindings', 'globalsecrets', 'globalvariables'];
/** invalidIDs: [as sent in a path, as written in a body]. */
const INVALID_IDS = [
  ['..', '..'],
  ['%2e%2e', '..'],
  ['%252e%252e', '%2e%2e'],
  ['..%2Fvariables', '../variables'],
  ['..%5Cvariables', '..\\variables'],
  ['.', '.'],
  ['.hidden', '.hidden'],
  ['trailing.', 'trailing.'],
  ['foo..bar', 'foo..bar'],
  ['foo%2Fbar', 'foo/bar'],
  ['foo$bar', 'foo$bar'],
  ['foo%20bar', 'foo bar'],
  ['foo%00bar', 'foo\u0000bar'],
];

describe('Perses e2e replay: names and projects (api/verification_test.go)', function () {
  this.timeout(60_000);
  let s: TestServer;
  let auth: Record<string, string>;
  before(async () => {
    s = await startPersesAuthServer();
    auth = { authorization: `Bearer ${await signIn(s, 'alice', 'alice-password')}` };
    for (const e of [
      newProject('perses'),
      newVariable('perses', 'targetVariable'),
      newDashboard('perses', 'targetDashboard'),
      newGlobalVariable('targetGlobalVariable'),
    ])
      await createEntity(s, e, auth);
  });
  after(() => s?.stop());

  const call = (method: string, path: string, body?: unknown) => rawRequest(s, method, path, auth, body);
  async function expectMessage(method: string, path: string, words: string, body?: unknown) {
    const r = await call(method, path, body);
    expect(r.status, `${method} ${path}`).to.equal(400);
    expect(r.body.message, `${method} ${path}`).to.include(words);
  }
  /** Nothing of Perses' test fixtures was touched by the refused requests. */
  async function untouched() {
    for (const path of [
      '/api/v1/projects/perses',
      '/api/v1/projects/perses/variables/targetVariable',
      '/api/v1/projects/perses/dashboards/targetDashboard',
      '/api/v1/globalvariables/targetGlobalVariable',
    ]) {
      expect((await call('GET', path)).status, path).to.equal(200);
    }
  }
  const variable = newVariable('perses', 'targetVariable');

  it('TestCheckParameterMiddlewarePathTraversalInPath', async () => {
    for (const [id] of INVALID_IDS) {
      for (const path of PROJECT_PATHS) {
        const list = `/api/v1/projects/${id}/${path}`;
        await expectMessage('GET', list, 'the project name is invalid');
        await expectMessage('GET', `${list}/targetVariable`, 'the project name is invalid');
        await expectMessage('POST', list, 'the project name is invalid', variable);
        await expectMessage('PUT', `${list}/targetVariable`, 'the project name is invalid', variable);
        await expectMessage('DELETE', `${list}/targetVariable`, 'the project name is invalid');
      }
    }
    await untouched();
  });

  it('TestCheckParameterMiddlewareInvalidNameOnGlobalResources', async () => {
    for (const [id] of INVALID_IDS) {
      for (const path of GLOBAL_PATHS) {
        await expectMessage('GET', `/api/v1/${path}/${id}`, 'the name is invalid');
        await expectMessage('PUT', `/api/v1/${path}/${id}`, 'the name is invalid', newProject('perses'));
        await expectMessage('DELETE', `/api/v1/${path}/${id}`, 'the name is invalid');
      }
    }
    await untouched();
  });

  it('TestCheckParameterMiddlewareInvalidNameOnProjectResources', async () => {
    for (const [id] of INVALID_IDS) {
      for (const path of PROJECT_PATHS) {
        for (const method of ['GET', 'PUT', 'DELETE'])
          await expectMessage(
            method,
            `/api/v1/projects/perses/${path}/${id}`,
            'the name is invalid',
            method === 'PUT' ? variable : undefined,
          );
      }
    }
    await untouched();
  });

  it('TestCheckParameterMiddlewareInvalidProjectAndName', async () => {
    for (const [id] of INVALID_IDS) {
      for (const path of PROJECT_PATHS) {
        for (const method of ['GET', 'PUT', 'DELETE'])
          await expectMessage(
            method,
            `/api/v1/projects/${id}/${path}/${id}`,
            'the name is invalid',
            method === 'PUT' ? variable : undefined,
          );
      }
    }
    await untouched();
  });

  it("TestCheckParameterMiddlewareValidNameOnGlobalResources [differs: a GlobalVariable's name is checked as a variable name, as Perses' internal/api/validate does: my_Global-Variable.1 is refused, my_Global-Variable1 runs the test]", async () => {
    const refused = await call('POST', '/api/v1/globalvariables', newGlobalVariable('my_Global-Variable.1'));
    expect(refused.status).to.equal(400);
    expect(refused.body.message).to.include("variable name 'my_Global-Variable.1'");
    const entity = newGlobalVariable('my_Global-Variable1');
    expect((await call('POST', '/api/v1/globalvariables', entity)).status).to.equal(200);
    expect((await call('GET', '/api/v1/globalvariables/my_Global-Variable1')).status).to.equal(200);
    expect((await call('PUT', '/api/v1/globalvariables/my_Global-Variable1', entity)).status).to.equal(200);
    expect((await call('DELETE', '/api/v1/globalvariables/my_Global-Variable1')).status).to.equal(204);
  });

  it('TestCheckParameterMiddlewareUserPermissionsUsername', async () => {
    expect((await call('GET', '/api/v1/users/alice/permissions')).status).to.equal(200);
    expect((await call('GET', '/api/v1/users/kube%3Aadmin/permissions')).status).to.equal(403);
    for (const [id] of INVALID_IDS) await expectMessage('GET', `/api/v1/users/${id}/permissions`, 'the name is invalid');
  });

  it('TestCheckParameterMiddlewareInvalidProjectInBody [differs: an empty metadata.project says "the project name is invalid: it is required"; Perses says "metadata.project cannot be empty"]', async () => {
    for (const [, decoded] of INVALID_IDS) {
      for (const path of PROJECT_PATHS)
        await expectMessage('POST', `/api/v1/${path}`, 'the project name is invalid', {
          metadata: { name: 'myResource', project: decoded },
        });
    }
    for (const path of PROJECT_PATHS) {
      await expectMessage('POST', `/api/v1/${path}`, 'the project name is invalid: it is required', { metadata: { name: 'myResource' } });
      expect((await call('POST', `/api/v1/${path}`, '{"metadata": {"project": ')).status, path).to.equal(400);
    }
  });

  it('TestCheckParameterMiddlewareNotExistingProject [differs: GET of one object in a project that does not exist is a 404, as any object that is not there; Perses answers 400]', async () => {
    const v = newVariable('not-existing-project', 'myVariable');
    const list = '/api/v1/projects/not-existing-project/variables';
    await expectMessage('GET', list, 'not-existing-project');
    expect((await call('GET', `${list}/myVariable`)).status).to.equal(404);
    await expectMessage('POST', list, 'not-existing-project', v);
    await expectMessage('POST', '/api/v1/variables', 'not-existing-project', v);
    expect((await call('PUT', `${list}/myVariable`, v)).status).to.equal(404);
    expect((await call('DELETE', `${list}/myVariable`)).status).to.equal(404);
  });

  it('TestCheckParameterMiddlewareValidProject', async () => {
    await createEntity(s, newProject('my_Project-1.0'), auth);
    const list = '/api/v1/projects/my_Project-1.0/variables';
    const v = newVariable('my_Project-1.0', 'myVariable');
    expect((await call('POST', list, v)).status).to.equal(200);
    expect((await call('GET', list)).status).to.equal(200);
    expect((await call('GET', `${list}/myVariable`)).status).to.equal(200);
    expect((await call('PUT', `${list}/myVariable`, v)).status).to.equal(200);
    expect((await call('DELETE', `${list}/myVariable`)).status).to.equal(204);
  });
});

/** pathTraversalProjectValues: project names that would leave a folder of Perses' file database. */
const TRAVERSALS = [
  '..',
  '.',
  '../..',
  '../../..',
  './..',
  '../projects',
  '../dashboards',
  'perses/..',
  'perses/../..',
  '/',
  '/etc',
  '..\\..',
  'perses\\..\\..',
  '...',
  '.perses',
  'perses.',
  '..perses',
  'perses..',
  'per..ses',
];
/** rawEncodedPathTraversalQueryStrings. */
const ENCODED_QUERIES = [
  'project=%2e%2e',
  'project=%2E%2E',
  'project=%2e%2e%2f%2e%2e',
  'project=..%2f..',
  'project=..%5c..',
  'project=%252e%252e',
  'project=%c0%ae%c0%ae',
];
/** projectScopedListPaths (always served), and with authorization the roles and bindings too. */
const LIST_PATHS = ['dashboards', 'datasources', 'ephemeraldashboards', 'folders', 'secrets', 'variables'];

describe('Perses e2e replay: lists (api/list_test.go)', function () {
  this.timeout(60_000);
  let s: TestServer;
  let auth: Record<string, string> = {};
  const status = async (path: string) => (await rawRequest(s, 'GET', path, auth)).status;
  const query = (value: string) => `project=${encodeURIComponent(value)}`;
  async function seed() {
    for (const e of [
      newProject('first'),
      newProject('second'),
      newVariable('first', 'var-1'),
      newVariable('second', 'var-2'),
      newProject('perses'),
      newVariable('perses', 'var'),
    ])
      await createEntity(s, e, auth);
  }

  describe('auth off', () => {
    before(async () => {
      s = await startPersesServer();
      auth = {};
      await seed();
    });
    after(() => s?.stop());

    it('TestListWithPathTraversalInProjectQueryParam', async () => {
      expect((await rawRequest(s, 'GET', '/api/v1/variables?project=first')).body).to.have.length(1);
      for (const path of LIST_PATHS) {
        for (const q of [...TRAVERSALS.map(query), ...ENCODED_QUERIES])
          expect(await status(`/api/v1/${path}?${q}`), `${path}?${q}`).to.equal(400);
      }
    });

    it('TestListWithPathTraversalInProjectQueryParamWithMetadataOnly', async () => {
      for (const path of LIST_PATHS) {
        for (const v of TRAVERSALS) expect(await status(`/api/v1/${path}?${query(v)}&metadata_only=true`), `${path} ${v}`).to.equal(400);
      }
    });

    it('TestListWithPathTraversalInProjectPathParam', async () => {
      for (const path of LIST_PATHS) {
        for (const p of ['%2e%2e', '%2E%2E', '%2e', '%2e%2e%2f%2e%2e', '..%2f..', '..%5c..', 'perses%2f..'])
          expect(await status(`/api/v1/projects/${p}/${path}`), `${p}/${path}`).to.equal(400);
      }
    });

    it('TestListWithPathTraversalInProjectQueryParamAndPathParamMismatch', async () => {
      for (const path of LIST_PATHS) {
        for (const v of TRAVERSALS) expect(await status(`/api/v1/projects/perses/${path}?${query(v)}`), `${path} ${v}`).to.equal(400);
      }
    });
  });

  describe('auth on', () => {
    before(async () => {
      s = await startPersesAuthServer();
      auth = { authorization: `Bearer ${await signIn(s, 'alice', 'alice-password')}` };
      await seed();
    });
    after(() => s?.stop());

    it('TestAuthListWithPathTraversalInProjectQueryParam', async () => {
      expect(
        (await rawRequest(s, 'GET', '/api/v1/variables', auth)).body.map((v: { metadata: { name: string } }) => v.metadata.name),
      ).to.include.members(['var-1', 'var-2']);
      for (const path of [...LIST_PATHS, 'roles', 'rolebindings']) {
        for (const q of [...TRAVERSALS.map(query), ...ENCODED_QUERIES])
          expect(await status(`/api/v1/${path}?${q}`), `${path}?${q}`).to.equal(400);
      }
    });
  });
});
