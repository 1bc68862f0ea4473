import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { splitYamlDocuments } from './yaml-documents.js';

/** Each piece, parsed alone, is exactly one document of the stream, in order, with its first line. */
function check(text: string, lines: number[]): void {
  const pieces = splitYamlDocuments(text);
  const whole = parseAllDocuments(text)
    .map((d) => d.toJS())
    .filter((v) => v !== null);
  expect(
    pieces.map((p) => parseAllDocuments(p.text).length),
    'one document per piece',
  ).to.deep.equal(pieces.map(() => 1));
  expect(pieces.map((p) => parseAllDocuments(p.text)[0].toJS())).to.deep.equal(whole);
  expect(pieces.map((p) => p.line)).to.deep.equal(lines);
}

describe('splitYamlDocuments', () => {
  it('one document without a marker, and one with leading comments and a directive', () => {
    check('kind: Project\nmetadata:\n  name: a\n', [1]);
    check('# a comment\n%YAML 1.2\n---\nkind: Project\n', [1]);
  });

  it('several documents; empty ones and comment-only ones dropped; `...` ends a document', () => {
    check('a: 1\n---\nb: 2\n---\n# nothing\n---\n\n---\nc: 3\n...\n# trailing\n', [1, 2, 8]);
    check('---\n---\na: 1\n', [2]);
    check('a: 1\n...\n---\nb: 2\n', [1, 3]);
  });

  it('a block scalar holding dashes and dots that are not markers, CRLF lines, content on the marker line', () => {
    const text = 'a: |\n  ---\n  ...\n  text\nb: "--- not a marker"\n---- not a marker either: 1\n--- {c: 3}\r\n--- |\r\n  block\r\n';
    check(text, [1, 7, 8]);
  });

  it('nothing at all', () => {
    expect(splitYamlDocuments('')).to.deep.equal([]);
    expect(splitYamlDocuments('# only a comment\n---\n...\n')).to.deep.equal([]);
  });
});
