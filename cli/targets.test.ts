import { expect } from 'chai';
import type { Manifest } from './manifests.js';
import { resolveTargets } from './targets.js';

describe('dashctl: the one project rule', () => {
  const manifest = (object: Record<string, unknown>): Manifest => ({
    file: 'f.yaml',
    index: 0,
    ofFile: 1,
    object,
    lineOf: () => undefined,
  });
  const folder = (name: string, project?: string) =>
    manifest({ kind: 'Folder', metadata: { name, ...(project ? { project } : {}) }, spec: {} });

  it("an object's own project wins; -p or the default fills in the others", () => {
    const { targets, unresolved } = resolveTargets([folder('a', 'own'), folder('b')], { fallback: 'dflt' });
    expect(unresolved).to.deep.equal([]);
    expect(targets.map((t) => t.label)).to.deep.equal(['Folder own/a', 'Folder dflt/b']);
    expect(resolveTargets([folder('b')], { flag: 'flag', fallback: 'dflt' }).targets[0].project).to.equal('flag');
  });

  it('-p contradicting metadata.project is unresolved, naming the object and both projects; -p equal to it is fine', () => {
    const { targets, unresolved } = resolveTargets([folder('a', 'own'), folder('c', 'flag')], { flag: 'flag' });
    expect(targets.map((t) => t.label)).to.deep.equal(['Folder flag/c']);
    expect(unresolved).to.have.length(1);
    expect(unresolved[0].message).to.equal(
      'Folder own/a says metadata.project "own" but -p says "flag"; drop -p to apply it to "own", change metadata.project, or pass --force-project to move it into "flag"',
    );
  });

  it('--force-project moves the object, and the body sent names the new project', () => {
    const m = folder('a', 'own');
    const { targets } = resolveTargets([m], { flag: 'flag', force: true });
    expect(targets[0].label).to.equal('Folder flag/a');
    expect((m.object.metadata as { project: string }).project).to.equal('flag');
  });

  it('global kinds ignore -p; a project kind without any project is unresolved', () => {
    const { targets, unresolved } = resolveTargets([manifest({ kind: 'GlobalVariable', metadata: { name: 'g' }, spec: {} }), folder('x')], {
      flag: undefined,
    });
    expect(targets.map((t) => t.label)).to.deep.equal(['GlobalVariable g']);
    expect(unresolved[0].message).to.match(/has no metadata.project/);
  });

  it('a project or name that is not a string (an unrendered {{PROJECT}} is a YAML map) is unresolved, saying so, with -p or without', () => {
    const templated = () => manifest({ kind: 'Datasource', metadata: { name: 'ds', project: { '{{PROJECT}}': null } }, spec: {} });
    for (const flag of [undefined, 'proj1']) {
      const { targets, unresolved } = resolveTargets([templated()], { flag });
      expect(targets).to.deep.equal([]);
      expect(unresolved[0].message).to.equal(
        'Datasource metadata.project: must be a string, not a map; an unrendered template such as {{PROJECT}} reads as one in YAML: render it, or quote a literal name',
      );
    }
    const numbered = resolveTargets([manifest({ kind: 'Folder', metadata: { name: 123, project: 'p' }, spec: {} })], {});
    expect(numbered.unresolved[0].message).to.equal(
      'Folder metadata.name: must be a string, not the number 123 (in YAML, quote a name such as "0123")',
    );
  });
});
