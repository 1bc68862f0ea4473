import { expect } from 'chai';
import type { SecurityConfig } from '../kinds/generated/types.js';
import { openInstallationWarning, signUpBesideProvidersWarning } from './exposure.js';

describe('openInstallationWarning', () => {
  const warning = (security: unknown, kind: string) => openInstallationWarning(security as SecurityConfig, kind);
  const createProject = [{ actions: ['create'], scopes: ['Project'] }];
  it('warns when auth is on, sign-up open and guests may create projects (directly or through *)', () => {
    expect(warning({ enable_auth: true, authorization: { guest_permissions: createProject } }, 'Project')).to.match(
      /^warning: open installation/,
    );
    expect(warning({ enable_auth: true, authorization: { guest_permissions: [{ actions: ['*'], scopes: ['*'] }] } }, 'Project')).to.be.a(
      'string',
    );
  });
  it('is silent with auth off, sign-up closed, native login off, or no project creation for guests', () => {
    expect(warning({ enable_auth: false, authorization: { guest_permissions: createProject } }, 'Project')).to.equal(undefined);
    expect(
      warning(
        { enable_auth: true, authentication: { disable_sign_up: true }, authorization: { guest_permissions: createProject } },
        'Project',
      ),
    ).to.equal(undefined);
    expect(
      warning(
        { enable_auth: true, authentication: { providers: { enable_native: false } }, authorization: { guest_permissions: createProject } },
        'Project',
      ),
    ).to.equal(undefined);
    expect(
      warning({ enable_auth: true, authorization: { guest_permissions: [{ actions: ['read'], scopes: ['*'] }] } }, 'Project'),
    ).to.equal(undefined);
  });
  it('is silent when proxy.denied_networks holds every private and loopback network (or wider ones), and warns when one is missing', () => {
    const open = { enable_auth: true, authorization: { guest_permissions: createProject } } as unknown as SecurityConfig;
    const all = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', 'fc00::/7', '::1/128', '169.254.0.0/16'];
    expect(openInstallationWarning(open, 'Project', all)).to.equal(undefined);
    expect(openInstallationWarning(open, 'Project', ['0.0.0.0/0', '::/0']), 'everything denied').to.equal(undefined);
    expect(openInstallationWarning(open, 'Project', ['10.0.0.0/8']), 'only one of them').to.be.a('string');
    expect(
      openInstallationWarning(
        open,
        'Project',
        all.filter((n) => n !== 'fc00::/7'),
      ),
      'IPv6 private left open',
    ).to.be.a('string');
    expect(
      openInstallationWarning(open, 'Project', [...all.filter((n) => n !== '172.16.0.0/12'), '172.16.0.0/16']),
      'a narrower range does not cover',
    ).to.be.a('string');
  });
});

describe('signUpBesideProvidersWarning', () => {
  const warning = (security: unknown) => signUpBesideProvidersWarning(security as SecurityConfig);
  const oidc = { oidc: [{ slug_id: 'corp', issuer: 'https://sso.corp.example' }] };
  it('warns when native sign-up is open and an OIDC or OAuth provider is configured', () => {
    expect(warning({ enable_auth: true, authentication: { providers: oidc } })).to.match(
      /^warning: native sign-up is open beside identity providers/,
    );
    expect(warning({ enable_auth: true, authentication: { providers: { oauth: [{ slug_id: 'forge' }] } } })).to.be.a('string');
  });
  it('is silent with auth off, sign-up closed, native login off, or no provider', () => {
    expect(warning({ enable_auth: false, authentication: { providers: oidc } })).to.equal(undefined);
    expect(warning({ enable_auth: true, authentication: { disable_sign_up: true, providers: oidc } })).to.equal(undefined);
    expect(warning({ enable_auth: true, authentication: { providers: { ...oidc, enable_native: false } } })).to.equal(undefined);
    expect(warning({ enable_auth: true, authentication: { providers: { oidc: [] } } })).to.equal(undefined);
  });
});
