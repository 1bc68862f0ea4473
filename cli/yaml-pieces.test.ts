import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { skipWithoutCorpus } from '../test/helpers/corpus.js';
import { CliError } from './errors.js';
import { fastLoad, lineFinder, parsePieces } from './yaml-pieces.js';

describe('dashctl YAML fast path (js-yaml) gives the same values as the yaml package', () => {
  const corpusFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? corpusFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
    );
  const careful = (text: string) => parseAllDocuments(text).map((d) => d.toJS({ maxAliasCount: 100 }));

  it('on every YAML file of the Perses corpus', function () {
    const files = corpusFiles(skipWithoutCorpus(this, 'corpus'));
    expect(files.length).to.be.greaterThan(50);
    let fast = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const got = fastLoad(text);
      if (got === undefined) continue; // anchors or a refusal: the careful path handles it
      fast++;
      expect(got, file).to.deep.equal(careful(text));
    }
    expect(fast).to.be.greaterThan(50);
  });

  it('on the values where YAML 1.1 and 1.2 differ, timestamps, merge keys and odd scalars', () => {
    const text = [
      'a: yes',
      'b: no',
      'c: on',
      'd: 0o17',
      'e: 0x1F',
      'f: 017',
      'g: 1_000',
      'h: .inf',
      'i: -.Inf',
      'j: .nan',
      'k: ~',
      'l: Null',
      'm: TRUE',
      'n: 2001-12-14t21:59:43.10-05:00',
      'o: 0001-01-01T00:00:00Z',
      "p: '<<'",
      'q: { <<: {x: 1} }',
      'r: 1e3',
      's: +12',
      'u: "\\u00e9"',
      'v: |-\n    x\n    y',
      'w: >\n    folded\n    text',
      'x: [1, "2", 3.0]',
    ].join('\n');
    const got = fastLoad(text);
    expect(got).to.not.equal(undefined);
    expect(JSON.stringify(got)).to.equal(JSON.stringify(careful(text)));
  });

  it('leaves files with anchors (alias bombs) and invalid YAML to the careful path', () => {
    expect(fastLoad('a: &x [1, 2]\nb: *x\n')).to.equal(undefined);
    expect(fastLoad('a: [1, 2\n')).to.equal(undefined);
    expect(fastLoad('a: 1\na: 2\n')).to.equal(undefined);
    expect(fastLoad('t: 0b101\n')).to.equal(undefined); // js-yaml would read a number, YAML 1.2 core a string
    expect(fastLoad('query: a * b & c\n')).to.deep.equal([{ query: 'a * b & c' }]);
  });
});

describe('dashctl refuses files nested deeper than the server accepts, before parsing them whole', () => {
  const N = 100_000;
  const bombs: [string, string][] = [
    ['deep.yaml', `a: ${'['.repeat(N)}${']'.repeat(N)}`],
    ['deep.yaml', `${'- '.repeat(N)}x`],
    ['deep.yaml', `${'? '.repeat(N)}x`],
    ['deep.yaml', 'k: : >\n'.repeat(N / 2)],
    ['deep.yaml', Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')],
    ['deep.json', `${'['.repeat(N)}${']'.repeat(N)}`],
    ['no-extension', `${'{"a":'.repeat(N)}1${'}'.repeat(N)}`],
  ];
  for (const [file, text] of bombs) {
    it(`${file} ${JSON.stringify(text.slice(0, 12))}...: a CliError naming the file and the limit`, () => {
      expect(() => parsePieces(file, text)).to.throw(CliError, new RegExp(`^${file}: nested more than 100 levels deep`));
    });
  }

  it('the line finder of an error message does not parse a deep file whole either', () => {
    expect(lineFinder(() => `a: ${'['.repeat(N)}`)(0, ['a'])).to.equal(undefined);
  });

  it('control: 100 levels are read, on both the fast and the careful path', () => {
    const nested = (n: number) => `a: ${'['.repeat(n - 1)}${']'.repeat(n - 1)}\n`;
    expect(parsePieces('ok.yaml', nested(100))).to.have.length(1);
    expect(parsePieces('ok.yaml', `x: &anchor 1\n${nested(100)}`)).to.have.length(1);
    expect(() => parsePieces('no.yaml', nested(101))).to.throw(CliError, /nested more than 100/);
  });
});
