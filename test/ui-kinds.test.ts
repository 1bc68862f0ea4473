/**
 * The web UI's list of kinds (ui/src/kinds.ts) is the server's: every kind the server serves, with
 * its plural and scope, and nothing the server does not serve. The UI module is bundled with
 * esbuild (as vite would) and imported, so the check reads what the browser runs.
 */
import { expect } from 'chai';
import { build } from 'esbuild';
import { join } from 'node:path';
import { buildKindRegistry } from '../src/kinds/index.js';
import { PACKAGE_ROOT } from '../src/paths.js';

interface KindUi {
  kind: string;
  plural: string;
  scope: string;
  elsewhere?: string;
  displayPath?: string[];
  newSpec(): unknown;
}

async function uiKinds(): Promise<{ KINDS: KindUi[]; ADMIN_KINDS: string[]; PROJECT_KIND_NAMES: string[]; ALL_KIND_NAMES: string[] }> {
  const out = await build({
    entryPoints: [join(PACKAGE_ROOT, 'ui', 'src', 'kinds.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
  });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
}

describe('web UI: the list of kinds is the server’s', () => {
  const server = buildKindRegistry()
    .all()
    .map((d) => ({ kind: d.kind, plural: d.plural, scope: d.scope }));

  it('names every kind the server serves, with its plural and scope, and no other', async () => {
    const { KINDS } = await uiKinds();
    const ui = KINDS.map((k) => ({ kind: k.kind, plural: k.plural, scope: k.scope }));
    const byKind = (a: { kind: string }, b: { kind: string }) => a.kind.localeCompare(b.kind);
    expect(ui.sort(byKind)).to.deep.equal([...server].sort(byKind));
  });

  it('a role may grant every kind of its scope: the role form offers them all', async () => {
    const { PROJECT_KIND_NAMES, ALL_KIND_NAMES } = await uiKinds();
    expect([...ALL_KIND_NAMES].sort()).to.deep.equal(server.map((k) => k.kind).sort());
    const project = server.filter((k) => k.scope === 'project').map((k) => k.kind);
    expect([...PROJECT_KIND_NAMES].sort()).to.deep.equal([...project, 'Project'].sort());
  });

  it('the admin page lists the global kinds that have no page of their own', async () => {
    const { KINDS, ADMIN_KINDS } = await uiKinds();
    expect(ADMIN_KINDS).to.include.members([
      'GlobalDatasource',
      'GlobalVariable',
      'GlobalSecret',
      'GlobalRole',
      'GlobalRoleBinding',
      'User',
    ]);
    for (const name of ADMIN_KINDS) {
      const k = KINDS.find((x) => x.kind === name)!;
      expect(k.scope, name).to.equal('global');
      expect(k.elsewhere, name).to.equal(undefined);
    }
    expect(ADMIN_KINDS).not.to.include('Project');
  });
});
