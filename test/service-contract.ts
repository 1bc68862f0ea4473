/**
 * The write pipeline over a real store: what `ResourceService` promises whatever the driver
 * (no-op updates, field managers). Each driver's test file runs it with the same fixture factory
 * as the store contract.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ANONYMOUS, allowAll, type Principal } from '../src/access/authorizer.js';
import { PasswordHasher } from '../src/access/passwords.js';
import { resolveConfig } from '../src/config.js';
import { buildKindRegistry } from '../src/kinds/index.js';
import { SCHEMAS_DIR } from '../src/paths.js';
import { PluginRegistry } from '../src/plugins/registry.js';
import type { CredentialChange } from '../src/resources/credentials.js';
import { getPath } from '../src/lib/object-path.js';
import { ResourceService } from '../src/resources/service.js';
import { unseal } from '../src/secrets/sealing.js';
import { SecretBox } from '../src/secrets/secret-box.js';
import type { ObjectKey, Store } from '../src/storage/store.js';
import { rejection, type StoreFixture } from './store-contract.js';

const registry = buildKindRegistry();
const plugins = PluginRegistry.load(join(SCHEMAS_DIR, 'plugins'));
const kind = (name: string) => registry.byName(name)!;
const ALICE: Principal = { name: 'alice', anonymous: false };

/** A dashboard in an older form: no duration, one variable object instead of a list, tags out of order. */
const olderDashboard = (title: string) => ({
  kind: 'dashboard',
  metadata: { name: 'd', project: 'p', tags: ['team-b', 'team-a', 'team-b'] },
  spec: {
    display: { name: title },
    variables: { kind: 'TextVariable', spec: { name: 'env', value: 'prod' } },
    panels: { a: { kind: 'Panel', spec: { display: { name: 'a' }, plugin: { kind: 'Markdown', spec: { text: 'hello' } } } } },
    layouts: [{ kind: 'Grid', spec: { items: [{ x: 0, y: 0, width: 12, height: 4, content: { $ref: '#/spec/panels/a' } }] } }],
  },
});

/** The same dashboard as the server stores it, as a client that read it would send it back. */
const storedDashboard = (title: string) => {
  const o = olderDashboard(title);
  return {
    kind: 'Dashboard',
    metadata: {
      name: 'd',
      project: 'p',
      tags: ['team-a', 'team-b'],
      version: 41,
      createdAt: '1999-01-01T00:00:00Z',
      updatedAt: '1999-01-01T00:00:00Z',
    },
    spec: { ...o.spec, duration: '1h', variables: [o.spec.variables] },
  };
};

const secretOf = (password: string, ca = 'CA-PEM') => ({
  kind: 'Secret',
  metadata: { name: 's', project: 'p' },
  spec: { basicAuth: { username: 'u', password }, tlsConfig: { ca } },
});
const userOf = (password: string, firstName = 'Alice') => ({
  kind: 'User',
  metadata: { name: 'alice' },
  spec: { firstName, nativeProvider: { password } },
});

export function describeServiceContract(driver: string, make: () => Promise<StoreFixture>): void {
  describe(`ResourceService over ${driver}`, () => {
    let fx: StoreFixture;
    let store: Store;
    let service: ResourceService;
    let box: SecretBox;
    let credentialChanges: CredentialChange[];
    /** Everything a write leaves behind: the stored object, its history, its managers, the store revision. */
    const trace = async (key: ObjectKey) => ({
      object: await store.get(key),
      versions: await store.listVersions(key),
      managers: await store.managers(key),
      revision: await store.revision(),
    });

    beforeEach(async () => {
      fx = await make();
      store = fx.store;
      box = new SecretBox(randomBytes(32));
      credentialChanges = [];
      service = new ResourceService({
        registry,
        store,
        plugins,
        authorizer: allowAll,
        passwords: new PasswordHasher({ logN: 10, concurrency: 2, maxQueue: 16 }),
        secrets: box,
        config: resolveConfig(),
        credentialsChanging: async (c) => void credentialChanges.push(c),
      });
      await service.create(ANONYMOUS, kind('Project'), { kind: 'Project', metadata: { name: 'p' }, spec: {} }, {});
    });
    afterEach(async () => fx.destroy());

    it('an update holding what is stored (older forms, tag order and server metadata aside) changes nothing: no version, updatedAt, history entry, manager or event; a dry run answers the same', async () => {
      const d = kind('Dashboard');
      const key = { kind: 'Dashboard', project: 'p', name: 'd' };
      const created = await service.create(ALICE, d, olderDashboard('Title'), {}, { manager: 'dashctl' });
      const before = await trace(key);
      for (const [what, body] of [
        ['the older form sent again', olderDashboard('Title')],
        ['the stored form sent back', storedDashboard('Title')],
      ] as const) {
        for (const dryRun of [false, true]) {
          const r = await service.update(
            ANONYMOUS,
            d,
            structuredClone(body),
            { name: 'd', project: 'p' },
            { manager: 'web-ui', dryRun, skipUnchanged: true },
          );
          expect(r.unchanged, `${what}, dryRun ${dryRun}`).to.equal(true);
          expect(r.object, `${what}, dryRun ${dryRun}: the stored object as it is`).to.deep.equal(created);
          expect(await trace(key), `${what}, dryRun ${dryRun}`).to.deep.equal(before);
        }
      }
      const changed = await service.update(ANONYMOUS, d, olderDashboard('Other title'), { name: 'd', project: 'p' }, { manager: 'web-ui' });
      expect(changed.unchanged).to.equal(false);
      expect(changed.object.metadata.version).to.equal(1);
      expect((await trace(key)).revision).to.equal(before.revision + 1);
    });

    it('If-Match still decides first: a stale one on a no-op update is PreconditionFailed, the current one is unchanged', async () => {
      const d = kind('Dashboard');
      await service.create(ALICE, d, olderDashboard('Title'), {});
      await service.update(ALICE, d, olderDashboard('Second'), { name: 'd', project: 'p' });
      const e = await rejection(service.update(ALICE, d, olderDashboard('Second'), { name: 'd', project: 'p' }, { ifMatch: 0 }));
      expect(e.reason).to.equal('PreconditionFailed');
      expect(
        (await service.update(ALICE, d, olderDashboard('Second'), { name: 'd', project: 'p' }, { ifMatch: 1, skipUnchanged: true }))
          .unchanged,
      ).to.equal(true);
    });

    it('a Secret: the same plain values or "<secret>" change nothing (the ciphertext stays); a new value of one sensitive field is a change', async () => {
      const d = kind('Secret');
      const key = { kind: 'Secret', project: 'p', name: 's' };
      await service.create(ALICE, d, secretOf('pw-1'), {});
      const before = await trace(key);
      for (const [what, body] of [
        ['the same plain values', secretOf('pw-1')],
        ['"<secret>" sent back', secretOf('<secret>', '<secret>')],
        ['one of each', secretOf('pw-1', '<secret>')],
      ] as const) {
        for (const dryRun of [true, false]) {
          const r = await service.update(ALICE, d, structuredClone(body), { name: 's', project: 'p' }, { dryRun, skipUnchanged: true });
          expect(r.unchanged, `${what}, dryRun ${dryRun}`).to.equal(true);
          expect(JSON.stringify(r.object), 'masked').to.not.include('pw-1');
          expect(await trace(key), what).to.deep.equal(before);
        }
      }
      const dry = await service.update(ALICE, d, secretOf('pw-2'), { name: 's', project: 'p' }, { dryRun: true, skipUnchanged: true });
      expect(dry.unchanged, 'only the password differs').to.equal(false);
      expect(await trace(key)).to.deep.equal(before);
      const r = await service.update(ALICE, d, secretOf('pw-2'), { name: 's', project: 'p' });
      expect(r.unchanged).to.equal(false);
      expect(r.object.metadata.version).to.equal(1);
      const stored = unseal(d, (await store.get(key))!, box);
      expect(getPath(stored, 'spec.basicAuth.password')).to.equal('pw-2');
      expect(getPath(stored, 'spec.tlsConfig.ca')).to.equal('CA-PEM');
      expect(getPath(await store.get(key), 'spec.tlsConfig.ca'), 'an unchanged value keeps its ciphertext').to.equal(
        getPath(before.object, 'spec.tlsConfig.ca'),
      );
    });

    it('a User: the same plain password is checked against the stored hash, never hashed again: unchanged, and no session ends; a new one is a change', async () => {
      const d = kind('User');
      const key = { kind: 'User', project: '', name: 'alice' };
      await service.create(ANONYMOUS, d, userOf('correct horse'), {});
      const before = await trace(key);
      for (const dryRun of [true, false]) {
        const r = await service.update(ALICE, d, userOf('correct horse'), { name: 'alice' }, { dryRun, skipUnchanged: true });
        expect(r.unchanged, `dryRun ${dryRun}`).to.equal(true);
        expect(await trace(key)).to.deep.equal(before);
      }
      // another field changes, the password does not: the hash (and the sessions bound to it) stay
      const renamed = await service.update(ALICE, d, userOf('correct horse', 'Alicia'), { name: 'alice' });
      expect(renamed.unchanged).to.equal(false);
      expect(getPath(await store.get(key), 'spec.nativeProvider.password')).to.equal(
        getPath(before.object, 'spec.nativeProvider.password'),
      );
      expect(credentialChanges, 'no credential change').to.deep.equal([]);
      const reset = await service.update(ALICE, d, userOf('battery staple', 'Alicia'), { name: 'alice' });
      expect(reset.unchanged).to.equal(false);
      expect(credentialChanges).to.have.length(1);
      expect(getPath(await store.get(key), 'spec.nativeProvider.password')).to.not.equal(
        getPath(before.object, 'spec.nativeProvider.password'),
      );
    });

    it('a kind with a ttl is written even when nothing else changes: the same body renews its lease', async () => {
      const d = kind('EphemeralDashboard');
      const body = { ...olderDashboard('Title'), kind: 'EphemeralDashboard', spec: { ...olderDashboard('Title').spec, ttl: '1h' } };
      await service.create(ALICE, d, structuredClone(body), {});
      const r = await service.update(ALICE, d, structuredClone(body), { name: 'd', project: 'p' }, { skipUnchanged: true });
      expect(r.unchanged).to.equal(false);
      expect(r.object.metadata.version).to.equal(1);
    });

    it('without skipUnchanged, an update holding what is stored is a write like any other (Perses), and a secret value sent again keeps its ciphertext', async () => {
      const d = kind('Secret');
      const key = { kind: 'Secret', project: 'p', name: 's' };
      await service.create(ALICE, d, secretOf('pw-1'), {});
      const before = await store.get(key);
      for (const version of [1, 2]) {
        const r = await service.update(ALICE, d, secretOf('pw-1'), { name: 's', project: 'p' });
        expect(r.unchanged).to.equal(false);
        expect(r.object.metadata.version).to.equal(version);
      }
      expect(getPath(await store.get(key), 'spec.basicAuth.password'), 'the same value keeps its stored form').to.equal(
        getPath(before, 'spec.basicAuth.password'),
      );
    });

    it('every write records its writer: the managers record and the history entry name the user and the manager (default "api")', async () => {
      const d = kind('Dashboard');
      const key = { kind: 'Dashboard', project: 'p', name: 'd' };
      await service.create(ALICE, d, olderDashboard('v0'), {}, { manager: 'dashctl' });
      await service.update(ANONYMOUS, d, olderDashboard('v1'), { name: 'd', project: 'p' }, { manager: 'web-ui' });
      await service.update(ALICE, d, olderDashboard('v2'), { name: 'd', project: 'p' });
      const managers = await store.managers(key);
      expect(managers.map((m) => [m.version, m.updatedBy, m.manager])).to.deep.equal([
        [2, 'alice', 'api'],
        [1, 'anonymous', 'web-ui'],
        [0, 'alice', 'dashctl'],
      ]);
      expect((await store.listVersions(key)).map((v) => [v.version, v.updatedBy, v.manager])).to.deep.equal([
        [2, 'alice', 'api'],
        [1, 'anonymous', 'web-ui'],
        [0, 'alice', 'dashctl'],
      ]);
      // kinds without history are recorded too
      await service.create(ALICE, kind('Secret'), secretOf('pw'), {}, { manager: 'dashctl' });
      expect((await store.managers({ kind: 'Secret', project: 'p', name: 's' })).map((m) => m.manager)).to.deep.equal(['dashctl']);
    });
  });
}
