import { expect } from 'chai';
import { splitPath } from './manifests.js';

describe('dashctl manifests', () => {
  it("splits the server's JSON paths", () => {
    expect(splitPath('spec.panels["a b"].spec.queries[0].kind')).to.deep.equal(['spec', 'panels', 'a b', 'spec', 'queries', 0, 'kind']);
    expect(splitPath('(root)')).to.deep.equal([]);
  });
});
