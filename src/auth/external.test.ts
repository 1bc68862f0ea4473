import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OIDCProviderConfig } from '../kinds/generated/types.js';
import { buildProviders } from './external.js';

describe('identity provider configuration (buildProviders)', () => {
  const oidc = (o: Partial<OIDCProviderConfig> = {}): OIDCProviderConfig => ({
    slug_id: 'corp',
    name: 'Corp',
    client_id: 'dashplane',
    issuer: 'https://idp.example.com',
    ...o,
  });
  const WHERE = 'security.authentication.providers.oidc';

  it('accepts a provider with a secret or a readable secret file, or neither (a public client)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'providers-'));
    try {
      writeFileSync(join(dir, 'secret'), 's3cret\n');
      expect(
        buildProviders([
          oidc({ client_secret: 's3cret' }),
          oidc({ slug_id: 'b', client_secret_file: join(dir, 'secret') }),
          oidc({ slug_id: 'c' }),
        ]).size,
      ).to.equal(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a slug used twice, http off loopback, an unreadable secret file, and a secret given both ways, naming the entry', () => {
    expect(() => buildProviders([oidc(), oidc()])).to.throw(`${WHERE}[1]: slug_id "corp" is used twice`);
    expect(() => buildProviders([oidc({ issuer: 'http://idp.example.com' })])).to.throw(
      `${WHERE}[0]: http://idp.example.com must use https`,
    );
    expect(() => buildProviders([oidc({ issuer: 'http://127.0.0.1:9000' })])).to.not.throw();
    expect(() => buildProviders([oidc({ client_secret_file: '/nonexistent/secret' })])).to.throw(`${WHERE}[0].client_secret_file: ENOENT`);
    expect(() => buildProviders([oidc({ client_secret: 'a', client_secret_file: '/etc/hostname' })])).to.throw(
      `${WHERE}[0]: set client_secret or client_secret_file, not both`,
    );
  });
});
