import { expect } from 'chai';
import { resolveConfig } from '../config.js';
import type { Envelope } from '../storage/store.js';
import type { HookContext, KindDescriptor } from './descriptor.js';
import { buildKindRegistry } from './index.js';
import { KindRegistry } from './registry.js';

const T = '2026-01-01T00:00:00.000Z';

describe('KindRegistry', () => {
  const registry = buildKindRegistry();

  it('short names come from the descriptors: each names one kind, case-insensitively', () => {
    expect(registry.byShortName('gds')?.kind).to.equal('GlobalDatasource');
    expect(registry.byShortName('DS')?.kind).to.equal('Datasource');
    expect(registry.byShortName('db')?.kind).to.equal('Dashboard');
    expect(registry.byShortName('dashboards')).to.equal(undefined);
    expect(registry.shortNames().map(([s, d]) => `${s}=${d.kind}`)).to.include.members([
      'proj=Project',
      'prj=Project',
      'rb=RoleBinding',
      'grb=GlobalRoleBinding',
    ]);
  });

  it('refuses a short name that is taken, names a kind or a plural, or is not lower case', () => {
    const base = registry.all();
    const withShort = (kind: string, shortNames: string[]) => base.map((d) => (d.kind === kind ? { ...d, shortNames } : d));
    expect(() => new KindRegistry(withShort('Folder', ['ds']))).to.throw(
      /short name "ds" of (Folder|Datasource) must be lower case and name no other kind/,
    );
    expect(() => new KindRegistry(withShort('Folder', ['dashboards']))).to.throw(/short name "dashboards"/);
    expect(() => new KindRegistry(withShort('Folder', ['user']))).to.throw(/short name "user"/);
    expect(() => new KindRegistry(withShort('Folder', ['Fo']))).to.throw(/lower case/);
    expect(new KindRegistry(withShort('Folder', ['fo'])).byShortName('fo')?.kind).to.equal('Folder');
  });

  it('a project Role may not name the global kinds, the project kind aside: derived from the scopes of the registry', async () => {
    const role = registry.byName('Role') as KindDescriptor;
    const ctx = { kinds: registry.scopes, projectKind: registry.projectKind.kind, config: resolveConfig() } as HookContext;
    const refused = async (scope: string) => {
      const obj: Envelope = {
        kind: 'Role',
        metadata: { name: 'r', project: 'p', createdAt: T, updatedAt: T, version: 0 },
        spec: { permissions: [{ actions: ['read'], scopes: [scope] }] },
      };
      return (await role.hooks!.validate!(obj, ctx, { principal: { name: 'x', anonymous: false } })).length > 0;
    };
    const globalOnly: string[] = [];
    for (const kind of registry.scopes.keys()) if (await refused(kind)) globalOnly.push(kind);
    // the list role.ts used to spell out
    expect(globalOnly.sort()).to.deep.equal([
      'GlobalDatasource',
      'GlobalRole',
      'GlobalRoleBinding',
      'GlobalSecret',
      'GlobalServiceAccount',
      'GlobalVariable',
      'Group',
      'User',
    ]);
    expect(await refused('Project'), 'read on its own project').to.equal(false);
    expect(await refused('AuditEvent')).to.equal(false);
  });
});
