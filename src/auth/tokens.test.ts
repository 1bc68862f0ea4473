import { expect } from 'chai';
import { loadKeyRing } from './keys.js';
import { TokenService } from './tokens.js';

describe('TokenService access tokens', () => {
  const keys = loadKeyRing({ key: 'ab'.repeat(32), dataDir: '/nonexistent' });
  let nowMs: number;
  let tokens: TokenService;
  const session = { user: 'alice', sessionId: 's1', provider: 'native', slug: 'native', refreshId: 'r1' };
  beforeEach(() => {
    nowMs = Date.parse('2026-11-22T00:00:00Z');
    tokens = new TokenService(keys, { accessS: 60, refreshS: 600 }, () => nowMs);
  });

  it('a token that verified once is refused once it expires (the verified-token memory checks exp)', () => {
    const t = tokens.issue(session).body.access_token;
    expect(tokens.verifyAccess(t).sub).to.equal('alice');
    nowMs += 60_000 + 29_000; // within the 30 s skew
    expect(tokens.verifyAccess(t).sub).to.equal('alice');
    nowMs += 2_000;
    expect(() => tokens.verifyAccess(t)).to.throw(/access token has expired/);
  });

  it('after the genuine token verified, an altered copy of it is still refused', () => {
    const t = tokens.issue(session).body.access_token;
    tokens.verifyAccess(t);
    const [h, p, sig] = t.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'admin' })).toString(
      'base64url',
    );
    expect(() => tokens.verifyAccess(`${h}.${forged}.${sig}`)).to.throw(/invalid/);
    expect(() => tokens.verifyAccess(`${t}x`)).to.throw(/invalid/);
    expect(tokens.verifyAccess(t).sub).to.equal('alice');
  });
});
