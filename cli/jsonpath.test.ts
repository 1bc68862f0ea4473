import { expect } from 'chai';
import { CliError } from './errors.js';
import { compileJsonPath, compileJsonPathValues } from './jsonpath.js';
import { parseOutput } from './printers.js';
import { parseSelector } from './selector.js';

const LIST = {
  kind: 'List',
  items: [
    { metadata: { name: 'a', tags: ['x', 'y'] }, spec: { default: true, n: 3, display: { name: 'A b' } } },
    { metadata: { name: 'b' }, spec: { default: false, n: 1 } },
  ],
};

describe('dashctl get -o jsonpath, -o custom-columns, -l', () => {
  it("prints kubectl's JSONPath templates: paths, [*], indexes, slices, filters, .., ranges, strings", () => {
    const jp = (template: string, data: unknown = LIST) => compileJsonPath(template)(data);
    expect(jp('{.items[*].metadata.name}')).to.equal('a b');
    expect(jp('{range .items[*]}{.metadata.name}{"\\t"}{.spec.n}{"\\n"}{end}')).to.equal('a\t3\nb\t1\n');
    expect(jp('{range .items}[{.metadata.name}]{end}'), 'a range over an array goes through its items').to.equal('[a][b]');
    expect(jp('{.items[0].metadata.tags}')).to.equal('["x","y"]');
    expect(jp('{.items[-1].metadata.name}')).to.equal('b');
    expect(jp('{.items[0:1].metadata.name}')).to.equal('a');
    expect(jp("{.items[*].metadata['name']}")).to.equal('a b');
    expect(jp('{.items[?(@.spec.default==true)].metadata.name}')).to.equal('a');
    expect(jp('{.items[?(@.spec.n>1)].metadata.name} {.items[?(@.metadata.tags)].metadata.name}')).to.equal('a a');
    expect(jp('{.items[?(@.spec.display.name=="A b")].metadata.name}')).to.equal('a');
    expect(jp('{..n}')).to.equal('3 1');
    expect(jp('{$.kind}/{.items[*].nope}/')).to.equal('List//');
    expect(jp('name: {.metadata.name}\n', LIST.items[0])).to.equal('name: a\n');
    for (const bad of ['{range .items[*]}{.x}', '{.items[}', '{.items[?(x)]}', '{.a b}', '{end}'])
      expect(() => compileJsonPath(bad), bad).to.throw(CliError, '-o jsonpath=');
  });

  it('-o: the formats kubectl users write, and a clear error for any other', () => {
    expect(parseOutput('wide')).to.deep.equal({ format: 'wide' });
    expect(parseOutput('=yaml'), '-o=yaml').to.deep.equal({ format: 'yaml' });
    expect(parseOutput('jsonpath={.metadata.name}').format).to.equal('jsonpath');
    const columns = parseOutput('custom-columns=NAME:.metadata.name,FIRST:.items[0,1],TAGS:{.metadata.tags}');
    expect(columns.format === 'custom-columns' && columns.columns.map((c) => c.header)).to.deep.equal(['NAME', 'FIRST', 'TAGS']);
    expect(compileJsonPathValues('{.metadata.tags}')(LIST.items[0])).to.deep.equal([['x', 'y']]);
    expect(() => parseOutput('wider')).to.throw(
      CliError,
      '-o wider: unknown output format; use table, wide, json, yaml, name, jsonpath=TEMPLATE',
    );
    expect(() => parseOutput('jsonpath=')).to.throw(CliError, 'unknown output format');
    expect(() => parseOutput('custom-columns=NAME')).to.throw(CliError, '"NAME" is not HEADER:PATH');
  });

  it('-l: tags an object carries (all of them) and does not carry', () => {
    const names = (selector: string) => LIST.items.filter(parseSelector(selector)).map((o) => o.metadata.name);
    expect(names('x')).to.deep.equal(['a']);
    expect(names('x,y')).to.deep.equal(['a']);
    expect(names('x,z')).to.deep.equal([]);
    expect(names('!x')).to.deep.equal(['b']);
    expect(names(' !z , x ')).to.deep.equal(['a']);
    for (const bad of ['', 'a,,b', 'env in (a,b)', 'a!=b', '!'])
      expect(() => parseSelector(bad), bad).to.throw(CliError, 'is not a tag requirement');
  });
});
