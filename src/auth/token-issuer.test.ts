import { expect } from 'chai';
import { unverifiedIssuer } from './token-issuer.js';

const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('unverifiedIssuer', () => {
  it('reads iss from a JWS compact token without verifying it', () => {
    expect(unverifiedIssuer(`${part({ alg: 'RS256' })}.${part({ iss: 'https://idp.example', sub: 'a' })}.sig`)).to.equal(
      'https://idp.example',
    );
    expect(unverifiedIssuer(`${part({ alg: 'RS256' })}.${part({ sub: 'a' })}.sig`)).to.equal(undefined);
  });

  it('is undefined for anything else: opaque tokens, JWE, payloads that are not JSON objects', () => {
    for (const token of [
      'dp_0123456789abcdef',
      'a.b',
      `${part({})}.${part({ iss: 'x' })}.c.d.e`,
      `${part({})}.${part(['x'])}.s`,
      `${part({})}.${part('x')}.s`,
      `${part({})}.%%%.s`,
      `${part({})}.${part(null)}.s`,
      '',
    ])
      expect(unverifiedIssuer(token), token).to.equal(undefined);
  });
});
