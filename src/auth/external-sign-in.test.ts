import { expect } from 'chai';
import { ApiError } from '../errors.js';
import { failureReason, presented } from './external-sign-in.js';
import { OAuthError } from './provider.js';

describe('auth/external-sign-in presented, failureReason', () => {
  it('presented: every value of a query or form but the OAuth parameters that carry no secret', () => {
    const query = {
      code: 'c1',
      state: ['s1', 's2'],
      iss: 'http://idp',
      error: 'access_denied',
      error_description: 'no',
      error_uri: 'u',
      grant_type: 'g',
      device_code: 'd1',
      client_secret: 'cs',
    };
    expect(presented(query)).to.deep.equal(['c1', 's1', 's2', 'd1', 'cs']);
  });

  it("an OAuth error is its code and the provider's description; another error is its message", () => {
    expect(failureReason(new OAuthError('invalid_client', 'client authentication failed'), [])).to.equal(
      'invalid_client: client authentication failed',
    );
    expect(failureReason(new OAuthError('access_denied', 'access_denied'), []), 'a description that only repeats the code').to.equal(
      'access_denied',
    );
    expect(failureReason(new ApiError('BadGateway', 'identity provider "corp" cannot be reached (fetch failed)'), [])).to.equal(
      'identity provider "corp" cannot be reached (fetch failed)',
    );
    expect(failureReason('thrown text', [])).to.equal('thrown text');
  });

  it('every presented value is hidden, the longest first and in one pass, whatever characters it holds', () => {
    const secret = 's3cr.t+(x)*';
    const e = new OAuthError('invalid_grant', `code abc-123 and ${secret} refused; abc again`);
    expect(failureReason(e, ['abc', secret, 'abc-123', undefined, '', 42, ['abc']])).to.equal(
      'invalid_grant: code <hidden> and <hidden> refused; <hidden> again',
    );
    // a value that is part of the placeholder changes nothing more
    expect(failureReason(new Error('code hid was refused'), ['hid', 'hidden'])).to.equal('code <hidden> was refused');
  });

  it('is at most 300 characters', () => {
    expect(failureReason(new Error('x'.repeat(1000)), [])).to.have.length(300);
  });
});
