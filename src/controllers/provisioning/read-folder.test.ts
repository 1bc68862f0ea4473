import { expect } from 'chai';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../test/helpers/server.js';
import { bodyLimitsOf } from '../../api/body-limits.js';
import { parseJson } from '../../api/body-parsers.js';
import { yamlBodyToJson } from '../../api/yaml-body.js';

const LIMITS = bodyLimitsOf({ max_json_depth: 100, max_body_nodes: 100_000, max_object_keys: 10_000, body_limit: 5 * 1024 * 1024 });
import { FolderReader, type ManifestParsers } from './read-folder.js';

/** The server's own parsers, counting the texts they are given. */
function counted(): ManifestParsers & { calls: number } {
  const p = {
    calls: 0,
    json: (text: string) => {
      p.calls++;
      return parseJson(text, LIMITS);
    },
    yaml: (text: string) => {
      p.calls++;
      return parseJson(yamlBodyToJson(text, LIMITS), LIMITS);
    },
  };
  return p;
}

const names = (docs: { file: string; index: number }[]) => docs.map((d) => `${d.file}#${d.index}`);

describe('FolderReader', () => {
  const dir = tempDir('dashplane-read-folder-');
  after(() => dir.remove());

  it('reads a Kubernetes ConfigMap mount (files linked through the hidden ..data): the links are followed, the hidden entries are not read twice', async () => {
    const root = join(dir.path, 'configmap');
    mkdirSync(join(root, '..2026_05_04_10_00_00.1'), { recursive: true });
    writeFileSync(join(root, '..2026_05_04_10_00_00.1', 'project.yaml'), 'kind: Project\nmetadata: {name: a}\n');
    writeFileSync(
      join(root, '..2026_05_04_10_00_00.1', 'list.json'),
      '[{"kind": "Project", "metadata": {"name": "b"}}, {"kind": "Project", "metadata": {"name": "c"}}]',
    );
    symlinkSync('..2026_05_04_10_00_00.1', join(root, '..data'));
    symlinkSync('..data/project.yaml', join(root, 'project.yaml'));
    symlinkSync('..data/list.json', join(root, 'list.json'));
    const read = await new FolderReader({ parsers: counted(), maxBytes: 1 << 20 }).read(root);
    expect(read.problems).to.deep.equal([]);
    expect(read.files).to.equal(2);
    expect(names(read.documents)).to.deep.equal(['list.json#0', 'list.json#1', 'project.yaml#0']);
  });

  it('a link back up the tree and a second link to a folder do not read it twice; a broken link is a problem; confined, a link out of the folder is not followed', async () => {
    const root = join(dir.path, 'links');
    mkdirSync(join(root, 'sub'), { recursive: true });
    writeFileSync(join(root, 'sub', 'p.yaml'), 'kind: Project\nmetadata: {name: a}\n');
    writeFileSync(join(dir.path, 'outside.yaml'), 'kind: Project\nmetadata: {name: outside}\n');
    symlinkSync('..', join(root, 'sub', 'up'));
    symlinkSync('sub', join(root, 'alias'));
    symlinkSync('nowhere.yaml', join(root, 'broken.yaml'));
    symlinkSync(join(dir.path, 'outside.yaml'), join(root, 'out.yaml'));
    const open = await new FolderReader({ parsers: counted(), maxBytes: 1 << 20 }).read(root);
    expect(names(open.documents)).to.deep.equal(['alias/p.yaml#0', 'out.yaml#0']);
    expect(open.problems.map((p) => `${p.file}: ${p.message}`)).to.deep.equal(['broken.yaml: a symbolic link that leads nowhere (ENOENT)']);
    const confined = await new FolderReader({ parsers: counted(), maxBytes: 1 << 20, confine: true }).read(root);
    expect(names(confined.documents)).to.deep.equal(['alias/p.yaml#0']);
    expect(confined.problems.map((p) => p.file)).to.deep.equal(['broken.yaml', 'out.yaml']);
  });

  it('parses a file again only when it changed; several YAML documents carry their lines; a missing folder is a problem of the folder', async () => {
    const root = join(dir.path, 'cache');
    mkdirSync(root);
    writeFileSync(join(root, 'a.yaml'), 'kind: Project\nmetadata: {name: a}\n---\n# the second\nkind: Project\nmetadata: {name: b}\n');
    writeFileSync(join(root, 'b.json'), '{"kind": "Project", "metadata": {"name": "c"}}');
    const parsers = counted();
    const reader = new FolderReader({ parsers, maxBytes: 1 << 20 });
    const first = await reader.read(root);
    expect(first.documents.map((d) => [d.file, d.index, d.ofFile, d.line])).to.deep.equal([
      ['a.yaml', 0, 2, 1],
      ['a.yaml', 1, 2, 3],
      ['b.json', 0, 1, undefined],
    ]);
    expect(parsers.calls).to.equal(3);
    await reader.read(root);
    expect(parsers.calls, 'nothing changed').to.equal(3);
    writeFileSync(join(root, 'b.json'), '{"kind": "Project", "metadata": {"name": "d"}}');
    const again = await reader.read(root);
    expect(parsers.calls, 'b.json only').to.equal(4);
    expect(again.documents.map((d) => (d.value as { metadata: { name: string } }).metadata.name)).to.deep.equal(['a', 'b', 'd']);
    const missing = await reader.read(join(dir.path, 'nope'));
    expect(missing.problems).to.deep.equal([
      { file: '', message: 'the folder cannot be read (ENOENT); create it, or remove it from the configuration' },
    ]);
  });
});
