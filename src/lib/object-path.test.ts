import { expect } from 'chai';
import { deletePath, getPath, setPath, setPathIfParentExists } from './object-path.js';

describe('object paths', () => {
  it('setPath makes missing parent objects; setPathIfParentExists leaves the object alone then', () => {
    const made: Record<string, unknown> = { spec: {} };
    expect(setPath(made, 'spec.proxy.spec.url', 'http://x')).to.equal(true);
    expect(made).to.deep.equal({ spec: { proxy: { spec: { url: 'http://x' } } } });

    const kept: Record<string, unknown> = { spec: {} };
    expect(setPathIfParentExists(kept, 'spec.proxy.spec.url', 'http://x')).to.equal(false);
    expect(kept).to.deep.equal({ spec: {} });
    expect(setPathIfParentExists(kept, 'spec.url', 'http://x')).to.equal(true);
    expect(getPath(kept, 'spec.url')).to.equal('http://x');
  });

  it('neither sets through or onto a parent that is not a plain object', () => {
    for (const set of [setPath, setPathIfParentExists]) {
      const obj: Record<string, unknown> = { a: [1], b: 'text', c: null };
      expect(set(obj, 'a.x', 1)).to.equal(false);
      expect(set(obj, 'b.x', 1)).to.equal(false);
      expect(set(obj, 'c.x', 1)).to.equal(false);
      expect(set(obj, 'a.0.x', 1)).to.equal(false);
      expect(obj).to.deep.equal({ a: [1], b: 'text', c: null });
    }
  });

  it('deletePath removes a field whose parent exists and ignores a missing one', () => {
    const obj: Record<string, unknown> = { spec: { password: 'x', name: 'n' } };
    deletePath(obj, 'spec.password');
    deletePath(obj, 'spec.missing.deeper');
    deletePath(obj, 'top');
    expect(obj).to.deep.equal({ spec: { name: 'n' } });
  });
});
