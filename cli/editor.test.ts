import { expect } from 'chai';
import { editHeader, parseEdited, withoutComments } from './editor.js';

describe('dashctl edit', () => {
  it('edit: strips its comment lines, reads one YAML document, puts the errors first', () => {
    expect(withoutComments('# a\nkind: X\n# b\nspec:\n  text: "# not a comment"\n')).to.equal(
      'kind: X\nspec:\n  text: "# not a comment"\n',
    );
    expect(parseEdited('kind: X\n')).to.deep.equal({ value: { kind: 'X' } });
    expect(parseEdited('a: [1\n'))
      .to.have.property('error')
      .that.match(/^not valid YAML/);
    expect(parseEdited('a: 1\n---\nb: 2\n')).to.deep.equal({ error: 'expected one YAML document, found 2' });
    const header = editHeader('Dashboard p/x', ['bad (400 Invalid)', '  spec.a: nope']);
    expect(header.split('\n').slice(0, 3)).to.deep.equal([
      '# The edit could not be saved; fix it below (or empty the file to give up):',
      '#   bad (400 Invalid)',
      '#     spec.a: nope',
    ]);
    expect(header.split('\n').every((l) => l === '' || l.startsWith('#'))).to.equal(true);
  });
});
