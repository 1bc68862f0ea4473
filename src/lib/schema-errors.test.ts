import { expect } from 'chai';
import { Ajv } from 'ajv';
import { ApiError, invalid, MAX_DETAILS } from '../errors.js';
import { boundErrorCollection, MAX_SCHEMA_ERRORS } from './ajv-bounds.js';
import { schemaErrors, type ValidateFunction } from './schema-errors.js';

describe('schema errors in words', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const closed = (required: string[], extra: Record<string, unknown> = {}) => ({
    type: 'object',
    properties: Object.fromEntries(required.map((k) => [k, { type: 'string' }])),
    required,
    additionalProperties: false,
    ...extra,
  });

  it('an unknown key that is a required one spelled otherwise (direct_url for directUrl) says which was meant, first, and once', () => {
    const validate = ajv.compile(closed(['directUrl'])) as unknown as ValidateFunction;
    expect(schemaErrors(validate, { direct_url: 'http://x' }, 'spec')).to.deep.equal([
      { path: 'spec.direct_url', message: 'is not a known field here: did you mean "directUrl" (which is required)?' },
    ]);
  });

  it('with two alternatives (oneOf), the misspelling comes before what the other alternative misses', () => {
    const validate = ajv.compile({ oneOf: [closed(['directUrl']), closed(['proxy'])] }) as unknown as ValidateFunction;
    const details = schemaErrors(validate, { direct_url: 'http://x' }, 'spec');
    expect(details[0]).to.deep.equal({
      path: 'spec.direct_url',
      message: 'is not a known field here: did you mean "directUrl" (which is required)?',
    });
    expect(details.map((d) => d.path)).to.include('spec.proxy');
  });

  it('an unknown key like no required one keeps the plain message, and the required one is still reported', () => {
    const validate = ajv.compile(closed(['url'])) as unknown as ValidateFunction;
    expect(schemaErrors(validate, { link: 'http://x' })).to.deep.equal([
      { path: 'url', message: 'is required' },
      { path: 'link', message: 'is not a known field here; remove it or check its spelling' },
    ]);
  });
});

describe('schema errors at volume (COST-02)', () => {
  const bounded = new Ajv({ allErrors: true, strict: false, code: { process: boundErrorCollection } });
  const plain = new Ajv({ allErrors: true, strict: false });
  const item = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };
  // items checked by a referenced schema: each item's errors are merged into the list's
  const list = { $id: 'list', type: 'array', items: { $ref: 'item' } };
  bounded.addSchema({ ...item, $id: 'item' });
  plain.addSchema({ ...item, $id: 'item' });
  const bad = (n: number) => Array.from({ length: n }, (_, i) => ({ nam: `x${i}` }));

  it('a bounded validator reports what ajv reports, as long as it holds at most MAX_SCHEMA_ERRORS', () => {
    const b = bounded.compile(list) as unknown as ValidateFunction;
    const p = plain.compile(list) as unknown as ValidateFunction;
    expect(schemaErrors(b, bad(300))).to.deep.equal(schemaErrors(p, bad(300)));
    expect(schemaErrors(b, bad(300))).to.have.length(600);
  });

  it('past MAX_SCHEMA_ERRORS it stops: an Invalid error counting "more than" and listing the first problems', () => {
    const b = bounded.compile(list) as unknown as ValidateFunction;
    let thrown: unknown;
    try {
      schemaErrors(b, bad(MAX_SCHEMA_ERRORS), '', 'List');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).to.be.instanceOf(ApiError);
    const e = thrown as ApiError;
    expect(e.reason).to.equal('Invalid');
    expect(e.message).to.match(
      new RegExp(
        `^invalid List: more than ${MAX_SCHEMA_ERRORS} problems \\(the first ${MAX_DETAILS} are listed\\), first: \\[0\\]\\.name: is required`,
      ),
    );
    expect(e.details).to.have.length(MAX_DETAILS);
    expect(e.details![1]).to.deep.equal({ path: '[0].nam', message: 'is not a known field here; remove it or check its spelling' });
  });

  it('the rewrite refuses code it does not know, rather than leave a validator quadratic', () => {
    expect(() => boundErrorCollection('vErrors = vErrors.concat(other);')).to.throw(/a shape this rewrite does not know/);
    expect(boundErrorCollection('return true;')).to.equal('return true;');
  });

  it('an answer lists at most MAX_DETAILS problems and counts them all', () => {
    const details = Array.from({ length: 150 }, (_, i) => ({ path: `spec.items[${i}]`, message: 'must be a string' }));
    const e = invalid(details, 'Thing');
    expect(e.message).to.equal(`invalid Thing: 150 problems (the first ${MAX_DETAILS} are listed), first: spec.items[0]: must be a string`);
    expect(e.details).to.have.length(MAX_DETAILS);
    expect(invalid(details.slice(0, 2)).message).to.equal('2 problems, first: spec.items[0]: must be a string');
  });
});

describe('schema errors of long keys (COST-02)', () => {
  it('a path through a key of megabytes keeps its start and its end (the field at fault), within about 1,000 characters', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile({
      type: 'object',
      additionalProperties: { type: 'object', required: ['kind'] },
    }) as unknown as ValidateFunction;
    const key = 'k'.repeat(1_000_000);
    const [detail] = schemaErrors(validate, { [key]: {} }, 'spec.panels');
    expect(detail.message).to.equal('is required');
    expect(detail.path).to.match(/^spec\.panels\.k+…\(\d+ characters\)…k+\.kind$/);
    expect(detail.path.length).to.be.below(1100);
  });
});
