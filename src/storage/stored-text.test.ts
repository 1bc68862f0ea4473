import { expect } from 'chai';
import { storedText } from './stored-text.js';

describe('storedText', () => {
  const cases: [string, unknown][] = [
    [
      'kind and metadata first (as stored)',
      { kind: 'Dashboard', metadata: { name: 'a', project: 'p', version: 3, tags: ['}', '{"', '\\\\'] }, spec: { x: 1 } },
    ],
    ['escaped quote in the kind', { kind: 'Da\\"sh', metadata: { name: 'a' }, spec: {} }],
    ['nested objects and arrays in metadata', { kind: 'K', metadata: { name: 'a', labels: { a: [{ b: ']' }] } }, spec: [] }],
    ['another member order (parsed whole)', { metadata: { name: 'b' }, kind: 'K', spec: {} }],
  ];
  for (const [what, value] of cases) {
    it(what, () => {
      const text = JSON.stringify(value);
      const t = storedText(text);
      expect(t.text).to.equal(text);
      expect(t.metadata).to.deep.equal((value as { metadata: unknown }).metadata);
    });
  }

  it('UTF-8 bytes: the same metadata, the bytes kept as they are, also when the metadata is longer than the decoded head', () => {
    for (const tags of [['ü', '😀'], Array.from({ length: 800 }, (_, i) => `tag-é-${i}`)]) {
      const value = { kind: 'Dashboard', metadata: { name: 'a', tags }, spec: { s: 'ä'.repeat(5000) } };
      const bytes = Buffer.from(JSON.stringify(value));
      const t = storedText(bytes);
      expect(t.text).to.equal(bytes);
      expect(t.metadata).to.deep.equal(value.metadata);
    }
  });

  it('the metadata of text with whitespace (PostgreSQL jsonb) is read by parsing it whole', () => {
    const text = '{"kind": "K", "spec": {}, "metadata": {"name": "c", "version": 1}}';
    expect(storedText(text).metadata).to.deep.equal({ name: 'c', version: 1 });
  });
});
