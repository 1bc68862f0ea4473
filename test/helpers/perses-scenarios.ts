/**
 * Perses' scenario functions (internal/api/e2e/framework/scenario.go) as mocha tests with its
 * subtest names: Creation, Conflict, Update, Deletion, Retrieval, Global Retrieval and
 * "404 - Not found", for a global kind (`globalScenario`) or a project kind (`projectScenario`).
 */
import { expect } from 'chai';
import { collection, createEntity, newProject, objectPath, startPersesServer, type Obj } from './perses-e2e.js';
import type { TestServer } from './server.js';

export interface ScenarioOptions {
  /** WriteTestScenario: no retrieval and not-found subtests (Perses' scenario for secrets). */
  writeOnly?: boolean;
  /** The spec an update answers with, when the server masks part of it (secrets, passwords). */
  answeredSpec?: Obj;
  /** Objects the server needs before the kind can be created (e.g. the user a binding names). */
  prerequisites?: (s: TestServer) => Promise<void>;
}

/** One server for the scenario; each subtest removes the objects it made. */
function scenarioServer(o: ScenarioOptions): { server: () => TestServer; made: Obj[] } {
  let s: TestServer;
  const made: Obj[] = [];
  before(async () => {
    s = await startPersesServer();
    await o.prerequisites?.(s);
  });
  afterEach(async () => {
    for (const e of made.splice(0).reverse()) await s.api('DELETE', objectPath(e));
  });
  after(() => s?.stop());
  return { server: () => s, made };
}

async function expectUpdate(s: TestServer, entity: Obj, o: ScenarioOptions): Promise<void> {
  const r = await s.api('PUT', objectPath(entity), entity);
  expect(r.status, r.text).to.equal(200);
  expect(r.body.spec).to.deep.equal(o.answeredSpec ?? entity.spec);
  expect((await s.api('GET', objectPath(entity))).status).to.equal(200);
}

async function expectDeletion(s: TestServer, entity: Obj): Promise<void> {
  expect((await s.api('DELETE', objectPath(entity))).status).to.equal(204);
  expect((await s.api('GET', objectPath(entity))).status).to.equal(404);
}

/** MainTestScenario (WriteTestScenario with `writeOnly`) of a global kind at `/api/v1/{path}`. */
export function globalScenario(path: string, creator: (name: string) => Obj, o: ScenarioOptions = {}): void {
  const { server, made } = scenarioServer(o);
  const add = async (e: Obj) => made.push(await createEntity(server(), e));
  it('Creation', async () => {
    const entity = creator('myResource');
    const r = await server().api('POST', `/api/v1/${path}`, entity);
    expect(r.status, r.text).to.equal(200);
    made.push(r.body);
  });
  it(`Conflict test (${path})`, async () => {
    const entity = creator('myResource');
    await add(entity);
    expect((await server().api('POST', `/api/v1/${path}`, entity)).status).to.equal(409);
  });
  it(`Update test (${path})`, async () => {
    const entity = creator('myResource');
    await add(entity);
    await expectUpdate(server(), entity, o);
  });
  it(`Deletion test (${path})`, async () => {
    const entity = creator('myResource');
    await createEntity(server(), entity);
    await expectDeletion(server(), entity);
  });
  if (o.writeOnly) return;
  it(`Retrieval tests (${path})`, async () => {
    const stored = await createEntity(server(), creator('myResource'));
    made.push(stored);
    expect((await server().api('GET', `/api/v1/${path}`)).body).to.deep.include(stored);
    expect((await server().api('GET', objectPath(stored))).body).to.deep.equal(stored);
  });
  it(`"404 - Not found" tests (${path})`, async () => {
    const entity = creator('not-existing');
    expect((await server().api('GET', `/api/v1/${path}/not-existing`)).status).to.equal(404);
    expect((await server().api('PUT', `/api/v1/${path}/not-existing`, entity)).status).to.equal(404);
    expect((await server().api('DELETE', `/api/v1/${path}/not-existing`)).status).to.equal(404);
  });
}

/** MainTestScenarioWithProject (WriteTestScenarioWithProject with `writeOnly`) of a project kind. */
export function projectScenario(path: string, creator: (project: string, name: string) => Obj, o: ScenarioOptions = {}): void {
  const { server, made } = scenarioServer(o);
  /** The projects first, then the objects, each removed after the subtest (objects first). */
  const add = async (...entities: Obj[]) => {
    for (const e of entities) made.push(await createEntity(server(), e));
  };
  it('Creation', async () => {
    await add(newProject('myProject'));
    const r = await server().api('POST', `/api/v1/${path}`, creator('myProject', 'myResource'));
    expect(r.status, r.text).to.equal(200);
    made.push(r.body);
  });
  it('Creation with project path', async () => {
    await add(newProject('myProject'));
    const r = await server().api('POST', `/api/v1/projects/myProject/${path}`, creator('myProject', 'myResource'));
    expect(r.status, r.text).to.equal(200);
    made.push(r.body);
  });
  it(`Conflict test (${path})`, async () => {
    const entity = creator('myProject', 'myResource');
    await add(newProject('myProject'), entity);
    expect((await server().api('POST', collection(entity), entity)).status).to.equal(409);
  });
  it(`Update test (${path})`, async () => {
    const entity = creator('myProject', 'myResource');
    await add(newProject('myProject'), entity);
    await expectUpdate(server(), entity, o);
  });
  it(`Deletion test (${path})`, async () => {
    const entity = creator('myParentResource', 'myResource');
    await add(newProject('myParentResource'));
    await createEntity(server(), entity);
    await expectDeletion(server(), entity);
  });
  if (o.writeOnly) return;
  it(`Retrieval tests (${path})`, async () => {
    await add(newProject('myProject'));
    const stored = await createEntity(server(), creator('myProject', 'myResource'));
    made.push(stored);
    expect((await server().api('GET', `/api/v1/${path}`)).body).to.deep.include(stored);
    expect((await server().api('GET', `/api/v1/projects/myProject/${path}`)).body).to.deep.include(stored);
    expect((await server().api('GET', objectPath(stored))).body).to.deep.equal(stored);
  });
  it(`Global Retrieval tests (${path})`, async () => {
    await add(newProject('myProject1'), newProject('myProject2'));
    const stored = [
      await createEntity(server(), creator('myProject1', 'myResource1')),
      await createEntity(server(), creator('myProject2', 'myResource2')),
    ];
    made.push(...stored);
    const list = (await server().api('GET', `/api/v1/${path}`)).body;
    for (const e of stored) expect(list).to.deep.include(e);
  });
  it(`"404 - Not found" tests (${path})`, async () => {
    await add(newProject('myParentResource'));
    const base = `/api/v1/projects/myParentResource/${path}/not-exisiting`;
    const entity = creator('myParentResource', 'not-exisiting');
    expect((await server().api('GET', base)).status).to.equal(404);
    expect((await server().api('PUT', base, entity)).status).to.equal(404);
    expect((await server().api('DELETE', base)).status).to.equal(404);
  });
}
