import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { tempDir } from '../../test/helpers/server.js';
import { ANONYMOUS, allowAll, readOnly, type Principal } from '../access/authorizer.js';
import { PasswordHasher } from '../access/passwords.js';
import { resolveConfig } from '../config.js';
import { ApiError } from '../errors.js';
import { buildKindRegistry } from '../kinds/index.js';
import { SCHEMAS_DIR } from '../paths.js';
import { PluginRegistry } from '../plugins/registry.js';
import { SecretBox } from '../secrets/secret-box.js';
import { LevelStore } from '../storage/level-store.js';
import { ResourceService } from './service.js';

const registry = buildKindRegistry();
const plugins = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'));
const kind = (name: string) => registry.byName(name)!;
const ALICE: Principal = { name: 'alice', anonymous: false };
const prometheus = (name: string, isDefault: boolean) => ({
  kind: 'Datasource',
  metadata: { name },
  spec: { default: isDefault, plugin: { kind: 'PrometheusDatasource', spec: { directUrl: 'http://prom:9090' } } },
});

/** The ApiError reason and message a write is refused with. */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return `${e.reason}: ${e.message}`;
  }
  throw new Error('expected a refusal');
}

describe('ResourceService, step by step (a LevelStore in a temporary directory)', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: LevelStore;
  let service: ResourceService;
  let now: Date;
  const make = (o: { config?: Parameters<typeof resolveConfig>[0]; authorizer?: typeof allowAll } = {}) =>
    new ResourceService({
      registry,
      store,
      plugins,
      authorizer: o.authorizer ?? allowAll,
      passwords: new PasswordHasher({ logN: 10, concurrency: 2, maxQueue: 16 }),
      secrets: new SecretBox(randomBytes(32)),
      config: resolveConfig(o.config ?? {}),
      now: () => now,
    });

  beforeEach(async () => {
    dir = tempDir();
    store = new LevelStore(dir.path);
    await store.open();
    now = new Date('2026-03-01T10:00:00.000Z');
    service = make();
    await service.create(ALICE, kind('Project'), { kind: 'Project', metadata: { name: 'p' }, spec: {} }, {});
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it('identify: name and project come from the path when empty; a different one is 400', async () => {
    const made = await service.create(ALICE, kind('Folder'), { kind: 'folder', metadata: {}, spec: {} }, { project: 'p', name: 'f' });
    expect(made.kind, 'the canonical kind').to.equal('Folder');
    expect(made.metadata).to.include({ name: 'f', project: 'p' });
    expect(
      await refusal(
        service.create(ALICE, kind('Folder'), { kind: 'Folder', metadata: { name: 'g', project: 'q' }, spec: {} }, { project: 'p' }),
      ),
    ).to.match(/^BadRequest: .*"q".*"p"/);
    expect(
      await refusal(service.create(ALICE, kind('Folder'), { kind: 'Dashboard', metadata: { name: 'g' }, spec: {} }, { project: 'p' })),
    ).to.match(/^BadRequest: /);
  });

  it("stamp: createdAt, updatedAt and version are the server's; tags sorted and de-duplicated", async () => {
    const body = {
      kind: 'Folder',
      metadata: { name: 'f', version: 99, createdAt: '1999-01-01T00:00:00Z', tags: ['b', 'a', 'b'] },
      spec: {},
    };
    const made = await service.create(ALICE, kind('Folder'), body, { project: 'p' });
    expect(made.metadata).to.deep.include({ version: 0, createdAt: now.toISOString(), updatedAt: now.toISOString(), tags: ['a', 'b'] });
    now = new Date('2026-03-01T11:00:00.000Z');
    const { object } = await service.update(
      ALICE,
      kind('Folder'),
      { ...body, spec: { display: { name: 'F' } } },
      { project: 'p', name: 'f' },
    );
    expect(object.metadata).to.deep.include({ version: 1, createdAt: '2026-03-01T10:00:00.000Z', updatedAt: now.toISOString() });
  });

  it('a dry run answers as the real call would and writes nothing', async () => {
    const before = await store.revision();
    const dry = await service.create(
      ALICE,
      kind('Folder'),
      { kind: 'Folder', metadata: { name: 'f' }, spec: {} },
      { project: 'p' },
      { dryRun: true },
    );
    expect(await store.revision()).to.equal(before);
    expect(await store.get({ kind: 'Folder', project: 'p', name: 'f' })).to.equal(undefined);
    const real = await service.create(ALICE, kind('Folder'), { kind: 'Folder', metadata: { name: 'f' }, spec: {} }, { project: 'p' });
    expect(dry).to.deep.equal(real);
    expect(
      await refusal(
        service.create(ALICE, kind('Folder'), { kind: 'Folder', metadata: { name: 'f' }, spec: {} }, { project: 'p' }, { dryRun: true }),
      ),
    ).to.match(/^AlreadyExists: /);
  });

  it('validation: schema and semantic problems at once, each with its path (400 Invalid)', async () => {
    const body = {
      kind: 'Dashboard',
      metadata: { name: 'd' },
      spec: { panels: { a: { kind: 'Panel', spec: { plugin: { kind: 'Nope', spec: {} } } } }, layouts: [], extra: 1 },
    };
    try {
      await service.create(ALICE, kind('Dashboard'), body, { project: 'p' });
      expect.fail('accepted');
    } catch (e) {
      expect((e as ApiError).reason).to.equal('Invalid');
      const paths = ((e as ApiError).details ?? []).map((x) => x.path);
      expect(paths).to.include('spec.extra').and.include('spec.panels.a.spec.plugin.kind');
    }
  });

  it('one default datasource per plugin kind in a scope (the scope rule, under the scope lock)', async () => {
    await service.create(ALICE, kind('Datasource'), prometheus('a', true), { project: 'p' });
    expect(await refusal(service.create(ALICE, kind('Datasource'), prometheus('b', true), { project: 'p' }))).to.match(/^Invalid: /);
    await service.create(ALICE, kind('Datasource'), prometheus('b', false), { project: 'p' });
    await service.create(ALICE, kind('Project'), { kind: 'Project', metadata: { name: 'q' }, spec: {} }, {});
    const concurrent = await Promise.allSettled(
      ['c', 'd', 'e'].map((n) => service.create(ALICE, kind('Datasource'), prometheus(n, true), { project: 'q' })),
    );
    expect(
      concurrent.filter((r) => r.status === 'fulfilled'),
      'exactly one default wins',
    ).to.have.length(1);
  });

  it('If-Match: a stale version is 412 PreconditionFailed, the current one is accepted', async () => {
    await service.create(ALICE, kind('Folder'), { kind: 'Folder', metadata: { name: 'f' }, spec: {} }, { project: 'p' });
    const body = { kind: 'Folder', metadata: { name: 'f' }, spec: { display: { name: 'F' } } };
    expect(await refusal(service.update(ALICE, kind('Folder'), body, { project: 'p', name: 'f' }, { ifMatch: 5 }))).to.match(
      /^PreconditionFailed: /,
    );
    expect(
      (await service.update(ALICE, kind('Folder'), body, { project: 'p', name: 'f' }, { ifMatch: 0 })).object.metadata.version,
    ).to.equal(1);
  });

  it('authorizes before revealing whether the object exists: a read-only authorizer refuses a create of an existing name as Forbidden', async () => {
    await service.create(ALICE, kind('Folder'), { kind: 'Folder', metadata: { name: 'f' }, spec: {} }, { project: 'p' });
    const readonly = make({ authorizer: readOnly(allowAll) });
    expect(
      await refusal(readonly.create(ALICE, kind('Folder'), { kind: 'Folder', metadata: { name: 'f' }, spec: {} }, { project: 'p' })),
    ).to.match(/^Forbidden: /);
    expect((await readonly.get(ALICE, kind('Folder'), 'p', 'f')).metadata.name).to.equal('f');
  });

  it('answers are masked, and the sensitive values stored sealed', async () => {
    const made = await service.create(
      ALICE,
      kind('Secret'),
      { kind: 'Secret', metadata: { name: 's' }, spec: { basicAuth: { username: 'u', password: 'hunter2' } } },
      { project: 'p' },
    );
    expect(made.spec).to.deep.equal({ basicAuth: { username: 'u', password: '<secret>' } });
    const stored = JSON.stringify(await store.get({ kind: 'Secret', project: 'p', name: 's' }));
    expect(stored).to.not.include('hunter2');
    expect((await service.get(ALICE, kind('Secret'), 'p', 's')).spec).to.deep.equal({ basicAuth: { username: 'u', password: '<secret>' } });
  });

  it('history: every write kept, at most history.max_versions of the configuration', async () => {
    service = make({ config: { history: { max_versions: 2 } } });
    const body = (n: number) => ({ kind: 'Folder', metadata: { name: 'f' }, spec: { display: { name: `v${n}` } } });
    await service.create(ALICE, kind('Folder'), body(0), { project: 'p' });
    for (let n = 1; n <= 4; n++) await service.update(ALICE, kind('Folder'), body(n), { project: 'p', name: 'f' });
    const versions = await store.listVersions({ kind: 'Folder', project: 'p', name: 'f' });
    expect(versions.map((v) => v.version)).to.deep.equal([4, 3, 2]);
    expect(versions[0]).to.deep.include({ updatedBy: 'alice', manager: 'api' });
  });

  it('a User with the older spec.password beside a nativeProvider that is not an object is 400 Invalid, not a crash', async () => {
    const body = { kind: 'User', metadata: { name: 'bob' }, spec: { password: 'pw-pw-pw-pw', nativeProvider: 'oops' } };
    expect(await refusal(service.create(ANONYMOUS, kind('User'), body, {}))).to.match(/^Invalid: /);
  });
});
