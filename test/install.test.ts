import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';

type Version = [number, number, number];

const parse = (v: string): Version => {
  const [a, b, c] = v.replace(/^v/, '').split('.');
  return [Number(a) || 0, b === undefined || b === 'x' ? 0 : Number(b), c === undefined || c === 'x' ? 0 : Number(c)];
};
const cmp = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `v` satisfies one comparator set of an npm `engines.node` range (the forms found in lockfiles). */
function satisfiesSet(v: Version, set: string): boolean {
  return set
    .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
    .replace(/\*/g, 'x')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .every((c) => {
      const m = /^(>=|<=|>|<|\^|~|=)?v?(\d+(?:\.(?:\d+|x))?(?:\.(?:\d+|x))?)$/.exec(c);
      if (!m) throw new Error(`engine range part ${JSON.stringify(c)} not understood`);
      const op = m[1] ?? '';
      const w = parse(m[2]);
      const parts = m[2].split('.').length;
      switch (op) {
        case '>=':
          return cmp(v, w) >= 0;
        case '>':
          return cmp(v, w) > 0;
        case '<=':
          return cmp(v, w) <= 0;
        case '<':
          return cmp(v, w) < 0;
        case '^':
          return v[0] === w[0] && cmp(v, w) >= 0;
        case '~':
          return v[0] === w[0] && v[1] === w[1] && cmp(v, w) >= 0;
        default:
          return parts === 1 ? v[0] === w[0] : parts === 2 ? v[0] === w[0] && v[1] === w[1] : cmp(v, w) === 0;
      }
    });
}

const satisfies = (v: Version, range: string) => range.trim() === '*' || range.split('||').some((set) => satisfiesSet(v, set));

describe('installation', () => {
  it("every package in package-lock.json runs on the minimum Node version of package.json's engines (npm prints no EBADENGINE there)", () => {
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    const min = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(pkg.engines.node.trim());
    expect(min, 'engines.node is a plain minimum like ">=20.19"').to.not.equal(null);
    const v = parse(min![1]);
    const lock = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && !Array.isArray(p.engines) && p.engines?.node && !satisfies(v, p.engines.node))
      .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')} wants node ${(p.engines as { node: string }).node}`);
    expect(refusing).to.deep.equal([]);
  });

  it('the range check itself tells a refusing range from an accepting one', () => {
    expect(satisfies([20, 19, 0], '>=22')).to.equal(false);
    expect(satisfies([20, 19, 0], '18 || 20 || >=22')).to.equal(true);
    expect(satisfies([20, 19, 0], '^20.19.0 || >=22.12.0')).to.equal(true);
    expect(satisfies([20, 19, 0], '>=20.20')).to.equal(false);
  });
});
