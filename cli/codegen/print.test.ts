import { expect } from 'chai';
import { call, data, print } from './print.js';

describe('dashctl generate: the printer', () => {
  it('prints values TypeScript reads back as the same JSON, calls included', () => {
    const value = {
      a: "it's",
      b: 'multi\nline',
      c: 'tick ` and ${x}',
      __proto__: 1,
      'key with space': [1, -0, null, true],
      call: 'x',
      args: [],
    };
    const code = print(call('f', data(value)));
    // eslint-disable-next-line no-new-func
    const back = new Function('f', `return ${code};`)((x: unknown) => x);
    expect(JSON.stringify(back)).to.equal(JSON.stringify(value));
    expect(Object.getPrototypeOf(back)).to.equal(Object.prototype);
  });

  it('keeps short things on a line and breaks long ones', () => {
    expect(print(call('panel', data({ title: 'CPU' })))).to.equal("panel({ title: 'CPU' })");
    const long = print(data({ query: 'x'.repeat(120), n: 1 }));
    expect(long.split('\n')).to.have.length(4);
  });
});
