import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import type { ApiError } from '../errors.js';
import type { BodyLimits } from './body-limits.js';
import { yamlBodyToJson } from './yaml-body.js';

const LIMITS: BodyLimits = { maxDepth: 100, maxNodes: 1000, maxKeys: 100, maxBytes: 10_000 };

const refusal = (text: string, limits: Partial<BodyLimits> = {}): string => {
  try {
    yamlBodyToJson(text, { ...LIMITS, ...limits });
  } catch (e) {
    expect((e as ApiError).reason).to.equal('BadRequest');
    return (e as ApiError).message;
  }
  throw new Error(`accepted: ${text}`);
};

describe('YAML bodies read as the JSON they stand for (COST-01)', () => {
  it('reads the YAML 1.2 core schema as the yaml package does (which dashctl and the server used before)', () => {
    const text = [
      'a: yes',
      'b: [0o17, 0x1F, 017, 1_000, 0b101, +12, 1e3, .5, 3.0, -.5e-2, 1.]',
      'c: [~, Null, NULL, null, TRUE, False, true]',
      'd: 2001-12-14t21:59:43.10-05:00',
      'e: { <<: {x: 1} }',
      'f: "\\u00e9 \\t"',
      'g: |-\n    x\n    y',
      'h: >\n    folded\n    text',
      'i: !!str 12',
      'j: !!int "12"',
      'k: &anchor [1, {x: 2}]',
      'l: *anchor',
      '"quoted key": 1',
      '12: twelve',
    ].join('\n');
    expect(yamlBodyToJson(text, LIMITS)).to.equal(JSON.stringify(parseAllDocuments(text, { schema: 'core' })[0].toJS()));
  });

  it('refuses what the server refused before: duplicate keys, custom tags, several documents, -0 and other numbers JSON cannot carry', () => {
    expect(refusal('a: 1\nb: 2\na: 3')).to.equal('the request body is not valid YAML: duplicated mapping key (line 3, column 1)');
    expect(refusal('a: !custom x')).to.match(/not valid YAML: unknown tag/);
    expect(refusal('a: !!binary aGVsbG8=')).to.match(/not valid YAML: unknown tag/);
    expect(refusal('a: 1\n---\nb: 2')).to.match(/holds more than one YAML document/);
    for (const num of ['-0', '.inf', '-.inf', '.nan', '9007199254740993']) expect(refusal(`a: ${num}`)).to.match(/number is out of range/);
    expect(refusal('__proto__: {admin: true}')).to.match(/"__proto__" is not allowed/);
    expect(refusal(`a: ${'['.repeat(150)}${']'.repeat(150)}`)).to.match(/nested more than 100 levels deep/);
  });

  it('never quotes the text in an error (it may hold a password)', () => {
    expect(refusal('password: "hunter2\nx: [')).not.to.contain('hunter2');
  });

  it('counts an alias as a copy of what it names: values and text', () => {
    const laughs = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcd'.split('').map((n, i) => `${n}: &${n} [${Array(10).fill(`*${'abc'[i]}`).join(', ')}]`),
    ].join('\n');
    expect(refusal(laughs)).to.equal(
      'the body holds more than 1000 values, counting each YAML alias as a copy of what it names (http.max_body_nodes); send fewer in one request',
    );
    const long = `a: &s ${'x'.repeat(3000)}\nb: [*s, *s, *s]`;
    expect(refusal(long)).to.match(
      /^the body stands for more than 10000 bytes of text once its YAML aliases are expanded \(http\.body_limit\)/,
    );
    expect(yamlBodyToJson(`a: &s ${'x'.repeat(3000)}\nb: [*s, *s]`, LIMITS)).to.have.length(9000 + 20);
  });

  it('refuses a value that contains itself, which JSON cannot hold', () => {
    expect(refusal('a: &x [1, *x]')).to.equal('a[1]: a YAML alias here stands for a value that contains it; JSON cannot hold that');
    expect(refusal('a: &x {b: {c: *x}}')).to.match(/^a\.b\.c: a YAML alias/);
  });

  it('counts the keys of each mapping, aliases too', () => {
    const wide = (n: number) => Array.from({ length: n }, (_, i) => `  k${i}: 1`).join('\n');
    expect(yamlBodyToJson(`spec:\n${wide(100)}`, LIMITS)).to.contain('"k99":1');
    expect(refusal(`spec:\n${wide(101)}`)).to.equal('spec: an object holds more than 100 keys (http.max_object_keys); use fewer keys');
  });
});
