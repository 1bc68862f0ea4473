import { expect } from 'chai';
import { Ajv } from 'ajv';
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
    expect(details[0]).to.deep.equal({ path: 'spec.direct_url', message: 'is not a known field here: did you mean "directUrl" (which is required)?' });
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
