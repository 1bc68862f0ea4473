import { expect } from 'chai';
import { loginName, subjectOf } from './user-sync.js';

describe('external identities: the claims a user is bound to', () => {
  it('subjectOf takes a non-empty string or an integer, and refuses every other shape instead of stringifying it', () => {
    expect(subjectOf('248289761001')).to.equal('248289761001');
    expect(subjectOf(583231)).to.equal('583231'); // GitHub's numeric id
    for (const bad of [undefined, null, '', '  ', 1.5, NaN, 2 ** 60, true, ['alice'], [], { id: 1 }, {}])
      expect(subjectOf(bad), JSON.stringify(bad)).to.equal(undefined);
  });
  it('loginName reads only a string claim; other shapes fall back to the subject', () => {
    expect(loginName('alice', 's1')).to.equal('alice');
    expect(loginName(['admin'], 's1')).to.equal('s1');
    expect(loginName({ toString: () => 'admin' }, 's1')).to.equal('s1');
    expect(loginName('a b/c', 's1')).to.equal('a-b-c');
  });
});
