import { expect } from 'chai';
import { ApiError } from '../errors.js';
import { type BodyLimits, scanJson } from './body-limits.js';

const LOOSE: BodyLimits = { maxDepth: 100, maxNodes: 1e9, maxKeys: 1e9, maxBytes: 1e9 };

/** Values (containers and scalars) and the most keys of one object, as JSON.parse builds them. */
function shape(value: unknown): { nodes: number; keys: number } {
  let nodes = 0;
  let keys = 0;
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    nodes++;
    if (v === null || typeof v !== 'object') continue;
    if (!Array.isArray(v)) keys = Math.max(keys, Object.keys(v).length);
    stack.push(...Object.values(v as object));
  }
  return { nodes, keys };
}

const refusal = (text: string, limits: Partial<BodyLimits>): string | undefined => {
  try {
    scanJson(text, { ...LOOSE, ...limits });
    return undefined;
  } catch (e) {
    expect(e).to.be.instanceOf(ApiError);
    return (e as ApiError).message;
  }
};

describe('scanJson: the body limits, checked on the text before it is parsed (COST-01)', () => {
  const texts = [
    '0',
    '"a,b:[{"',
    '[]',
    '{}',
    '[1, [2, 3], {}, [], {"a": [ ]}]',
    '{"a": {"b": 1, "c": [1, 2, {"d": null}]}, "e": "x\\"],{", "f": true}',
    ' { "k" : [ { } , [ [ ] ] ] } ',
    JSON.stringify({ kind: 'Dashboard', spec: { panels: { a: { kind: 'Panel' }, b: { kind: 'Panel' } }, tags: ['x', 'y'] } }),
  ];

  it('counts the values and the keys of the widest object exactly as JSON.parse builds them', () => {
    for (const text of texts) {
      const { nodes, keys } = shape(JSON.parse(text));
      expect(refusal(text, { maxNodes: nodes, maxKeys: Math.max(keys, 1) }), text).to.equal(undefined);
      if (nodes > 1) expect(refusal(text, { maxNodes: nodes - 1 }), text).to.match(/holds more than \d+ values \(http\.max_body_nodes\)/);
      if (keys > 1) expect(refusal(text, { maxKeys: keys - 1 }), text).to.match(/holds more than \d+ keys \(http\.max_object_keys\)/);
    }
  });

  it('names the object with too many keys by its path', () => {
    const text = JSON.stringify({ kind: 'Dashboard', spec: { layouts: [{}, { spec: { a: 1, b: 2, c: 3 } }] } });
    expect(refusal(text, { maxKeys: 2 })).to.equal(
      'spec.layouts[1].spec: an object holds more than 2 keys (http.max_object_keys); use fewer keys',
    );
    expect(refusal('{"a":1,"b":2,"c":3}', { maxKeys: 2 })).to.match(/^the body: an object holds more than 2 keys/);
  });

  it('bounds the nesting as before: 100 levels pass, 101 do not', () => {
    expect(refusal(`${'['.repeat(100)}${']'.repeat(100)}`, {})).to.equal(undefined);
    expect(refusal(`${'['.repeat(101)}${']'.repeat(101)}`, {})).to.match(/nested more than 100 levels deep \(http\.max_json_depth\)/);
  });

  it('stops at the limit, not at the end of a body of a million values', () => {
    const text = `[${'0,'.repeat(1_000_000)}0]`;
    expect(refusal(text, { maxNodes: 100_000 })).to.match(/more than 100000 values/);
  });
});
